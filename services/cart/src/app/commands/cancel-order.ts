import { CartError, ErrorCode } from '../../domain/errors.js';
import { refundOwedOnCancel, type CancelReason, type Order } from '../../domain/order.js';
import { retryingConflicts, withoutVersion } from '../core/records.js';
import type { Clock, Log, OrderRepository } from '../ports.js';
import type { RefundOrder } from './refund-order.js';

/**
 * Cancels a confirmed order: CANCELLED with `order-cancelled`, which 3p-connector consumes and
 * sends to the partner (queued and retried while the partner is down), and secure-entry consumes
 * to void the order's tickets. The same write records the refund the order owes (all that was
 * captured and not refunded yet; none for a payment the issuer reversed), so it cannot be lost;
 * the refund is then tried at once, and by the sweeper until the processor took it (see
 * `RefundOrder`). Idempotent. `partnerCancelQueued` is true when the partner cancel is left to
 * that queue.
 */
export class CancelOrder {
  constructor(
    private readonly deps: { orders: OrderRepository; clock: Clock; log: Log },
    private readonly refunds: RefundOrder,
  ) {}

  async handle(
    orderId: string,
    reason: CancelReason,
    detail: string,
  ): Promise<{ order: Order; partnerCancelQueued: boolean }> {
    const { orders, clock } = this.deps;
    const cancelled = await retryingConflicts(async () => {
      const order = await orders.get(orderId);
      if (!order)
        throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
      if (order.status === 'CANCELLED')
        return { order: withoutVersion(order), partnerCancelQueued: false };
      const now = clock.now();
      const owed = refundOwedOnCancel(order, reason);
      const written = await orders.updateCancelled(
        {
          ...withoutVersion(order),
          status: 'CANCELLED',
          cancelledAt: now,
          cancelReason: reason,
          cancelDetail: detail,
          ...(owed ? { refundOwed: owed, refundDueAt: now } : {}),
        },
        order.version,
      );
      return { order: withoutVersion(written), partnerCancelQueued: !written.sandbox };
    });
    if (!cancelled.order.refundOwed) return cancelled;
    try {
      const refunded = await this.refunds.handle(orderId);
      return { ...cancelled, order: refunded ?? cancelled.order };
    } catch (error) {
      // Owed on the order: the sweeper tries again.
      this.deps.log.warn({ order_id: orderId, err: error }, 'refund after cancel not written yet');
      return cancelled;
    }
  }
}
