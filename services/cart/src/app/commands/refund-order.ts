import { isTransient } from '../../domain/errors.js';
import { paymentOf, withRefund, type Order, type OrderRefund } from '../../domain/order.js';
import { retryingConflicts, withoutVersion } from '../core/records.js';
import type { CartAppDeps } from '../types.js';
import type { PaymentProcessor } from '../ports.js';

const SWEEP_BATCH = 50;

type RefundDeps = Pick<
  CartAppDeps,
  'orders' | 'clock' | 'log' | 'processor' | 'sandboxProcessor' | 'settings'
>;

/** The order without its owed refund (and its due time). */
export function withoutRefundOwed(order: Order): Order {
  const { refundOwed: _owed, refundDueAt: _due, ...rest } = order;
  return rest;
}

/**
 * Pays the refund an order owes (`refundOwed`, written by its cancel in the same write as
 * `order-cancelled`, so a crash never loses it). The refund goes through the processor that holds
 * the payment with the owed idempotency key, so a retry, a second replica or the sweeper never
 * refunds twice. Taken: the refund is recorded on the order with `payment-refunded` and the debt
 * is cleared. A processor out of reach: the debt stays and is due again after `owedRetryMs`. A
 * processor that refuses for good (e.g. the payment was disputed or refunded in full already):
 * the debt is cleared and the refusal kept on the order (`refundRefused`) for an operator.
 */
export class RefundOrder {
  constructor(private readonly deps: RefundDeps) {}

  /** Tries the owed refund of the order now; resolves the order as written (or found). */
  async handle(orderId: string): Promise<Order | undefined> {
    const { orders, log } = this.deps;
    const order = await orders.get(orderId);
    if (!order?.refundOwed) return order && withoutVersion(order);
    const owed = order.refundOwed;
    const payment = paymentOf(order);
    const processor = this.#processorOf(payment.provider);
    const now = this.deps.clock.now();
    let refund: OrderRefund;
    try {
      if (!processor)
        throw Object.assign(new Error(`processor ${payment.provider} is not configured here`), {
          kind: 'unavailable',
        });
      const taken = await processor.refund(payment.paymentId, owed.amountMinor, owed.key);
      refund = {
        refundId: taken.refundId,
        amountMinor: owed.amountMinor,
        status: taken.status,
        source: 'cancel',
        ticketIds: owed.ticketIds,
        at: now,
      };
    } catch (error) {
      if (isTransient(error)) {
        log.warn({ order_id: orderId, err: error }, 'refund failed; retried later');
        return this.#write(orderId, owed.key, (current) => ({
          ...current,
          refundDueAt: new Date(now.getTime() + Math.max(1_000, this.deps.settings.owedRetryMs)),
        }));
      }
      log.error(
        { order_id: orderId, payment_id: payment.paymentId, err: error },
        'the processor refused the refund of a cancelled order; an operator must settle it',
      );
      const reason = error instanceof Error ? error.message : String(error);
      return this.#write(orderId, owed.key, (current) => ({
        ...withoutRefundOwed(current),
        refundRefused: { key: owed.key, reason, at: now },
      }));
    }
    return this.#write(
      orderId,
      owed.key,
      (current) => withRefund(withoutRefundOwed(current), refund),
      [refund],
    );
  }

  /** The sweeper's pass: every order whose owed refund is due. Resolves how many it tried. */
  async sweep(): Promise<number> {
    const due = await this.deps.orders.findRefundDue(this.deps.clock.now(), SWEEP_BATCH);
    for (const order of due) {
      try {
        await this.handle(order.id);
      } catch (error) {
        this.deps.log.warn({ order_id: order.id, err: error }, 'refund sweep of an order failed');
      }
    }
    return due.length;
  }

  #processorOf(provider: string): PaymentProcessor | undefined {
    const { processor, sandboxProcessor } = this.deps;
    if (provider === processor.name) return processor;
    if (provider === sandboxProcessor.name) return sandboxProcessor;
    return undefined;
  }

  /** Writes `change` while the order still owes the refund of `key` (another writer may have paid it). */
  async #write(
    orderId: string,
    key: string,
    change: (order: Order) => Order,
    refunded: OrderRefund[] = [],
  ): Promise<Order | undefined> {
    const { orders } = this.deps;
    return retryingConflicts(async () => {
      const current = await orders.get(orderId);
      if (!current || current.refundOwed?.key !== key) return current && withoutVersion(current);
      return withoutVersion(
        await orders.updatePayment(change(withoutVersion(current)), current.version, refunded),
      );
    });
  }
}
