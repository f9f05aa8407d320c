import { CartError, ErrorCode } from '../../domain/errors.js';
import type { CancelReason, Order } from '../../domain/order.js';
import { retryingConflicts, withoutVersion } from '../core/records.js';
import type { Clock, OrderRepository } from '../ports.js';

/**
 * Cancels a confirmed order: CANCELLED with `order-cancelled`, which 3p-connector consumes and
 * sends to the partner (queued and retried while the partner is down). Idempotent.
 * `partnerCancelQueued` is true when the partner cancel is left to that queue.
 */
export class CancelOrder {
  constructor(private readonly deps: { orders: OrderRepository; clock: Clock }) {}

  async handle(
    orderId: string,
    reason: CancelReason,
    detail: string,
  ): Promise<{ order: Order; partnerCancelQueued: boolean }> {
    const { orders, clock } = this.deps;
    return retryingConflicts(async () => {
      const order = await orders.get(orderId);
      if (!order)
        throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
      if (order.status === 'CANCELLED')
        return { order: withoutVersion(order), partnerCancelQueued: false };
      const written = await orders.updateCancelled(
        {
          ...withoutVersion(order),
          status: 'CANCELLED',
          cancelledAt: clock.now(),
          cancelReason: reason,
          cancelDetail: detail,
        },
        order.version,
      );
      return { order: withoutVersion(written), partnerCancelQueued: !written.sandbox };
    });
  }
}
