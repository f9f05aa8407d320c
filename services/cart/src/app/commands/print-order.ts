import { CartError, ErrorCode, staleCart } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import { printRefusal } from '../core/refusals.js';
import type { OrderRepository, PartnerConnector } from '../ports.js';

/**
 * Records printing of a confirmed order at the partner (PRINT), or its rollback after a printing
 * problem (ROLLBACK_PRINT), and writes the order with `order-printed` (operators: admin API and
 * CLI). The partner keeps the print state and refuses an action that does not fit it (PRINT of a
 * printed order, ROLLBACK_PRINT of one not printed): cart does not second-guess it, so an order
 * whose last write was lost can still be brought back in line. Sandbox orders have no partner
 * order: only the record is written.
 *
 * Unknown order: not_found. Not confirmed (cancelled) or refused by the partner:
 * failed_precondition (90003). The partner down or too slow: unavailable (20001), nothing
 * recorded by cart, so a retry is safe.
 */
export class PrintOrder {
  constructor(private readonly deps: { orders: OrderRepository; connector: PartnerConnector }) {}

  async handle(orderId: string, action: 'PRINT' | 'ROLLBACK_PRINT'): Promise<Order> {
    const { orders, connector } = this.deps;
    const what = action === 'PRINT' ? 'printed' : 'have its printing rolled back';
    const order = await orders.get(orderId);
    if (!order)
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    if (order.status !== 'CONFIRMED')
      throw staleCart(`order ${orderId} is ${order.status}: only a confirmed order can be ${what}`);
    if (!order.sandbox) {
      try {
        await connector.printOrder({
          eventId: order.eventId,
          inventoryOrderId: order.inventoryOrderId,
          orderId: order.id,
          action,
        });
      } catch (error) {
        throw printRefusal(error, orderId, action);
      }
    }
    // The partner has taken the action: record it even if the order changed meanwhile (a cancel
    // is its own record and does not undo a print).
    let current = order;
    const written = await retryingConflicts(
      () => orders.updatePrinted({ ...withoutVersion(current), printed: action }, current.version),
      {
        beforeRetry: async (error) => {
          const again = await orders.get(orderId);
          if (!again) throw error;
          current = again;
        },
      },
    );
    return withoutVersion(written);
  }
}
