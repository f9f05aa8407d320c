import type { Agreement } from '../domain/agreements.js';
import type { Cart, CartChannel } from '../domain/cart.js';
import type { MaintenanceWindow } from '../domain/maintenance.js';
import type { Order } from '../domain/order.js';
import type { FeeSchedule, PricedCart } from '../domain/pricing.js';
import type { EventReader, SellableArea, SellableEvent } from '../domain/sellable-event.js';
import type {
  AvailableSeat,
  CartRepository,
  Clock,
  Hasher,
  Ids,
  Log,
  OrderRepository,
  PartnerConnector,
  PaymentAttemptRepository,
  PaymentProcessor,
  ResaleInventory,
  StripeEventRepository,
  SandboxInventory,
  SecretBox,
  SoldOutBook,
  TrackingRepository,
} from './ports.js';

/**
 * What the cart's use cases take and answer, independent of any API shape: the partner cart gRPC
 * port, the commerce slice and the top picks slice map their wire shapes to these.
 */

/** Who is calling: a cart is visible only to the app (and fan, and prefix) that created it. */
export interface CartOwner {
  /** The developer app whose API key is calling. */
  appId: string;
  /** Pre-production prefix (`/partners-preprod/v1`): sandbox carts only. */
  sandbox: boolean;
  /** When given, carts of the other channel are not found. */
  channel?: CartChannel;
  /** The signed-in fan (commerce carts); when given, only that fan's carts are found. */
  fanId?: string;
  /**
   * Tickets the app may hold at once for one event (its quota, as the edge read it with the key);
   * absent: the deployment's default (`heldTicketsPerEvent` of the settings).
   */
  heldTicketsPerEvent?: number;
}

/** Tickets of one price type, as a caller asks for them. */
export interface ReserveTicketInput {
  priceTypeId: string;
  quantity: number;
  /** Best available within this price level. */
  priceLevelId?: string;
  /** The password of a protected price type (a secret: encrypted at rest, never logged). */
  accessCode?: string;
}

/** One reserve as a caller asks for it (partner cart `reserve` or one `additional_reserves[]`). */
export interface ReserveRequestInput {
  tickets: ReserveTicketInput[];
  areaIds?: string[];
  section?: string;
  row?: string;
  beginSeat?: number;
  endSeat?: number;
  /** Default `true`. */
  acceptBestAvailable?: boolean;
}

export interface ReserveInput {
  owner: CartOwner & { channel: CartChannel };
  eventId: string;
  requests: ReserveRequestInput[];
  /** `en-us` when absent. */
  language?: string;
  /** Answer PENDING at once and complete in the background. */
  forceAsync?: boolean;
  /** `X-PLATFORM-SESSION-SID` of a resale reserve: the fan session whose resale price it keeps. */
  fanSessionId?: string;
  /**
   * The Idempotency-Key claimed by the cart's insert (`Idempotency.runClaimed`): the cart's id is
   * derived from `id`, and the request's digest is kept on it.
   */
  claim?: { id: string; requestHash: string };
  /**
   * How long the request already waited for its reserve place (ms): the PENDING answer's wait
   * (`reserveWaitMs`) counts from the request's arrival, that line included.
   */
  waitedMs?: number;
}

/** Billing as a caller gives it. The nonce and the CVV are secrets: used, never stored or logged. */
export interface BillingInput {
  firstName: string;
  lastName: string;
  email: string;
  type: string;
  reference: string;
  countryCode: string;
  amountMinor: number;
  currency: string;
  cardNonce: string;
  cin: string;
  expireMonth: number;
  expireYear: number;
  /** The partner's user id; required for secure-entry events. */
  thirdPartyAccountId: string;
}

/** A cart as callers read it: the record, its prices, its agreements, and its order when committed. */
export interface CartView {
  cart: Cart;
  priced: PricedCart;
  /** Seconds of hold left. */
  holdSeconds: number;
  agreements: Agreement[];
  order?: Order;
  /** For a pending cart: seconds to wait before polling. 0 otherwise. */
  pollAfterSeconds: number;
}

export interface CommitResult {
  view: CartView;
  order: Order;
  /** The bearer token of the secure-entry order read; the same on every retried commit. */
  orderToken: string;
}

/** Offers of an event: one per price level and price type with a current price. */
export interface Offer {
  priceLevelId: string;
  priceTypeId: string;
  name: string;
  faceValueMinor: number;
  serviceFeeMinor: number;
  serviceFeeTaxMinor: number;
  processingFeeMinor: number;
  processingFeeTaxMinor: number;
  protected: boolean;
}

export interface EventAvailability {
  event: SellableEvent;
  onSale: boolean;
  /**
   * Areas; a live answer lists the available seats of reserved areas (bounded: see
   * `listedSeats`), the projection none.
   */
  areas: (SellableArea & { seats?: AvailableSeat[] })[];
  totalAvailable: number;
  observedAt: Date | undefined;
  offers: Offer[];
  /** The areas come from the projection (the partner did not answer live). */
  stale: boolean;
}

export interface CartSettings {
  /** How long a reserve waits for the partner before answering PENDING. */
  reserveWaitMs: number;
  /**
   * Reserves this process runs at once (waiting for the partner, or finishing in the background);
   * one more is refused `unavailable` `overloaded` at once, before it costs anything. Default 64.
   */
  maxReservesInFlight?: number;
  /**
   * ReserveCart requests that may wait in line for a place when every one is taken; one more is
   * refused `overloaded` at once. Default 2 048.
   */
  reserveQueueMax?: number;
  /** How long a ReserveCart request waits in line for a place at most (0: no line). Default 1 500. */
  reserveQueueWaitMs?: number;
  /**
   * TTL of the sold-out book's entries: how long a best-available reserve the partner refused as
   * sold out makes equal or larger ones of its price level be refused at once (0: never). Default
   * 5 000.
   */
  soldOutHintMs?: number;
  /** `poll_after_seconds` of a pending cart. */
  pollAfterSeconds: number;
  /** CreateBooking attempts of one reserve (transient failures), then FAILED 20001. */
  reserveAttempts: number;
  /** Delay before the second attempt (doubles). */
  reserveRetryMs: number;
  /** A pending cart whose attempt started longer ago is resumed by the sweeper. */
  pendingStaleMs: number;
  /** Ended carts still owing a release or a void are retried after this long. */
  owedRetryMs: number;
  /**
   * How long a partial cancel waits for the partner's answer before the sweeper asks again (the
   * first pause; it doubles while the partner does not answer). Longer than the connector's
   * deadline, so a live ask is not doubled. Default 15 000.
   */
  ticketCancelRetryMs?: number;
  /** A paid cart whose commit started this long ago is no longer left to that commit. */
  commitGraceMs: number;
  /**
   * An ended cart that owes nothing is deleted this long after it ended (its order, if any, stays
   * in the orders). Absent: ended carts are kept.
   */
  endedRetentionMs?: number;
  /** Hold time of sandbox carts. */
  sandboxHoldSeconds: number;
  /**
   * Tickets one app may hold at once for one event when its caller names no quota of the app's
   * own (pending, held and paid carts; sandbox carts do not count). Default 20; 0 is no limit.
   */
  heldTicketsPerEvent?: number;
  /**
   * The longest hold of a cart reserved at the partner (or the sandbox): it ends at the booking's
   * own end or this many seconds after the hold, whichever comes first; then the sweeper expires
   * it and gives the booking back. 0 or absent: the booking's own end.
   */
  maxHoldSeconds?: number;
  fees: FeeSchedule;
  maintenance: MaintenanceWindow | undefined;
  /** A tracking hit is attributed to carts reserved within this window after it. */
  trackingWindowMs: number;
  termsUrl: string;
  secureEntryAgreementUrl: string;
  /** Redemption URL of an order: this base with the order number appended. */
  redemptionBaseUrl: string;
}

export interface CartAppDeps {
  carts: CartRepository;
  orders: OrderRepository;
  tracking: TrackingRepository;
  /** Carts whose payment step reached the processor (abandoned authorisations are voided). */
  attempts: PaymentAttemptRepository;
  /** Stripe webhook events handled (their ids). */
  stripeEvents: StripeEventRepository;
  events: EventReader;
  connector: PartnerConnector;
  /** The processor of production carts. */
  processor: PaymentProcessor;
  /** The processor of sandbox carts. */
  sandboxProcessor: PaymentProcessor;
  sandbox: SandboxInventory;
  secrets: SecretBox;
  ids: Ids;
  hasher: Hasher;
  clock: Clock;
  log: Log;
  settings: CartSettings;
  /** Resale listings (the top picks slice): a reserve of listing ids is held there, never at the partner. */
  resale?: ResaleInventory;
  /**
   * What the partner answered sold out lately (see SoldOutBook). Default: this process's own, in
   * memory, entries living `settings.soldOutHintMs`. Given to share it with the waiting room.
   */
  soldOutBook?: SoldOutBook;
  /**
   * Runs work that outlives the request which started it (a reserve finishing after its 202)
   * outside that request, so it does not inherit the caller's deadline. Default: as is.
   */
  detach?: <T>(work: () => Promise<T>) => Promise<T>;
}
