import { staleCart } from './errors.js';
import type { FeeSchedule } from './pricing.js';
import type { Reserve } from './reserve.js';
import type { BookingLine, HeldTicket, SealedSecret } from './booking.js';
import type { ShippingOption } from './shipping.js';

export type { BookingLine, HeldTicket, SealedSecret } from './booking.js';

/**
 * A cart: tickets reserved for one app (and, for commerce carts, one fan) on one event, held at
 * the partner until they are committed as an order, released, or the hold expires.
 *
 *   PENDING ──► HELD ──► PAID ──► COMMITTED
 *      │          │        │
 *      ▼          ▼        ▼
 *   FAILED    RELEASED / EXPIRED (also from PENDING: RELEASED; from PAID: FAILED on a refused commit)
 *
 * Every transition is a pure function here; the application writes it with compare-and-set.
 */
export type CartStatus =
  'PENDING' | 'HELD' | 'PAID' | 'COMMITTED' | 'RELEASED' | 'EXPIRED' | 'FAILED';

/** Who sells through the cart: the partner cart API (distributors) or the commerce API (fans). */
export type CartChannel = 'partner-cart' | 'commerce';

export type ReleaseReason =
  'client' | 'payment-failed' | 'replaced' | 'reconciliation' | 'fan-deleted';

/** Statuses that end a cart. */
export const FINAL_STATUSES: readonly CartStatus[] = ['COMMITTED', 'RELEASED', 'EXPIRED', 'FAILED'];

const TRANSITIONS: Record<CartStatus, readonly CartStatus[]> = {
  PENDING: ['HELD', 'FAILED', 'RELEASED'],
  // HELD → FAILED: a resale hold refused by its app's held-ticket quota right after it was written.
  HELD: ['PAID', 'RELEASED', 'EXPIRED', 'FAILED'],
  PAID: ['COMMITTED', 'RELEASED', 'EXPIRED', 'FAILED'],
  COMMITTED: [],
  RELEASED: [],
  EXPIRED: [],
  FAILED: [],
};

export const canTransition = (from: CartStatus, to: CartStatus): boolean =>
  TRANSITIONS[from].includes(to);

/** The authorised payment of a cart. The nonce and the CVV are never stored. */
export interface CartPayment {
  /** The processor's payment (authorisation) id. */
  paymentId: string;
  /** `CC`. */
  type: string;
  amountMinor: number;
  issuer: string;
  /** Last four digits, masked (`************1111`). */
  maskedNumber: string;
  expireMonth: number;
  expireYear: number;
  status: 'AUTHORIZED' | 'CAPTURED' | 'VOIDED';
  authorizedAt: Date;
  /** When the capture was recorded (at commit, before the order is written). */
  capturedAt?: Date;
}

/** Billing facts kept for the order (no card data). */
export interface CartBilling {
  firstName: string;
  lastName: string;
  email: string;
  thirdPartyAccountId: string;
  reference: string;
  countryCode: string;
}

/** The order a cart is being, or was, committed as. Set before the partner is asked. */
export interface CartOrderRef {
  orderId: string;
  orderNumber: string;
  /** Hex SHA-256 of the order token. */
  tokenSha256: string;
  /** The token itself, encrypted: a retried commit answers the same token. */
  tokenSealed: SealedSecret;
  inventoryOrderId?: string;
  confirmedAt?: Date;
}

export interface Cart {
  id: string;
  /** The developer app whose key created the cart; only it can see the cart. */
  appId: string;
  channel: CartChannel;
  /** The signed-in fan of a commerce cart. */
  fanId?: string;
  /**
   * The `third_party_account_id` a payment of the cart named, claimed before it is authorised:
   * the cart's tickets then count for that account (the event's ticket limit per buyer).
   */
  buyerAccountId?: string;
  eventId: string;
  partnerId: string;
  /** Pre-production cart: sandbox inventory and the sandbox processor only. */
  sandbox: boolean;
  language: string;
  currency: string;
  secureEntryEnabled: boolean;
  /** Country of the event (default shipping region). */
  countryCode: string;
  /** Time zone of the event (maintenance window). */
  timezone: string;
  status: CartStatus;
  /** What the buyer asked for (the reserve and its additional reserves). */
  requests: Reserve[];
  /** What the partner was last asked to hold (seats resolved); empty before the first attempt. */
  lines: BookingLine[];
  /** CreateBooking attempts so far. */
  reserveAttempts: number;
  /** Start of the last attempt (a pending cart whose attempt is stale is resumed by the sweeper). */
  reserveStartedAt?: Date;
  /**
   * When the sweeper must next look at the cart (a stale reserve, an ended hold, something still
   * owed); absent when it never needs to. Kept by the app on every write, so the sweeper's one
   * indexed query finds the due carts instead of four scans.
   */
  sweepAt?: Date;
  /** The partner's booking id once held (sandbox: the cart id). */
  inventoryToken?: string;
  tickets: HeldTicket[];
  heldAt?: Date;
  expiresAt?: Date;
  /** Fees as configured when the tickets were held. */
  fees?: FeeSchedule;
  delivery?: ShippingOption;
  payment?: CartPayment;
  billing?: CartBilling;
  order?: CartOrderRef;
  /** Why the cart failed (partner cart code and message). */
  failure?: { code: string; message: string };
  /** The partner (or sandbox) booking is still to be released; the sweeper retries. */
  releaseOwed: boolean;
  /**
   * A booking attempt ended without an answer: the partner may hold tickets for this cart under a
   * token cart never saw. Releasing then first asks CreateBooking again (idempotent per cart: it
   * answers the live booking of the cart) and releases what it answers.
   */
  bookingUnknown: boolean;
  releaseReason?: ReleaseReason;
  /** The payment authorisation is still to be voided; the sweeper retries. */
  voidOwed: boolean;
  /** Affiliate `sharedId` of a tracking hit of the same app and event shortly before. */
  sharedId?: string;
  /**
   * The digest of the reserve request that made the cart under an Idempotency-Key: the cart's id
   * is derived from the key, and a retry is answered from the cart (`claimedCartId`).
   */
  requestDigest?: string;
  createdAt: Date;
  updatedAt: Date;
  /** When the cart reached a final status. */
  endedAt?: Date;
  /**
   * When the buyer's personal data was erased (the fan was deleted): `fanId`, `buyerAccountId`
   * and the billing's names, e-mail, account id and reference are blank since.
   */
  contactErasedAt?: Date;
}

function assertStatus(cart: Cart, to: CartStatus): void {
  if (!canTransition(cart.status, to))
    throw staleCart(`cart ${cart.id} is ${cart.status}: cannot become ${to}`, {
      cart_id: cart.id,
      status: cart.status,
    });
}

/** The partner (or the sandbox) holds the tickets. */
export function hold(
  cart: Cart,
  booking: { inventoryToken: string; tickets: HeldTicket[]; expiresAt: Date; fees: FeeSchedule },
  now: Date,
): Cart {
  assertStatus(cart, 'HELD');
  return {
    ...cart,
    status: 'HELD',
    inventoryToken: booking.inventoryToken,
    tickets: booking.tickets,
    heldAt: now,
    expiresAt: booking.expiresAt,
    fees: booking.fees,
    bookingUnknown: false,
    updatedAt: now,
  };
}

/** The reserve failed for good. `bookingUnknown`: the partner may hold something nonetheless. */
export function fail(
  cart: Cart,
  failure: { code: string; message: string },
  now: Date,
  options: { bookingUnknown?: boolean } = {},
): Cart {
  assertStatus(cart, 'FAILED');
  const unknown = options.bookingUnknown ?? false;
  const held = cart.inventoryToken !== undefined;
  return {
    ...cart,
    status: 'FAILED',
    failure,
    bookingUnknown: cart.bookingUnknown || unknown,
    releaseOwed: held || unknown || cart.bookingUnknown,
    voidOwed: cart.payment?.status === 'AUTHORIZED',
    payment: cart.payment,
    updatedAt: now,
    endedAt: now,
  };
}

/** The payment was authorised for the unpaid total. */
export function pay(cart: Cart, payment: CartPayment, billing: CartBilling, now: Date): Cart {
  assertStatus(cart, 'PAID');
  return { ...cart, status: 'PAID', payment, billing, updatedAt: now };
}

/** The order id, number and token are fixed before the partner is asked to confirm. */
export function prepareCommit(cart: Cart, order: CartOrderRef, now: Date): Cart {
  if (cart.status !== 'PAID')
    throw staleCart(`cart ${cart.id} is ${cart.status}: only a paid cart can be committed`, {
      cart_id: cart.id,
      status: cart.status,
    });
  if (cart.order) return cart;
  return { ...cart, order, updatedAt: now };
}

/**
 * The payment of a committing cart was captured: recorded before the order is written, so a cart
 * that ends without its order never voids a captured payment (a capture cannot be voided; the
 * reconciler reports it for a refund). `undefined` when there is nothing to record.
 */
export function captured(cart: Cart, now: Date): Cart | undefined {
  if (cart.status !== 'PAID' || cart.payment?.status !== 'AUTHORIZED') return undefined;
  return {
    ...cart,
    payment: { ...cart.payment, status: 'CAPTURED', capturedAt: now },
    updatedAt: now,
  };
}

/** The partner confirmed the order and the payment was captured. */
export function commit(
  cart: Cart,
  confirmed: { inventoryOrderId: string; confirmedAt: Date },
  now: Date,
): Cart {
  assertStatus(cart, 'COMMITTED');
  if (!cart.order) throw staleCart(`cart ${cart.id} has no order to commit`);
  return {
    ...cart,
    status: 'COMMITTED',
    order: { ...cart.order, ...confirmed },
    payment: cart.payment && { ...cart.payment, status: 'CAPTURED' },
    updatedAt: now,
    endedAt: now,
  };
}

/** The client (or the platform) gives the cart up. Releasing a released cart changes nothing. */
export function release(cart: Cart, reason: ReleaseReason, now: Date): Cart {
  if (cart.status === 'RELEASED' || cart.status === 'EXPIRED' || cart.status === 'FAILED')
    return cart;
  assertStatus(cart, 'RELEASED');
  return {
    ...cart,
    status: 'RELEASED',
    releaseReason: reason,
    releaseOwed:
      cart.inventoryToken !== undefined || cart.bookingUnknown || cart.status === 'PENDING',
    bookingUnknown: cart.bookingUnknown || cart.status === 'PENDING',
    voidOwed: cart.payment?.status === 'AUTHORIZED',
    updatedAt: now,
    endedAt: now,
  };
}

/** The hold ended before commit. */
export function expire(cart: Cart, now: Date): Cart {
  assertStatus(cart, 'EXPIRED');
  return {
    ...cart,
    status: 'EXPIRED',
    releaseOwed: true,
    voidOwed: cart.payment?.status === 'AUTHORIZED',
    updatedAt: now,
    endedAt: now,
  };
}

/** A cart whose hold time has passed (HELD or PAID only). */
export const isExpired = (cart: Cart, now: Date): boolean =>
  (cart.status === 'HELD' || cart.status === 'PAID') &&
  cart.expiresAt !== undefined &&
  cart.expiresAt.getTime() <= now.getTime();

/** Seconds of hold left (0 when none). */
export const holdSecondsLeft = (cart: Cart, now: Date): number =>
  cart.expiresAt && (cart.status === 'HELD' || cart.status === 'PAID')
    ? Math.max(0, Math.floor((cart.expiresAt.getTime() - now.getTime()) / 1000))
    : 0;

/**
 * The cart without its buyer's personal data (the fan was deleted, docs/security.md "Personal
 * data"): no fan id, no claimed account id, and a billing without names, e-mail, partner account
 * id or reference (the buyer's own text). What was sold, for how much and the payment's masked card
 * stay. `undefined` when there is nothing left to erase, so a repeat writes nothing.
 */
export function withoutPersonalData(cart: Cart, at: Date): Cart | undefined {
  const billing = cart.billing;
  const blankBilling =
    !billing ||
    (billing.firstName === '' &&
      billing.lastName === '' &&
      billing.email === '' &&
      billing.thirdPartyAccountId === '' &&
      billing.reference === '');
  if (cart.fanId === undefined && cart.buyerAccountId === undefined && blankBilling)
    return undefined;
  const { fanId: _fanId, buyerAccountId: _account, ...rest } = cart;
  return {
    ...rest,
    ...(billing
      ? {
          billing: {
            ...billing,
            firstName: '',
            lastName: '',
            email: '',
            thirdPartyAccountId: '',
            reference: '',
          },
        }
      : {}),
    contactErasedAt: at,
  };
}
