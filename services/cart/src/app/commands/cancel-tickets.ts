import { CartError, ErrorCode } from '../../domain/errors.js';
import type { CancelReason, Order } from '../../domain/order.js';
import { planTicketCancel, withTicketsCancelled } from '../../domain/partial-cancel.js';
import type { FeeSchedule } from '../../domain/pricing.js';
import { retryingConflicts, withoutVersion } from '../core/records.js';
import { partialCancelRefusal } from '../core/refusals.js';
import type { Clock, Log, OrderRepository, PartnerConnector } from '../ports.js';

/**
 * Cancels some tickets of a confirmed order (a partial cancel; the rules and amounts are in
 * `domain/partial-cancel.ts` and docs/payments.md, "Refunds"). In this order:
 *
 * 1. The request is checked against the order (unknown tickets, tickets cancelled already, a
 *    repeat of an earlier partial cancel, which answers the order unchanged).
 * 2. The partner cancels those tickets now, through 3p-connector (never queued). A partner that
 *    cancels whole orders only (310), refuses, or cannot be reached leaves everything as it was:
 *    no ticket is marked and nothing is refunded, and the operator is told why.
 * 3. One write marks the tickets, keeps the cancel, adds the refund owed to the order's debts and
 *    queues `order-cancelled` with the tickets (`partial` unless they were the last ones).
 *
 * A partner that took the cancel while the write was lost (a crash, a conflict that outlasted the
 * retries) is asked again by the operator's retry; the 3P contract makes a repeated partial cancel
 * of the same tickets succeed.
 */
export class CancelOrderTickets {
  constructor(
    private readonly deps: {
      orders: OrderRepository;
      connector: PartnerConnector;
      clock: Clock;
      log: Log;
      settings: { fees: FeeSchedule };
    },
  ) {}

  /** Resolves the order as written, and whether this request changed it. */
  async handle(
    orderId: string,
    ticketIds: readonly string[],
    reason: CancelReason,
    detail: string,
  ): Promise<{ order: Order; changed: boolean }> {
    const { orders, connector, clock, settings } = this.deps;
    const found = await this.#order(orderId);
    const fees = found.fees ?? settings.fees;
    const plan = planTicketCancel(found, ticketIds, reason, fees);
    if (plan.kind === 'repeat') return { order: withoutVersion(found), changed: false };
    if (!found.sandbox && found.inventoryOrderId) {
      try {
        await connector.cancelTickets({
          eventId: found.eventId,
          inventoryOrderId: found.inventoryOrderId,
          orderId: found.id,
          ticketIds: plan.ticketIds,
        });
      } catch (error) {
        throw partialCancelRefusal(error, orderId);
      }
    }
    return retryingConflicts(async () => {
      const order = await this.#order(orderId);
      const again = planTicketCancel(order, ticketIds, reason, order.fees ?? settings.fees);
      if (again.kind === 'repeat') return { order: withoutVersion(order), changed: false };
      const next = withTicketsCancelled(withoutVersion(order), again, {
        reason,
        detail,
        now: clock.now(),
      });
      const written = await orders.updateCancelled(next, order.version, again.ticketIds);
      return { order: withoutVersion(written), changed: true };
    });
  }

  async #order(orderId: string) {
    const order = await this.deps.orders.get(orderId);
    if (!order)
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    return order;
  }
}
