import { failureOpensCase, openCase, type ReconciliationCase } from '../../domain/case.js';
import {
  applyFact,
  mergeTransactions,
  orderOnlyTransactionId,
  type Transaction,
  type TransactionFact,
} from '../../domain/transaction.js';
import { openOrReopen } from '../core/open-case.js';
import type { PartnerCallFailure, ReconcilerDeps } from '../types.js';

/**
 * Recording what the platform knows per transaction, from the consumers: a hold, an order
 * confirmed or cancelled, a capture, a failed partner call (which may open or reopen a case).
 */
export class RecordFacts {
  constructor(private readonly deps: ReconcilerDeps) {}

  async recordBookingHeld(fact: Extract<TransactionFact, { kind: 'booking-held' }>): Promise<void> {
    // A hold is normally the first the reconciler hears of a cart.
    await this.apply(fact.cartId, fact, { likelyNew: true });
  }

  async recordOrderConfirmed(
    fact: Extract<TransactionFact, { kind: 'order-confirmed' }>,
  ): Promise<void> {
    const id = fact.cartId || orderOnlyTransactionId(fact.orderId);
    await this.apply(id, fact);
    if (!fact.cartId) return;
    // A cancel seen before the cart was known was kept under the order id: fold it in.
    const orderOnly = await this.deps.transactions.get(orderOnlyTransactionId(fact.orderId));
    if (!orderOnly) return;
    await this.deps.transactions.upsert(id, (current) =>
      current ? mergeTransactions(current, orderOnly) : undefined,
    );
    await this.deps.transactions.delete(orderOnly.id);
  }

  /** A capture: its order is waited for, then its money checked (`sweepMoneyChecks`). */
  async recordPaymentCaptured(
    fact: Extract<TransactionFact, { kind: 'payment-captured' }>,
  ): Promise<void> {
    await this.apply(fact.cartId, fact);
  }

  async recordOrderCancelled(
    fact: Extract<TransactionFact, { kind: 'order-cancelled' }>,
  ): Promise<void> {
    const known = await this.deps.transactions.findByOrderId(fact.orderId);
    await this.apply(known?.id ?? orderOnlyTransactionId(fact.orderId), fact);
  }

  /** Records the failure; a failure that puts the transaction in doubt opens (or reopens) its case. */
  async recordPartnerCallFailed(
    failure: PartnerCallFailure,
  ): Promise<ReconciliationCase | undefined> {
    let id = failure.cartId;
    if (!id && failure.orderId) {
      const known = await this.deps.transactions.findByOrderId(failure.orderId);
      id = known?.id ?? orderOnlyTransactionId(failure.orderId);
    }
    if (!id) {
      this.deps.log.warn(
        { operation: failure.operation, eventId: failure.eventId },
        'partner-call-failed names neither a cart nor an order: nothing to reconcile',
      );
      return undefined;
    }
    const { operation, outcomeUnknown, message, ...fact } = failure;
    const transaction = await this.apply(id, fact);
    if (!transaction || !failureOpensCase(operation, outcomeUnknown)) return undefined;
    const { graceMs } = this.deps.settings;
    return openOrReopen(
      this.deps.cases,
      openCase({
        transaction,
        trigger: 'PARTNER_CALL_FAILED',
        observedAt: failure.failedAt,
        ...(failure.inventoryToken ? { inventoryToken: failure.inventoryToken } : {}),
        ...(failure.inventoryOrderId ? { inventoryOrderId: failure.inventoryOrderId } : {}),
        dueAt: new Date(failure.failedAt.getTime() + graceMs),
        now: this.deps.clock.now(),
        detail: `${operation} ${outcomeUnknown ? 'got no answer' : 'failed'} (${message || 'no message'}); waiting ${graceMs} ms before reading the partner`,
      }),
    );
  }

  private apply(
    id: string,
    fact: TransactionFact,
    options?: { likelyNew?: boolean },
  ): Promise<Transaction | undefined> {
    const now = this.deps.clock.now();
    return this.deps.transactions.upsert(
      id,
      (current) => applyFact(id, current, fact, now),
      options,
    );
  }
}
