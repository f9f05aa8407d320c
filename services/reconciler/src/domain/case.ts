import { backoffMs as kernelBackoffMs } from '@marquee/platform/kernel';
import type { Transaction } from './transaction.js';

/** What opened a case. */
export type CaseTrigger =
  | 'PARTNER_CALL_FAILED'
  | 'STALE_BOOKING'
  | 'ORDER_MISMATCH'
  /** Money taken and no order (`payment-captured` without `order-confirmed`). */
  | 'CAPTURE_WITHOUT_ORDER'
  /** An order whose payment was not captured in full. */
  | 'ORDER_WITHOUT_CAPTURE';

/** `OPEN` until decided. `ORDER_CONFIRMED` exists in the contract; this service never decides it. */
export type CaseOutcome =
  'OPEN' | 'CONSISTENT' | 'ORDER_CONFIRMED' | 'ORDER_CANCELLED' | 'BOOKING_RELEASED' | 'MANUAL';

/** One in-doubt transaction. There is at most one case per transaction: its id derives from it. */
export interface ReconciliationCase {
  id: string;
  transactionId: string;
  partnerId: string;
  eventId: string;
  cartId?: string;
  orderId?: string;
  /** The partner booking the case is about, when known (then the partner is read by token). */
  inventoryToken?: string;
  inventoryOrderId?: string;
  trigger: CaseTrigger;
  outcome: CaseOutcome;
  /** `outcome === 'OPEN'`, stored for queries. */
  open: boolean;
  /** Explanation for operators: what was found, what was done, or why it is still open. */
  detail: string;
  openedAt: Date;
  resolvedAt?: Date;
  /** When the worker looks at the open case next (grace period, then backoff). */
  dueAt: Date;
  /** Resolution attempts that could not finish (partner unreachable, action failed). */
  attempts: number;
  /** When the failure happened or the hold ended: the centre of the period read from the partner. */
  observedAt: Date;
  /** What an operator must do (money cases). */
  operatorAction?: string;
  /** The processor's payment id (money cases). */
  paymentId?: string;
}

export const caseIdFor = (transactionId: string): string => `rc-${transactionId}`;

/** The money case of a transaction: one per transaction, beside its partner case. */
export const moneyCaseIdFor = (transactionId: string): string => `rc-pay-${transactionId}`;

/** The operations whose failure puts a transaction in doubt. */
export type FailedOperation =
  'CREATE_BOOKING' | 'RELEASE_BOOKING' | 'CREATE_ORDER' | 'CANCEL_ORDER' | 'OTHER';

/**
 * A booking or order create that got no answer may have happened at the partner; a release that
 * failed may have left tickets held. Other failures (a refused create, print calls, reads, cancels
 * the connector queues and retries itself) leave nothing to reconcile.
 */
export function failureOpensCase(operation: FailedOperation, outcomeUnknown: boolean): boolean {
  if (operation === 'RELEASE_BOOKING') return true;
  return outcomeUnknown && (operation === 'CREATE_BOOKING' || operation === 'CREATE_ORDER');
}

/** A new open case for a transaction, due after the grace period. */
export function openCase(input: {
  transaction: Transaction;
  trigger: CaseTrigger;
  observedAt: Date;
  inventoryToken?: string;
  inventoryOrderId?: string;
  dueAt: Date;
  now: Date;
  detail: string;
}): ReconciliationCase {
  const t = input.transaction;
  return {
    id: caseIdFor(t.id),
    transactionId: t.id,
    partnerId: t.partnerId,
    eventId: t.eventId,
    ...(t.cartId ? { cartId: t.cartId } : {}),
    ...(t.orderId ? { orderId: t.orderId } : {}),
    ...(input.inventoryToken ? { inventoryToken: input.inventoryToken } : {}),
    ...(input.inventoryOrderId ? { inventoryOrderId: input.inventoryOrderId } : {}),
    trigger: input.trigger,
    outcome: 'OPEN',
    open: true,
    detail: input.detail,
    openedAt: input.now,
    dueAt: input.dueAt,
    attempts: 0,
    observedAt: input.observedAt,
  };
}

/**
 * Reopens a decided case for a newer doubt about the same transaction (one case per transaction).
 * An observation not newer than the one the case was opened for is a redelivery: `undefined`.
 */
export function reopenCase(
  current: ReconciliationCase,
  fresh: ReconciliationCase,
): ReconciliationCase | undefined {
  if (fresh.observedAt <= current.observedAt) return undefined;
  if (current.open) {
    return { ...current, observedAt: fresh.observedAt, dueAt: fresh.dueAt, detail: fresh.detail };
  }
  const { resolvedAt: _resolvedAt, ...rest } = current;
  return {
    ...rest,
    ...fresh,
    id: current.id,
    openedAt: current.openedAt,
    attempts: 0,
  };
}

/** Exponential backoff for an open case that could not be decided: base·2^(attempts-1), capped. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return kernelBackoffMs(attempts, { firstMs: baseMs, maxMs });
}
