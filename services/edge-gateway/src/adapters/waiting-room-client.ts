import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  QueueStatus,
  WaitingRoomServiceClient,
  type OnSale,
  type QueueTicket,
} from '@marquee/proto/cart/v1';
import type { OnSaleRecord, QueueTicketRecord, WaitingRoomBackend } from '../app/waiting-room.js';

const STATUS: Partial<Record<QueueStatus, QueueTicketRecord['status']>> = {
  [QueueStatus.QUEUE_STATUS_WAITING]: 'WAITING',
  [QueueStatus.QUEUE_STATUS_ADMITTED]: 'ADMITTED',
  [QueueStatus.QUEUE_STATUS_SOLD_OUT]: 'SOLD_OUT',
  [QueueStatus.QUEUE_STATUS_EXPIRED]: 'EXPIRED',
};

export function toQueueTicketRecord(t: QueueTicket): QueueTicketRecord {
  const status = STATUS[t.status] ?? 'EXPIRED';
  return {
    id: t.id,
    eventId: t.eventId,
    status,
    ...(status === 'WAITING' && t.position > 0 ? { position: t.position } : {}),
    ...(status === 'WAITING' && t.estimatedWaitSeconds > 0
      ? { estimatedWaitSeconds: t.estimatedWaitSeconds }
      : {}),
    ...(t.opensAt ? { opensAt: t.opensAt } : {}),
    ...(t.admissionToken ? { admissionToken: t.admissionToken } : {}),
    ...(t.admissionExpiresAt ? { admissionExpiresAt: t.admissionExpiresAt } : {}),
    joinedAt: t.joinedAt ?? new Date(0),
    ...(status === 'WAITING' && t.rank > 0 ? { rank: t.rank } : {}),
    ...(status === 'WAITING' && t.heldBack ? { heldBack: true as const } : {}),
  };
}

export function toOnSaleRecord(o: OnSale): OnSaleRecord {
  return {
    eventId: o.eventId,
    opensAt: o.opensAt ?? new Date(0),
    queue: o.queue,
    ...(o.frozenAt ? { frozenAt: o.frozenAt } : {}),
    earlyCount: o.earlyCount,
    admittedThrough: o.admittedThrough,
    ...(o.admissionHorizon > 0 ? { admissionHorizon: o.admissionHorizon } : {}),
    ...(o.soldOutAt ? { soldOutAt: o.soldOutAt } : {}),
    ...(Object.keys(o.heldBackThrough ?? {}).length > 0
      ? { heldBackThrough: { ...o.heldBackThrough } }
      : {}),
    ...(o.admissionsPerSecond > 0 ? { admissionsPerSecond: o.admissionsPerSecond } : {}),
  };
}

/**
 * Cart's WaitingRoomService as the edge's waiting room port. Its own client, without the bound on
 * calls in flight of the others: a burst of reserves must not refuse the queue. No call is held:
 * the edge holds its fans' long polls itself (app/queue-long-polls.ts) and asks cart only for
 * tickets as they read now (in batches, app/queue-ticket-reads.ts), once per event and poll for
 * the on-sale, and every 15 s per event tells it which fans wait here (app/queue-presence.ts).
 */
export function createWaitingRoomClient(
  address: string,
  options: { deadlineMs: number; logger: Logger; maxInFlight?: number },
): WaitingRoomBackend & { close(): void } {
  const client = createGrpcClient(WaitingRoomServiceClient, address, options);
  return {
    async configure(eventId, input) {
      const answer = await callUnary(client, 'configureOnSale', {
        eventId,
        opensAt: input.opensAt,
        queue: input.queue,
      });
      return toOnSaleRecord(answer.onSale!);
    },
    async join(caller, eventId, identity) {
      const answer = await callUnary(client, 'joinQueue', {
        eventId,
        appId: caller.appId,
        fanId: identity.fanId ?? '',
        deviceId: identity.deviceId ?? '',
        // The app's held-ticket quota, as a reserve passes it: the admitter goes by it.
        ...(caller.heldTicketsPerEvent !== undefined
          ? { heldTicketsPerEvent: caller.heldTicketsPerEvent }
          : {}),
      });
      return { ticket: toQueueTicketRecord(answer.ticket!), joined: answer.joined };
    },
    async read(caller, eventId, ticketId) {
      const answer = await callUnary(client, 'getQueueTicket', {
        eventId,
        queueTicketId: ticketId,
        appId: caller.appId,
        waitSeconds: 0,
      });
      return toQueueTicketRecord(answer.ticket!);
    },
    async readMany(eventId, tickets) {
      const answer = await callUnary(client, 'getQueueTickets', {
        eventId,
        tickets: tickets.map(({ appId, ticketId }) => ({ appId, queueTicketId: ticketId })),
      });
      return answer.tickets.map(toQueueTicketRecord);
    },
    async onSale(eventId) {
      const answer = await callUnary(client, 'getOnSale', { eventId });
      return toOnSaleRecord(answer.onSale!);
    },
    async reportPresence(eventId, reporter, fans) {
      await callUnary(client, 'reportQueuePresence', {
        eventId,
        reporter,
        fans: fans.map((fan) => ({
          queueTicketId: fan.ticketId,
          seenAtMs: Math.floor(fan.seenAtMs),
        })),
      });
    },
    close: () => client.close(),
  };
}
