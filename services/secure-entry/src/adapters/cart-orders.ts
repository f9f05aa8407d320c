import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { CartServiceClient } from '@marquee/proto/cart/v1';
import type { CartOrders } from '../app/ports.js';

/**
 * cart's `GetOrder` as the CartOrders port (the fan id backfill). cart answers the fan id to
 * secure-entry only. `not_found` is an order cart does not have; any other error (cart
 * unavailable, ...) is thrown as its kind, for the backfill to try again later.
 */
export function cartOrdersClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): CartOrders & { close(): void } {
  const client = createGrpcClient(CartServiceClient, address, options);
  return {
    async contactOf(orderId) {
      try {
        const answer = await callUnary(client, 'getOrder', { orderId, appId: '' });
        return {
          fanId: answer.fanId,
          ...(answer.contactErasedAt ? { contactErasedAt: answer.contactErasedAt } : {}),
        };
      } catch (error) {
        if ((error as { kind?: unknown } | null)?.kind === 'not_found') return undefined;
        throw error;
      }
    },
    close: () => client.close(),
  };
}
