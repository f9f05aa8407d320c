/**
 * What the platform knows about one transaction (a cart's booking and the order it became), built
 * from cart's and 3p-connector's events. Every fact sets its own field, so a redelivered or
 * out-of-order event changes nothing twice: the phase is derived from which facts are present.
 */
export interface Transaction {
  /** The cart id; `order:<order id>` for an order seen before (or without) its cart. */
  id: string;
  cartId?: string;
  orderId?: string;
  eventId: string;
  partnerId: string;
  inventoryToken?: string;
  inventoryOrderId?: string;
  /** `booking-held`: when the hold started and ends. */
  heldAt?: Date;
  expiresAt?: Date;
  /** `order-confirmed`. */
  confirmedAt?: Date;
  /** `order-cancelled`. */
  cancelledAt?: Date;
  /** Latest `partner-call-failed` about this transaction. */
  lastFailureAt?: Date;
  /** The payment captured (`payment-captured`, or the payment on `order-confirmed`). */
  payment?: TransactionPayment;
  /** `order-confirmed`: the order's grand total and what its payment captured (minor units). */
  orderGrandMinor?: number;
  orderCapturedMinor?: number;
  /**
   * When the money of the transaction is to be checked: a capture waiting for its order (checked
   * once the grace period has passed), an order whose capture falls short. Absent otherwise.
   */
  moneyCheckAt?: Date;
  /** Derived from the facts above (stored so that it can be queried). */
  phase: TransactionPhase;
  /** A stale-booking check has been done for the current hold. */
  staleChecked: boolean;
  /** Latest fact of any kind: which events the scheduled report visits. */
  lastActivityAt: Date;
}

/** A captured payment as cart reports it. */
export interface TransactionPayment {
  provider: string;
  paymentId: string;
  capturedMinor: number;
  currency: string;
  capturedAt?: Date;
}

/** `unknown`: only a failed partner call is known so far. */
export type TransactionPhase = 'unknown' | 'held' | 'confirmed' | 'cancelled';

export const orderOnlyTransactionId = (orderId: string): string => `order:${orderId}`;

export function phaseOf(t: Pick<Transaction, 'heldAt' | 'confirmedAt' | 'cancelledAt'>) {
  if (t.cancelledAt) return 'cancelled' as const;
  if (t.confirmedAt) return 'confirmed' as const;
  if (t.heldAt) return 'held' as const;
  return 'unknown' as const;
}

/** A fact about a transaction, as the consumers hand it over. */
export type TransactionFact =
  | {
      kind: 'booking-held';
      cartId: string;
      eventId: string;
      partnerId: string;
      inventoryToken: string;
      heldAt: Date;
      expiresAt: Date;
    }
  | {
      kind: 'order-confirmed';
      orderId: string;
      cartId: string;
      eventId: string;
      partnerId: string;
      inventoryToken: string;
      inventoryOrderId: string;
      confirmedAt: Date;
      /** The order's money; absent from orders confirmed before cart published it. */
      payment?: { provider: string; paymentId: string; currency: string; capturedMinor: number };
      grandMinor?: number;
    }
  | {
      kind: 'payment-captured';
      cartId: string;
      orderId: string;
      eventId: string;
      partnerId: string;
      provider: string;
      paymentId: string;
      amountMinor: number;
      currency: string;
      capturedAt: Date;
    }
  | {
      kind: 'order-cancelled';
      orderId: string;
      eventId: string;
      partnerId: string;
      inventoryOrderId: string;
      cancelledAt: Date;
    }
  | {
      kind: 'partner-call-failed';
      cartId?: string;
      orderId?: string;
      eventId: string;
      partnerId: string;
      inventoryToken?: string;
      inventoryOrderId?: string;
      failedAt: Date;
    };

const earliest = (a: Date | undefined, b: Date): Date => (a && a <= b ? a : b);
const latest = (a: Date | undefined, b: Date): Date => (a && a >= b ? a : b);
const keep = <T>(current: T | undefined, next: T | undefined): T | undefined =>
  next === undefined || next === '' ? current : next;

/** The transaction after a fact; `current` is undefined for a new one. Pure and idempotent. */
export function applyFact(
  id: string,
  current: Transaction | undefined,
  fact: TransactionFact,
  now: Date,
): Transaction {
  const base: Transaction = current ?? {
    id,
    eventId: fact.eventId,
    partnerId: fact.partnerId,
    phase: 'unknown',
    staleChecked: false,
    lastActivityAt: now,
  };
  const next: Transaction = {
    ...base,
    eventId: base.eventId || fact.eventId,
    partnerId: base.partnerId || fact.partnerId,
  };
  let factTime: Date;
  switch (fact.kind) {
    case 'booking-held': {
      next.cartId = fact.cartId;
      // A cart holds one booking at a time: a newer hold (a replacement) is the current one.
      const newer = !base.heldAt || fact.heldAt > base.heldAt;
      if (newer) {
        next.inventoryToken = fact.inventoryToken;
        next.heldAt = fact.heldAt;
        next.expiresAt = fact.expiresAt;
        next.staleChecked = false;
      } else {
        next.inventoryToken = keep(base.inventoryToken, fact.inventoryToken);
      }
      factTime = fact.heldAt;
      break;
    }
    case 'order-confirmed':
      next.cartId = keep(base.cartId, fact.cartId);
      next.orderId = fact.orderId;
      next.inventoryToken = keep(base.inventoryToken, fact.inventoryToken);
      next.inventoryOrderId = keep(base.inventoryOrderId, fact.inventoryOrderId);
      next.confirmedAt = earliest(base.confirmedAt, fact.confirmedAt);
      applyOrderMoney(next, fact);
      factTime = fact.confirmedAt;
      break;
    case 'payment-captured':
      next.cartId = fact.cartId;
      next.orderId = keep(base.orderId, fact.orderId);
      next.payment = {
        provider: fact.provider,
        paymentId: fact.paymentId,
        capturedMinor: fact.amountMinor,
        currency: fact.currency,
        capturedAt: fact.capturedAt,
      };
      // Waits for its order: checked once the grace period after the capture has passed.
      if (!next.confirmedAt) next.moneyCheckAt = fact.capturedAt;
      factTime = fact.capturedAt;
      break;
    case 'order-cancelled':
      next.orderId = fact.orderId;
      next.inventoryOrderId = keep(base.inventoryOrderId, fact.inventoryOrderId);
      next.cancelledAt = earliest(base.cancelledAt, fact.cancelledAt);
      factTime = fact.cancelledAt;
      break;
    case 'partner-call-failed':
      next.cartId = keep(base.cartId, fact.cartId);
      next.orderId = keep(base.orderId, fact.orderId);
      next.inventoryToken = keep(base.inventoryToken, fact.inventoryToken);
      next.inventoryOrderId = keep(base.inventoryOrderId, fact.inventoryOrderId);
      next.lastFailureAt = latest(base.lastFailureAt, fact.failedAt);
      factTime = fact.failedAt;
      break;
  }
  next.phase = phaseOf(next);
  next.lastActivityAt = latest(base.lastActivityAt, factTime);
  return next;
}

/**
 * The money an `order-confirmed` tells: the order's capture, and whether it falls short of the
 * grand total (then due for a check now). An order ends any wait of its capture for it.
 */
function applyOrderMoney(
  next: Transaction,
  fact: Extract<TransactionFact, { kind: 'order-confirmed' }>,
): void {
  delete next.moneyCheckAt;
  if (!fact.payment || fact.grandMinor === undefined) return;
  next.payment = { ...next.payment, ...fact.payment };
  next.orderGrandMinor = fact.grandMinor;
  next.orderCapturedMinor = fact.payment.capturedMinor;
  if (fact.payment.capturedMinor < fact.grandMinor) next.moneyCheckAt = fact.confirmedAt;
}

/** Folds an order-only record (cancel seen before the cart was known) into the cart's record. */
export function mergeTransactions(into: Transaction, from: Transaction): Transaction {
  const next: Transaction = {
    ...into,
    orderId: into.orderId ?? from.orderId,
    inventoryOrderId: into.inventoryOrderId ?? from.inventoryOrderId,
    lastActivityAt: latest(into.lastActivityAt, from.lastActivityAt),
  };
  if (from.cancelledAt) next.cancelledAt = earliest(into.cancelledAt, from.cancelledAt);
  if (from.confirmedAt) next.confirmedAt = earliest(into.confirmedAt, from.confirmedAt);
  if (from.lastFailureAt) next.lastFailureAt = latest(into.lastFailureAt, from.lastFailureAt);
  next.phase = phaseOf(next);
  return next;
}

/** The platform holds a live booking: held, not yet an order or cancelled, and not past its end. */
export const hasLiveBooking = (t: Transaction | undefined, now: Date): boolean =>
  t !== undefined && t.phase === 'held' && (!t.expiresAt || t.expiresAt > now);

/** The platform sold it: an order was confirmed (paid) and not cancelled. */
export const isPaidOrder = (t: Transaction | undefined): boolean =>
  t !== undefined && t.phase === 'confirmed';

/**
 * Whether the transaction itself waits for nothing more: no money check due and no ended hold left
 * to check against the partner. Its cases, if any, are judged apart (an open case keeps it).
 */
export function awaitsNothing(t: Pick<Transaction, 'moneyCheckAt' | 'phase' | 'staleChecked'>) {
  return t.moneyCheckAt === undefined && !(t.phase === 'held' && !t.staleChecked);
}
