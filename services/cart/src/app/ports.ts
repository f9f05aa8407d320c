import type { ResaleDetails } from '../domain/booking.js';
import type { BookingLine, Cart, HeldTicket, SealedSecret } from '../domain/cart.js';
import type { CancelReason, Order, OrderRefund } from '../domain/order.js';
import type { SellableArea } from '../domain/sellable-event.js';

/** A stored record with the store's version (compare-and-set). */
export type Stored<T> = T & { version: number };

/**
 * Carts. `update` is compare-and-set on `expectedVersion` (kind `aborted` when another writer won);
 * `events` are the topic records written atomically with the state (outbox).
 */
export interface CartRepository {
  get(id: string): Promise<Stored<Cart> | undefined>;
  insert(cart: Cart): Promise<Stored<Cart>>;
  /**
   * Read-modify-write in one call (the store's compare-and-set at the version it read): `change`
   * answers the next state or `undefined` to write nothing; `events` are written with the state.
   * Resolves the cart as written (or as found), `undefined` when there is none. Kind `aborted`
   * when other writers kept winning.
   */
  modify(
    id: string,
    change: (cart: Stored<Cart>) => Cart | undefined,
    events?: (before: Cart, after: Cart) => CartEvent[],
  ): Promise<Stored<Cart> | undefined>;
  /** Carts whose `sweepAt` is at or before `now`, soonest first. */
  findDue(now: Date, limit: number): Promise<Stored<Cart>[]>;
  /**
   * Carts that ended (`endedAt`) before `cutoff` and that the sweeper has nothing left to do for
   * (no `sweepAt`: no release or void owed), longest ended first.
   */
  findEndedBefore(cutoff: Date, limit: number): Promise<Stored<Cart>[]>;
  /** Carts of the fan (`fanId`), any app and status, at most `limit`. */
  listByFan(fanId: string, limit: number): Promise<Stored<Cart>[]>;
  /** Deletes the cart at `version`; `false` when it is gone or was written since. */
  deleteAt(id: string, version: number): Promise<boolean>;
  /**
   * The carts of the app for the event that hold tickets or may still hold them (PENDING, HELD,
   * PAID), at most `limit`: what counts against the app's held-ticket quota.
   */
  findLive(appId: string, eventId: string, limit: number): Promise<Stored<Cart>[]>;
}

/** A topic record of a cart's state change (the adapter encodes it and keys it). */
export type CartEvent =
  | { type: 'booking-held'; cart: Cart }
  | { type: 'booking-released'; cart: Cart }
  | { type: 'booking-expired'; cart: Cart }
  /** The cart's payment was captured by `provider` (the processor's name). */
  | { type: 'payment-captured'; cart: Cart; provider: string };

/** Orders. Writes carry their topic record (`order-confirmed`, `order-cancelled`, `order-printed`). */
export interface OrderRepository {
  get(id: string): Promise<Stored<Order> | undefined>;
  /** Inserts with `order-confirmed`; kind `already_exists` when the order (or its number) exists. */
  insertConfirmed(order: Order): Promise<Stored<Order>>;
  /**
   * Writes a cancellation with `order-cancelled`: of the whole order, or of `ticketIds` (a partial
   * cancel, the order's latest `ticketCancels` entry).
   */
  updateCancelled(
    order: Order,
    expectedVersion: number,
    ticketIds?: readonly string[],
  ): Promise<Stored<Order>>;
  /**
   * Writes a change of the order's money (a refund owed, paid or refused; a dispute), with one
   * `payment-refunded` per refund in `refunded`.
   */
  updatePayment(
    order: Order,
    expectedVersion: number,
    refunded?: readonly OrderRefund[],
  ): Promise<Stored<Order>>;
  /** The order paid with the processor's payment `paymentId`. */
  findByPaymentId(paymentId: string): Promise<Stored<Order> | undefined>;
  /** Orders whose owed refund is due at `now` (`refundDueAt`), soonest first. */
  findRefundDue(now: Date, limit: number): Promise<Stored<Order>[]>;
  /** Orders of the fan (`fanId`), any app and status, at most `limit`. */
  listByFan(fanId: string, limit: number): Promise<Stored<Order>[]>;
  /** Writes the order with its contact erased (no topic record: nothing about it is news). */
  updateContactErased(order: Order, expectedVersion: number): Promise<Stored<Order>>;
  /**
   * Writes a partial cancel recorded, retried or given up before the partner took it (no topic
   * record: no ticket changed).
   */
  updateTicketCancelPending(order: Order, expectedVersion: number): Promise<Stored<Order>>;
  /** Orders whose pending partial cancel is due at `now` (`ticketCancelDueAt`), soonest first. */
  findTicketCancelDue(now: Date, limit: number): Promise<Stored<Order>[]>;
  /** Writes a print action with `order-printed`. */
  updatePrinted(order: Order, expectedVersion: number): Promise<Stored<Order>>;
  /** Confirmed, non-sandbox orders of one buyer (a fan, or a third-party account) of an event. */
  listByBuyer(buyer: {
    appId: string;
    eventId: string;
    fanId?: string;
    thirdPartyAccountId?: string;
    limit: number;
  }): Promise<Order[]>;
  /** Orders of an owner (app, and fan when given), newest first. */
  listByOwner(owner: {
    appId: string;
    fanId?: string;
    sandbox: boolean;
    eventId?: string;
    status?: Order['status'];
    limit: number;
  }): Promise<Order[]>;
}

/** Affiliate tracking hits. */
export interface TrackingHit {
  id: string;
  appId: string;
  eventId: string;
  sharedId: string;
  subId1: string;
  subId2: string;
  subId3: string;
  sandbox: boolean;
  at: Date;
}

export interface TrackingRepository {
  insert(hit: TrackingHit): Promise<void>;
  /** The newest hit of the app for the event at or after `since`. */
  latest(appId: string, eventId: string, since: Date): Promise<TrackingHit | undefined>;
}

/** What the partner answers for a held booking. */
export interface PartnerBooking {
  inventoryToken: string;
  expiresAt: Date;
  tickets: Omit<HeldTicket, 'generalAdmission' | 'areaDescription'>[];
}

/** A seat as the partner's live availability lists it. */
export interface AvailableSeat {
  id: string;
  row: string;
  number: string;
}

export interface LiveArea extends SellableArea {
  seats: AvailableSeat[];
}

/**
 * The partner side, through 3p-connector's ConnectorService. Rejections carry a `kind`
 * (`resource_exhausted` sold out, `failed_precondition`, `not_found`, `unavailable`,
 * `deadline_exceeded`, ...) and the connector's details.
 */
export interface PartnerConnector {
  /** Idempotent per `cartId`: the live booking of the cart when there is one. */
  createBooking(input: {
    eventId: string;
    cartId: string;
    lines: (Omit<BookingLine, 'accessCodeSealed'> & { accessCode: string })[];
    language: string;
  }): Promise<PartnerBooking>;
  /** Idempotent: a booking already released or expired counts as done. */
  releaseBooking(eventId: string, inventoryToken: string): Promise<void>;
  /** Idempotent per `orderId`. */
  createOrder(input: {
    eventId: string;
    inventoryToken: string;
    orderId: string;
    ticketsAmountMinor: number;
    currency: string;
    ticketsQuantity: number;
    paymentMethodType: string;
    deliveryMethodType: string;
  }): Promise<{ inventoryOrderId: string }>;
  /** Live availability; `levelId` + `sectionId` for one area; seats when asked. */
  availability(input: {
    eventId: string;
    levelId?: string;
    sectionId?: string;
    withSeats: boolean;
  }): Promise<{ areas: LiveArea[]; observedAt: Date }>;
  /** PRINT or ROLLBACK_PRINT at the partner. */
  printOrder(input: {
    eventId: string;
    inventoryOrderId: string;
    orderId: string;
    action: 'PRINT' | 'ROLLBACK_PRINT';
  }): Promise<void>;
  /**
   * Cancels some tickets of a partner order now (action CANCEL with `tickets`); never queued.
   * Rejects with the connector's error: `details.partnerErrorId` 310 when the partner cancels whole
   * orders only, kind `unavailable` when it could not be asked.
   */
  cancelTickets(input: {
    eventId: string;
    inventoryOrderId: string;
    orderId: string;
    ticketIds: readonly string[];
  }): Promise<void>;
}

/** A payment authorisation: the amount is held on the card until captured or voided. */
export interface Authorization {
  status: 'authorized';
  paymentId: string;
  issuer: string;
  /** Last four digits. */
  last4: string;
}

/**
 * The card issuer wants the cardholder to authenticate (3-D Secure) before it authorises. Nothing
 * is held yet. The client finishes it in the browser with the processor's SDK (Stripe.js
 * `handleNextAction(clientSecret)`) and then sends the same payment again: `authorize` with the
 * same reference and nonce finds the authentication done and answers `authorized` (after a failed
 * challenge, the processor asks again: `requires_action` once more).
 */
export interface PaymentActionRequired {
  status: 'requires_action';
  /** The processor's payment (PaymentIntent) id. */
  paymentId: string;
  /** What the client SDK needs to run the action; for the cardholder's browser only, never stored. */
  clientSecret: string;
  /** The processor's kind of next action (`use_stripe_sdk`, `redirect_to_url`, ...). */
  nextActionType: string;
  /** Where to send the cardholder, for `redirect_to_url`. */
  redirectUrl?: string;
}

/** A refund of a captured payment. */
export interface PaymentRefund {
  refundId: string;
  /** `succeeded`, or `pending` while the processor has not settled it yet. */
  status: 'succeeded' | 'pending';
}

/**
 * The payment processor. `authorize` rejects a declined payment with kind `failed_precondition`
 * and a partner cart code (20122, 20129, 20152), a nonce the processor cannot use with kind
 * `invalid_argument` (10002), a processor that does not answer in time or is in trouble with kind
 * `unavailable` (20001; the payment is then treated as not taken). Calls are idempotent: a repeated
 * `authorize` with the same reference and nonce answers the same payment, `capture`, `void` and
 * `refund` (per idempotency key) never move money twice, and a void of a voided payment succeeds.
 */
export interface PaymentProcessor {
  /** Which processor this is (`sandbox` for the test processor, `stripe`). */
  readonly name: string;
  authorize(input: {
    /** Idempotency reference (cart id and attempt). */
    reference: string;
    /** The cart paid for: `voidAbandoned` finds the processor's payments of the cart by it. */
    cartId: string;
    amountMinor: number;
    currency: string;
    /**
     * The payment method: a sandbox nonce, or the Stripe PaymentMethod id (`pm_...`) made by
     * Stripe.js in the cardholder's browser. Never stored or logged.
     */
    nonce: string;
    /** A secret: never stored or logged. Not sent to Stripe (Stripe.js collected the card). */
    cin: string;
    expireMonth: number;
    expireYear: number;
  }): Promise<Authorization | PaymentActionRequired>;
  /** Captures the authorised amount (or less); idempotent per payment id. */
  capture(paymentId: string, amountMinor: number, currency: string): Promise<void>;
  /** Releases an authorisation that will not be captured; idempotent. */
  void(paymentId: string): Promise<void>;
  /**
   * Voids every authorisation the processor holds for the cart (authorised, or waiting for 3-D
   * Secure or a card) that was neither captured nor voided: what a crash between the
   * authorisation and the cart's write leaves behind. Captured payments are left alone. Resolves
   * how many it voided; idempotent.
   */
  voidAbandoned(cartId: string): Promise<number>;
  /**
   * Refunds a captured payment, all of it or `amountMinor`; one refund per `idempotencyKey` (the
   * same key answers the same refund).
   */
  refund(
    paymentId: string,
    amountMinor: number | undefined,
    idempotencyKey: string,
  ): Promise<PaymentRefund>;
}

/**
 * The carts whose payment step reached the processor (one record per cart), due for a check once
 * the cart has ended: then any authorisation the processor still holds for it is voided.
 */
export interface PaymentAttemptRepository {
  /** Records an attempt of the cart (once; a second is a no-op), due at `checkAt`. */
  record(cartId: string, checkAt: Date): Promise<void>;
  /** Attempts due at `now`, soonest first. */
  findDue(now: Date, limit: number): Promise<Stored<PaymentAttempt>[]>;
  /** Moves the check to `checkAt` (compare-and-set; `false` when another writer won). */
  postpone(attempt: Stored<PaymentAttempt>, checkAt: Date): Promise<boolean>;
  /** Forgets the attempt (compare-and-set; `false` when another writer won). */
  remove(attempt: Stored<PaymentAttempt>): Promise<boolean>;
}

/** The ids of the Stripe webhook events cart handled (idempotency of the webhook). */
export interface StripeEventRepository {
  has(eventId: string): Promise<boolean>;
  /** Records a handled event; a second record of the same id is a no-op. */
  record(eventId: string, type: string, at: Date): Promise<void>;
}

export interface PaymentAttempt {
  /** The cart id. */
  id: string;
  checkAt: Date;
}

/**
 * The sandbox inventory of pre-production carts: capacity per area, holds and sales tracked with
 * compare-and-set so it never oversells either.
 */
export interface SandboxInventory {
  /** Holds `lines` for the cart, all or nothing; kind `resource_exhausted` when they do not fit. */
  hold(input: {
    eventId: string;
    cartId: string;
    lines: { areaIds: string[]; priceLevelId: string; priceTypeId: string; quantity: number }[];
    areas: SellableArea[];
    expiresAt: Date;
    now: Date;
  }): Promise<Omit<HeldTicket, 'faceValueMinor' | 'areaDescription'>[]>;
  /** Frees the cart's holds (idempotent). */
  release(eventId: string, cartId: string): Promise<void>;
  /** Turns the cart's holds into sales (idempotent). */
  sell(eventId: string, cartId: string): Promise<void>;
}

/** Encrypts secrets kept at rest (order tokens, access codes). */
export interface SecretBox {
  seal(plain: string): SealedSecret;
  open(sealed: SealedSecret): string;
}

export interface Ids {
  cartId(): string;
  orderId(): string;
  /** 8 random bytes for an order number. */
  orderNumberBytes(): Uint8Array;
  /** A fresh order token (32 random bytes, base64url). */
  orderToken(): string;
  trackingId(): string;
}

export interface Hasher {
  /** Hex SHA-256 of a string. */
  sha256(text: string): string;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

/** The admission a reserve presents while its event's waiting room is on. */
export interface ReserveAdmissionPass {
  eventId: string;
  appId: string;
  /** The signed admission token; absent when the request had none. */
  token?: string;
  fanId?: string;
  deviceId?: string;
}

/**
 * What stands before a partner reserve besides cart's own checks: an event's waiting room (the
 * waiting-room slice implements it). `enter` resolves at once when the event has no queue on;
 * otherwise it spends the reserve's admission or refuses it (permission_denied, code 20070).
 * A reserve that then fails without an answer the fan can act on gives the admission back.
 * `observe` tells the room what the reserve met, the measure its admission rate follows.
 */
export interface ReserveGate {
  enter(pass: ReserveAdmissionPass): Promise<{ giveBack(): Promise<void> } | undefined>;
  observe(
    eventId: string,
    outcome: { latencyMs: number; overloaded: boolean; failed: boolean },
  ): void;
}

/** No waiting room: every reserve goes on. */
export const OPEN_GATE: ReserveGate = {
  enter: async () => undefined,
  observe: () => undefined,
};

/**
 * What cart knows of sold-out price levels: once the partner answered a best-available reserve
 * "sold out" (20052), equal or larger reserves of the same price level are refused locally with
 * the same answer, without a cart or a partner call, until availability changes (a release or an
 * expiry of a hold of this cart process, a live availability read showing places) or a short TTL
 * runs out (other replicas' releases, changes at the partner). The partner stays the only judge of
 * what is held: an entry only spares it calls it would refuse.
 *
 * Price level `''` stands for "any level of the event": a reserve that named no level was refused,
 * so nothing of the event is left for that quantity. The waiting room asks
 * `isSoldOut(eventId, [])` to stop admitting fans to an event with nothing left.
 */
export interface SoldOutBook {
  /**
   * Whether a best-available reserve of `quantity` tickets (default 1) is known sold out: the
   * event at any level, or every one of `priceLevelIds` (none given: the event at any level only).
   */
  isSoldOut(eventId: string, priceLevelIds: readonly string[], quantity?: number): boolean;
  /** Whether the book holds a live entry of the event (a cheap check before reading anything). */
  hasEntries(eventId: string): boolean;
  /**
   * The partner refused a best-available reserve of `quantity` tickets of `priceLevelIds` as sold
   * out (`[]` or `['']`: of any level). A refusal of several named levels marks nothing.
   */
  markSoldOut(eventId: string, priceLevelIds: readonly string[], quantity: number): void;
  /** Places may be back: forgets the event's entries (of these levels and "any level" only, when given). */
  clear(eventId: string, priceLevelIds?: readonly string[]): void;
}

export interface Log {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export type { CancelReason };

/** A listing held for a cart, as the cart core needs it (the top picks slice holds more). */
export interface HeldResaleListing {
  listingId: string;
  ticketIds: string[];
  areaId: string;
  section: string;
  row: string;
  seats: string[];
  generalAdmission: boolean;
  priceLevelId: string;
  /** What the buyer pays per ticket. */
  unitPrice: { amountMinor: number };
  /** What the cart shows of the listing (location, notes, original value, in-hand date). */
  details?: ResaleDetails;
}

/** A resold ticket: it moves from `previousOrderId` to the buyer's order. */
export interface ResoldTicket {
  ticketId: string;
  listingId: string;
  /** The order that held the ticket before the sale: its ticket is void now. */
  previousOrderId: string;
}

/**
 * Resale listings, as the cart's reserve, commit and release ask them (the top picks slice
 * implements it). A resale line is a `tickets[].id` for which `isListingId` is true: it is held in
 * the cart service itself, never at the partner (the partner sold the ticket already, to the seller).
 */
export interface ResaleInventory {
  /**
   * Holds the listing for the cart at the price the fan was shown under the live fan session (the
   * asking price without one), until `expiresAt`. One listing per reserve. INVALID_ARGUMENT (10002)
   * for an unknown listing, several listings or a quantity other than the listing's;
   * RESOURCE_EXHAUSTED (20052) when it is not on sale.
   */
  holdListings(input: {
    cartId: string;
    appId: string;
    eventId: string;
    fanSessionId: string;
    lines: { listingId: string; quantity: number }[];
  }): Promise<{ listings: HeldResaleListing[]; expiresAt: Date }>;
  /** Puts the cart's listings back on sale (release, payment failure, expiry); idempotent. */
  releaseListings(cartId: string, listingIds: readonly string[]): Promise<void>;
  /**
   * Sells the cart's listings to the buyer's order: the listings become SOLD and their tickets
   * change owner. Idempotent for the same order id. RESOURCE_EXHAUSTED (before anything is sold)
   * when the cart lost a listing.
   */
  sellListings(input: {
    cartId: string;
    orderId: string;
    buyer: { appId: string; fanId: string; thirdPartyAccountId: string };
    listingIds: readonly string[];
  }): Promise<ResoldTicket[]>;
  /**
   * The fan was deleted: the open listings of the fan's orders `orderIds` are withdrawn, their
   * seller notes and the fan's ticket ownership records blanked. Idempotent.
   */
  eraseFan(
    fanId: string,
    orderIds: readonly string[],
  ): Promise<{ listings: number; tickets: number }>;
}
