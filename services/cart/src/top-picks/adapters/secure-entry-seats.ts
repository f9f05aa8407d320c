import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { SecureEntryServiceClient } from '@marquee/proto/entry/v1';
import type { AdmittedSeats } from '../app/ports.js';

/** Partner ticket ids one `ListAdmittedSeats` call takes (secure-entry's limit). */
const PER_CALL = 100;

/**
 * secure-entry's `ListAdmittedSeats` as top picks' AdmittedSeats port. Errors arrive as kinds
 * (`unavailable`, ...): a listing that cannot be checked is not made.
 */
export function secureEntryAdmittedSeats(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): AdmittedSeats & { close(): void } {
  const client = createGrpcClient(SecureEntryServiceClient, address, options);
  return {
    async admitted(eventId, ticketIds) {
      const admitted: string[] = [];
      for (let i = 0; i < ticketIds.length; i += PER_CALL) {
        const { seats } = await callUnary(client, 'listAdmittedSeats', {
          eventId,
          partnerTicketIds: ticketIds.slice(i, i + PER_CALL),
        });
        admitted.push(...seats.map((s) => s.partnerTicketId));
      }
      return admitted;
    },
    close: () => client.close(),
  };
}
