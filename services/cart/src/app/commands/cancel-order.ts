import { CartError, ErrorCode } from '../../domain/errors.js';
import {
  owedRefundsOf,
  refundOwedOnCancel,
  withOwedRefunds,
  type CancelReason,
  type Order,
} from '../../domain/order.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import type { Clock, Log, OrderRepository } from '../ports.js';
import type { CancelOrderTickets } from './cancel-tickets.js';
import type { RefundOrder } from './refund-order.js';

/**
 * Cancels a confirmed order: CANCELLED with `order-cancelled`, which 3p-connector consumes and
 * sends to the partner (queued and retried while the partner is down), and secure-entry consumes
 * to void the order's tickets. The same write records the refund the order owes (all that was
 * captured and neither refunded nor owed yet; none for a payment the issuer reversed), so it
 * cannot be lost; the refund is then tried at once, and by the sweeper until the processor took it
 * (see `RefundOrder`). Idempotent. `partnerCancelQueued` is true when the partner cancel is left
 * to that queue.
 *
 * With `ticketIds`, only those tickets are cancelled (`CancelOrderTickets`): the partner is asked
 * first, and the tickets are marked once it took the cancel. When it did not answer,
 * `partnerCancelQueued` is true, the order is answered as it was (its tickets still valid), and
 * cart's sweeper asks the partner again until it took or refused the cancel.
 */
export class CancelOrder {
  constructor(
    private readonly deps: { orders: OrderRepository; clock: Clock; log: Log },
    private readonly refunds: RefundOrder,
    private readonly tickets: CancelOrderTickets,
  ) {}

  async handle(
    orderId: string,
    reason: CancelReason,
    detail: string,
    ticketIds: readonly string[] = [],
  ): Promise<{ order: Order; partnerCancelQueued: boolean }> {
    if (ticketIds.length > 0) {
      const { order, changed, pending } = await this.tickets.handle(
        orderId,
        ticketIds,
        reason,
        detail,
      );
      return { order: changed ? await this.#refund(order) : order, partnerCancelQueued: pending };
    }
    const { orders, clock } = this.deps;
    const cancelled = await retryingConflicts(async () => {
      const order = await orders.get(orderId);
      if (!order)
        throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
      if (order.status === 'CANCELLED')
        return { order: withoutVersion(order), partnerCancelQueued: false };
      const now = clock.now();
      const owed = refundOwedOnCancel(order, reason);
      const next: Order = {
        ...withoutVersion(order),
        status: 'CANCELLED',
        cancelledAt: now,
        cancelReason: reason,
        cancelDetail: detail,
      };
      const written = await orders.updateCancelled(
        owed ? withOwedRefunds(next, [...owedRefundsOf(order), owed], now) : next,
        order.version,
      );
      return { order: withoutVersion(written), partnerCancelQueued: !written.sandbox };
    });
    return { ...cancelled, order: await this.#refund(cancelled.order) };
  }

  /** Tries the refunds the order owes now; on failure they stay owed and the sweeper retries. */
  async #refund(order: Order): Promise<Order> {
    if (owedRefundsOf(order).length === 0) return order;
    try {
      return (await this.refunds.handle(order.id)) ?? order;
    } catch (error) {
      this.deps.log.warn({ order_id: order.id, err: error }, 'refund after cancel not written yet');
      return order;
    }
  }
}
