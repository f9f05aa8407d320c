import {
  owedRefundsOf,
  paymentOf,
  withOwedRefunds,
  withRefund,
  withRefundRefused,
  type Order,
  type OrderRefund,
  type RefundOwed,
} from '../../domain/order.js';
import { isTransient, retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import type { CartAppDeps } from '../types.js';
import type { PaymentProcessor } from '../ports.js';

const SWEEP_BATCH = 50;

type RefundDeps = Pick<
  CartAppDeps,
  'orders' | 'clock' | 'log' | 'processor' | 'sandboxProcessor' | 'settings'
>;

/** The order without the owed refund of `key` (the due time goes with the last one). */
export function withoutRefundOwed(order: Order, key: string): Order {
  return withOwedRefunds(
    order,
    owedRefundsOf(order).filter((owed) => owed.key !== key),
    undefined,
  );
}

/**
 * Pays the refunds an order owes (`refundsOwed`, each written by a cancel in the same write as
 * its `order-cancelled`, so a crash never loses one), oldest first. Each refund goes through the
 * processor that holds the payment with its owed idempotency key, so a retry, a second replica or
 * the sweeper never refunds twice. Taken: the refund is recorded on the order with
 * `payment-refunded` and that debt is cleared. A processor out of reach: the debts stay and are
 * due again after `owedRetryMs`. A processor that refuses for good (e.g. the payment was disputed
 * or refunded in full already): that debt is cleared and the refusal kept on the order
 * (`refundsRefused`, each of them) for an operator.
 */
export class RefundOrder {
  constructor(private readonly deps: RefundDeps) {}

  /** Tries the owed refunds of the order now; resolves the order as written (or found). */
  async handle(orderId: string): Promise<Order | undefined> {
    let order = await this.deps.orders.get(orderId);
    const tried = new Set<string>();
    for (;;) {
      const owed = order && owedRefundsOf(order).find((o) => !tried.has(o.key));
      if (!order || !owed) return order && withoutVersion(order);
      tried.add(owed.key);
      const outcome = await this.#pay(order, owed);
      if (outcome.retryLater) return outcome.order;
      order = await this.deps.orders.get(orderId);
    }
  }

  /** Asks the processor for one owed refund and writes what came of it. */
  async #pay(
    order: Order,
    owed: RefundOwed,
  ): Promise<{ order: Order | undefined; retryLater: boolean }> {
    const { log } = this.deps;
    const orderId = order.id;
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
        const written = await this.#write(orderId, owed.key, (current) => ({
          ...current,
          refundDueAt: new Date(now.getTime() + Math.max(1_000, this.deps.settings.owedRetryMs)),
        }));
        return { order: written, retryLater: true };
      }
      log.error(
        { order_id: orderId, payment_id: payment.paymentId, err: error },
        'the processor refused the refund of a cancelled order; an operator must settle it',
      );
      const reason = error instanceof Error ? error.message : String(error);
      const refusal = { key: owed.key, reason, at: now };
      const written = await this.#write(orderId, owed.key, (current) =>
        withRefundRefused(withoutRefundOwed(current, owed.key), refusal),
      );
      return { order: written, retryLater: false };
    }
    const written = await this.#write(
      orderId,
      owed.key,
      (current) => withRefund(withoutRefundOwed(current, owed.key), refund),
      [refund],
    );
    return { order: written, retryLater: false };
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
      if (!current || !owedRefundsOf(current).some((o) => o.key === key))
        return current && withoutVersion(current);
      return withoutVersion(
        await orders.updatePayment(change(withoutVersion(current)), current.version, refunded),
      );
    });
  }
}
