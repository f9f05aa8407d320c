/**
 * The edge's port to the partner cart (cart's CartService): availability, reserve, poll, shipping,
 * payment, commit, release, affiliate tracking, and the operators' order reads and cancels.
 * Implemented by adapters/cart-client.ts over gRPC and by fakes in unit tests. Money is integer
 * minor units here, as everywhere behind the edge; the HTTP routes convert to and from the API's
 * decimal amounts with the helpers at the end of this file.
 */

export interface Money {
  /** Minor units of `currency` (2550 USD = 25.50). */
  amountMinor: number;
  currency: string;
}

/** Who asks: the app behind the API key, and whether it came through the pre-production prefix. */
export interface CartCaller {
  appId: string;
  sandbox: boolean;
  /** The app's held-ticket quota from its key check; absent = cart's default. */
  heldTicketsPerEvent?: number;
}

export type CartStatus =
  'UNSPECIFIED' | 'PENDING' | 'HELD' | 'PAID' | 'COMMITTED' | 'RELEASED' | 'EXPIRED' | 'FAILED';
export type InventoryType = 'PRIMARY' | 'RESALE';
export type OrderStatus = 'UNSPECIFIED' | 'CONFIRMED' | 'CANCELLED';
export type CancelReason = 'REQUESTED' | 'EVENT_CANCELLED' | 'RECONCILIATION' | 'PAYMENT_REVERSED';
/** A print action recorded at the partner: printing, or its rollback after a printing problem. */
export type PrintAction = 'PRINT' | 'ROLLBACK_PRINT';

export interface Charge {
  /** `face_value`, `service`, `facility`, `distance`, `tax`... */
  type: string;
  /** Per unit. */
  price?: Money;
  quantity: number;
  /** Tax on top of `price`, per unit (the cart charges both). */
  tax?: Money;
  /** `per ticket` or `per order`. */
  feeType: string;
}

export interface LineTotals {
  merchandise?: Money;
  fee?: Money;
  tax?: Money;
  grand?: Money;
}

export interface CartTicket {
  /** Ticket type id (leading zeros kept) or resale listing id. */
  id: string;
  description: string;
  quantity: number;
  inventoryType: InventoryType;
  charges: Charge[];
  priceLevelId: string;
}

export interface CartTicketLine {
  /** Line number within the cart, from 1. */
  id: number;
  areaId: string;
  areaDescription: string;
  section: string;
  row: string;
  startSeat: string;
  endSeat: string;
  generalAdmission: boolean;
  quantity: number;
  tickets: CartTicket[];
  totals: LineTotals;
  seats: string[];
  inventoryType: InventoryType;
  /** Resale lines: the listing's details; absent for primary inventory. */
  resale?: {
    location: string;
    sellerNotes: string;
    /** Average per ticket of the original sale (face value and per-ticket fees). */
    averageOriginalTotalValue?: Money;
    /** `YYYY-MM-DD`. */
    inHandDate: string;
  };
}

export interface ShippingOption {
  id: string;
  carrier: string;
  /** ETICKET, MAIL, AIRMAIL, WILLCALL... */
  serviceLevel: string;
  requiresAddress: boolean;
  descriptionLong: string;
  descriptionShort: string;
  eta: string;
  totals: LineTotals;
  rank: number;
}

export interface CartPayment {
  id: string;
  paymentId: string;
  type: string;
  amount?: Money;
  expireMonth: number;
  expireYear: number;
  issuer: string;
  /** Last four digits only. */
  maskedNumber: string;
}

export interface Agreement {
  name: string;
  locale: string;
  text: string;
  /** `boolean` or `acknowledgement`. */
  type: string;
  agreementUrl: string;
}

export interface CartOrder {
  orderId: string;
  orderNumber: string;
  grandTotal?: Money;
  redemptionUrl: string;
  status: OrderStatus;
  confirmedAt?: Date;
  /** Printing recorded at the partner (and not rolled back). */
  printed: boolean;
  /** The money of the order: absent for orders confirmed before the order carried it. */
  payment?: OrderPayment;
  /** A cancel of some tickets the partner has not answered yet; cart asks it again. */
  pendingTicketCancel?: PendingTicketCancel;
}

/** A partial cancel recorded on an order and not answered by the partner yet. */
export interface PendingTicketCancel {
  ticketIds: string[];
  requestedAt?: Date;
  /** Asks of the partner without an answer. */
  attempts: number;
  lastError: string;
  nextAttemptAt?: Date;
}

/** One refund of an order's payment. */
export interface OrderRefund {
  refundId: string;
  amount?: Money;
  /** `succeeded`, or `pending` until the processor settled it. */
  status: string;
  /** `cancel` (the order's cancel asked for it) or `processor` (made at the processor). */
  source: string;
  /** The tickets it refunds; empty for the whole order. */
  ticketIds: string[];
  refundedAt?: Date;
}

/** What the processor holds of an order's payment. */
export interface OrderPayment {
  /** `stripe`, or `sandbox` (no money moves). */
  provider: string;
  paymentId: string;
  authorized?: Money;
  captured?: Money;
  refunded?: Money;
  refunds: OrderRefund[];
  /** A cancel owes a refund the processor has not taken yet (retried). */
  refundPending: boolean;
  /** The cardholder disputed the payment at the card issuer. */
  disputed: boolean;
  /** Refunds owed by a cancel that the processor refused for good: an operator settles each. */
  refusedRefunds: { key: string; reason: string; refusedAt?: Date }[];
}

export interface CartTotals {
  merchandise?: Money;
  fee?: Money;
  tax?: Money;
  delivery?: Money;
  upsell?: Money;
  grand?: Money;
  unpaid?: Money;
}

export interface CartRecord {
  id: string;
  eventId: string;
  status: CartStatus;
  /** Seconds of hold left when the cart service answered. */
  holdTimeSeconds: number;
  expiresAt?: Date;
  language: string;
  ticketItems: CartTicketLine[];
  delivery?: ShippingOption;
  /** The order processing fee (once per cart), and the tax on top of it. */
  processingFee?: Money;
  processingFeeTax?: Money;
  payments: CartPayment[];
  agreements: Agreement[];
  totals: CartTotals;
  currency: string;
  sandbox: boolean;
  order?: CartOrder;
  /** Status FAILED: the partner cart error code and message of the failed reserve. */
  failureCode: string;
  failureMessage: string;
  secureEntryEnabled: boolean;
  createdAt?: Date;
}

/** A cart as read or reserved; a PENDING one says when to poll again. */
export interface CartAnswer {
  cart: CartRecord;
  /** Seconds before the next poll of a pending cart; 0 when the service gave none. */
  pollAfterSeconds: number;
}

export interface TicketRequest {
  /** Ticket type id (leading zeros kept) or resale listing id. */
  id: string;
  quantity: number;
  /** Price level id; empty = any. */
  priceId: string;
  /** Variable-priced accounts only. */
  amount?: Money;
}

export interface ReserveRequest {
  tickets: TicketRequest[];
  areaIds: string[];
  section: string;
  row: string;
  /** 0 = not given. */
  beginSeat: number;
  endSeat: number;
  acceptBestAvailable: boolean;
}

export interface ReserveInput {
  eventId: string;
  /** `reserve` followed by `additional_reserves[]`. */
  reserves: ReserveRequest[];
  /** `X-PLATFORM-SESSION-SID`; empty = none. */
  fanSessionId: string;
  /** `Idempotency-Key`; empty = none. */
  idempotencyKey: string;
  /** `Prefer: respond-async`. */
  forceAsync: boolean;
  /** Empty = the service's default (`en-us`). */
  language: string;
  /**
   * `X-Admission-Token`, `X-Fan-Id`, `X-Device-Id`: the waiting room's admission and the fan or
   * device it was given to, required while the event's queue is on.
   */
  admission?: { token: string; fanId?: string; deviceId?: string };
}

export interface Billing {
  firstName: string;
  lastName: string;
  homePhone: string;
  type: string;
  reference: string;
  address?: {
    line1: string;
    line2: string;
    unit: string;
    city: string;
    countryCode: string;
    countryId: string;
    region: string;
    postalCode: string;
  };
  amount: Money;
  /** The payment nonce. A secret: never logged, never kept by the edge. */
  cardNonce: string;
  /** A secret: never logged, never kept by the edge. */
  cin: string;
  expireMonth: number;
  expireYear: number;
  emailAddress: string;
  thirdPartyAccountId: string;
}

export interface CommittedCart {
  cart: CartRecord;
  order: CartOrder;
  /** Bearer credential of the secure-entry order read; given once. Never logged. */
  orderToken: string;
}

export interface AreaAvailability {
  areaId: string;
  levelId: string;
  sectionId: string;
  priceLevelId: string;
  generalAdmission: boolean;
  available: number;
  unavailable: number;
  availableSeats: { id: string; row: string; number: string }[];
}

export interface TicketOffer {
  ticketTypeId: string;
  priceLevelId: string;
  name: string;
  faceValue?: Money;
  charges: Charge[];
  protected: boolean;
}

export interface EventAvailability {
  eventId: string;
  secureEntryEnabled: boolean;
  currency: string;
  /** 0 = no limit given. */
  ticketLimit: number;
  onSale: boolean;
  areas: AreaAvailability[];
  totalAvailable: number;
  offers: TicketOffer[];
  observedAt?: Date;
  onsaleAt?: Date;
  offsaleAt?: Date;
}

export interface TrackingHit {
  eventId: string;
  sharedId: string;
  subId1: string;
  subId2: string;
  subId3: string;
}

export interface OrderTicketRecord {
  ticketId: string;
  seat: string;
  areaId: string;
  section: string;
  row: string;
  priceLevelId: string;
  priceTypeId: string;
  unitPrice?: Money;
  inventoryType: InventoryType;
  /** When a partial cancel cancelled this ticket; absent while it is valid. */
  cancelledAt?: Date;
}

export interface OrderRecord {
  order: CartOrder;
  eventId: string;
  cartId: string;
  tickets: OrderTicketRecord[];
}

export interface PartnerCart {
  /**
   * Throws the back end's "too many calls in flight" refusal (kind `unavailable`, reason
   * `overloaded`, with `retryAfterMs`) when a call would be refused now; nothing otherwise. Lets a
   * route refuse before any work of its own (429 with Retry-After). Absent: no bound to check.
   */
  assertRoom?(): void;
  getEventAvailability(caller: CartCaller, eventId: string): Promise<EventAvailability>;
  /** RESOURCE_EXHAUSTED-like errors carry the partner cart code (see the README's table). */
  reserveCart(caller: CartCaller, input: ReserveInput): Promise<CartAnswer>;
  /** Kind `not_found` for an unknown cart, another app's, or another event's. */
  getCart(caller: CartCaller, eventId: string, cartId: string): Promise<CartAnswer>;
  getShippingOptions(
    caller: CartCaller,
    eventId: string,
    cartId: string,
    region: string,
  ): Promise<ShippingOption[]>;
  selectShipping(
    caller: CartCaller,
    eventId: string,
    cartId: string,
    shippingId: string,
  ): Promise<CartRecord>;
  addPayment(
    caller: CartCaller,
    input: { eventId: string; cartId: string; idempotencyKey: string; billing: Billing },
  ): Promise<CartRecord>;
  commitCart(
    caller: CartCaller,
    input: { eventId: string; cartId: string; idempotencyKey: string },
  ): Promise<CommittedCart>;
  /** Idempotent. */
  releaseCart(caller: CartCaller, eventId: string, cartId: string): Promise<void>;
  recordTracking(caller: CartCaller, hit: TrackingHit): Promise<void>;
  /**
   * Operators: cancels the order, or only `ticketIds` of it (a partial cancel) when some are given.
   * Kind `invalid_argument` for a ticket the order lacks, `failed_precondition` for a ticket
   * cancelled already or a partner that cancels whole orders only, `unavailable` when the partner
   * did not take a partial cancel (nothing changed).
   */
  cancelOrder(
    orderId: string,
    reason: CancelReason | undefined,
    detail: string,
    ticketIds?: readonly string[],
  ): Promise<{ order: CartOrder; partnerCancelQueued: boolean; tickets: OrderTicketRecord[] }>;
  /** Operators (no app): any order; kind `not_found` when unknown. */
  getOrder(orderId: string): Promise<OrderRecord>;
  /**
   * Operators: records printing of a confirmed order at the partner (or its rollback) and answers
   * the order as {@link getOrder} does. Kind `not_found` when unknown, `failed_precondition` when
   * the order is not confirmed or the partner refuses the action, `unavailable` when the partner
   * did not take it.
   */
  printOrder(orderId: string, action: PrintAction): Promise<OrderRecord>;
}
