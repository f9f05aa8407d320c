import { agreementsFor, type Agreement } from '../domain/agreements.js';
import {
  commit as commitCart,
  expire,
  fail,
  FINAL_STATUSES,
  hold,
  holdSecondsLeft,
  isExpired,
  pay,
  prepareCommit,
  release as releaseCart,
  type BookingLine,
  type Cart,
  type CartBilling,
  type CartChannel,
  type HeldTicket,
  type ReleaseReason,
} from '../domain/cart.js';
import {
  CartError,
  cartNotFound,
  ErrorCode,
  errorKindOf,
  invalidInput,
  overloaded,
  isTransient,
  staleCart,
} from '../domain/errors.js';
import { inMaintenance, type MaintenanceWindow } from '../domain/maintenance.js';
import { orderNumberFrom, type CancelReason, type Order } from '../domain/order.js';
import {
  applyBps,
  priceCart,
  ticketFees,
  type FeeSchedule,
  type PricedCart,
} from '../domain/pricing.js';
import {
  areaOfSection,
  bestAvailableLines,
  seatedLines,
  validateReserves,
  type Reserve,
  type ReserveTicket,
} from '../domain/reserve.js';
import {
  DEFAULT_SHIPPING,
  deliveryMethodType,
  findShippingOption,
  shippingOptions,
  type ShippingOption,
} from '../domain/shipping.js';
import {
  faceValueOf,
  isOnSale,
  isPartnerEvent,
  type EventReader,
  type SellableArea,
  type SellableEvent,
} from '../events/sellable-event.js';
import { isListingId } from '../top-picks/domain/listing.js';
import {
  heldTicketsOf,
  listingIdsOf,
  resaleLinesOf,
  type ResaleInventory,
} from '../top-picks/resale-inventory.js';
import type {
  CartEvent,
  CartRepository,
  Clock,
  Hasher,
  Ids,
  Log,
  OrderRepository,
  PartnerBooking,
  PartnerConnector,
  PaymentProcessor,
  SandboxInventory,
  SecretBox,
  Stored,
  TrackingRepository,
} from './ports.js';

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
  areas: SellableArea[];
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
   * one more is refused `unavailable` at once, before it costs anything. Default 64.
   */
  maxReservesInFlight?: number;
  /**
   * How long a best-available reserve the partner refused as sold out makes equal or larger ones
   * be refused at once (0: never). Default 2 000.
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
  /** Resale listings (top picks): a reserve of listing ids is held here, never at the partner. */
  resale?: ResaleInventory;
  /**
   * Runs work that outlives the request which started it (a reserve finishing after its 202)
   * outside that request, so it does not inherit the caller's deadline. Default: as is.
   */
  detach?: <T>(work: () => Promise<T>) => Promise<T>;
}

const EVENT_ID = /^[A-Za-z0-9]{15}$/;
const MAX_CAS_ATTEMPTS = 16;

/**
 * Runs a compare-and-set write again while another writer keeps winning (kind `aborted`), up to
 * MAX_CAS_ATTEMPTS; `beforeRetry` may read the record again (or throw) before the next try.
 */
async function retryingConflicts<T>(
  write: () => Promise<T>,
  beforeRetry?: (error: unknown) => Promise<void>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (errorKindOf(error) !== 'aborted' || attempt >= MAX_CAS_ATTEMPTS) throw error;
      await beforeRetry?.(error);
    }
  }
}
const SWEEP_BATCH = 100;
const DEFAULT_MAX_RESERVES_IN_FLIGHT = 64;
const DEFAULT_SOLD_OUT_HINT_MS = 2_000;

/** Tickets of a reserve that names no section, row or seats (best available anywhere); else undefined. */
/** What the sold-out hint looks at in a reserve. */
type SoldOutProbe = Pick<Reserve, 'section' | 'row' | 'beginSeat' | 'endSeat' | 'areaIds'> & {
  tickets: readonly { quantity: number }[];
};

function bestAvailableQuantity(requests: readonly SoldOutProbe[]): number | undefined {
  let total = 0;
  for (const r of requests) {
    if (r.section || r.row || r.beginSeat || r.endSeat || r.areaIds.length > 0) return undefined;
    total += r.tickets.reduce((sum, t) => sum + t.quantity, 0);
  }
  return total > 0 ? total : undefined;
}
const RESERVE_RETRY_AFTER_MS = 1_000;

const notTransactable = (message: string) =>
  new CartError('permission_denied', ErrorCode.NOT_TRANSACTABLE, message);
const maintenance = () =>
  new CartError(
    'unavailable',
    ErrorCode.HOST_DOWN,
    'the partner cart is in its nightly maintenance window (02:00-04:00 local time of the event); retry later',
  );
const hostDown = (message: string) => new CartError('unavailable', ErrorCode.HOST_DOWN, message);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A partner refusal as the partner cart code and kind the caller sees. */
function partnerRefusal(error: unknown): CartError {
  if (error instanceof CartError) return error;
  const message = (error as { message?: string } | null)?.message ?? 'the partner refused';
  switch (errorKindOf(error)) {
    case 'resource_exhausted':
      return new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, message);
    case 'invalid_argument':
      return new CartError('invalid_argument', ErrorCode.INVALID_INPUT, message);
    case 'permission_denied':
      return new CartError('permission_denied', ErrorCode.INVALID_INPUT, message);
    case 'not_found':
    case 'failed_precondition':
      return new CartError('failed_precondition', ErrorCode.NOT_TRANSACTABLE, message);
    default:
      return hostDown(message);
  }
}

/**
 * A print action the connector did not carry out, as the caller sees it: a partner refusal (the
 * order's print state does not allow it, the partner does not know the order) is a
 * failed_precondition of the order (90003) with the partner's message; anything else means the
 * partner could not be asked or did not answer (20001, retry).
 */
function printRefusal(error: unknown, orderId: string, action: string): CartError {
  if (error instanceof CartError) return error;
  const message = (error as { message?: string } | null)?.message ?? 'no answer';
  switch (errorKindOf(error)) {
    case 'failed_precondition':
    case 'not_found':
    case 'invalid_argument':
    case 'permission_denied':
      return staleCart(`the partner refused ${action} of order ${orderId}: ${message}`);
    default:
      return hostDown(
        `the partner did not take ${action} of order ${orderId} (${message}); nothing was recorded, retry later`,
      );
  }
}

/**
 * The carts and orders of cart, independent of any API shape: the partner cart gRPC port and the
 * commerce API both call these use cases. Every state change is a compare-and-set on the cart (or
 * order) document, written with its topic records; partner calls happen outside the write and are
 * idempotent (per cart id, per order id), so a retry, a second replica or the sweeper can repeat
 * them safely.
 */
export class CartApp {
  readonly #inflight = new Map<string, Promise<void>>();
  readonly #committing = new Set<string>();

  constructor(private readonly deps: CartAppDeps) {}

  // ------------------------------------------------------------------------------------------
  // Reads

  /** Live availability and offers of an event (the last known one when the partner is slow). */
  async availability(input: { eventId: string; sandbox: boolean }): Promise<EventAvailability> {
    const event = await this.#event(input.eventId);
    const now = this.deps.clock.now();
    let areas = event.areas;
    let observedAt = event.availabilityObservedAt;
    let stale = true;
    if (!input.sandbox && isPartnerEvent(event)) {
      try {
        const live = await this.deps.connector.availability({
          eventId: event.id,
          withSeats: false,
        });
        areas = live.areas.map(({ seats: _seats, ...area }) => area);
        observedAt = live.observedAt;
        stale = false;
      } catch (error) {
        this.deps.log.warn(
          { event_id: event.id, err: error },
          'live availability failed; answering the last known one',
        );
      }
    }
    return {
      event,
      onSale: isOnSale(event, now),
      areas,
      totalAvailable: areas.reduce((s, a) => s + a.available, 0),
      observedAt,
      offers: this.offers(event),
      stale,
    };
  }

  /** The platform's fee schedule (the commerce offers price with it too). */
  get fees(): FeeSchedule {
    return this.deps.settings.fees;
  }

  /** One offer per (price level, price type) with a current price, with the platform's fees. */
  offers(event: SellableEvent): Offer[] {
    const fees = this.deps.settings.fees;
    const processingFee = fees.processingFeeMinor;
    const processingTax = applyBps(processingFee, fees.feeTaxBps);
    return event.prices.map((price) => {
      const type = event.priceTypes.find((t) => t.id === price.priceTypeId);
      const level = event.priceLevels.find((l) => l.id === price.priceLevelId);
      const { fee, tax } = ticketFees(price.amountMinor, fees);
      return {
        priceLevelId: price.priceLevelId,
        priceTypeId: price.priceTypeId,
        name: [level?.name, type?.name].filter(Boolean).join(' - '),
        faceValueMinor: price.amountMinor,
        serviceFeeMinor: fee,
        serviceFeeTaxMinor: tax,
        processingFeeMinor: processingFee,
        processingFeeTaxMinor: processingTax,
        protected: type?.accessCodeRequired ?? false,
      };
    });
  }

  /** A cart of the owner (the poll of a pending reserve too). NOT_FOUND for anyone else's. */
  async get(owner: CartOwner, cartId: string, eventId?: string): Promise<CartView> {
    return this.view(await this.#owned(owner, cartId, eventId));
  }

  /** Shipping options of a cart for a region (`''` = the event's country). */
  async shippingOptions(
    owner: CartOwner,
    cartId: string,
    region: string,
    eventId?: string,
  ): Promise<ShippingOption[]> {
    if (region && !/^[A-Za-z]{2}$/.test(region))
      throw invalidInput('region must be a two-letter country code', 'region');
    const cart = await this.#owned(owner, cartId, eventId);
    return shippingOptions({
      region,
      eventCountry: cart.countryCode,
      secureEntry: cart.secureEntryEnabled,
    });
  }

  /** An order of the owner app (any order when `appId` is undefined: operators). */
  async getOrder(orderId: string, appId?: string): Promise<Order> {
    const order = orderId ? await this.deps.orders.get(orderId) : undefined;
    if (!order || (appId !== undefined && order.appId !== appId))
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    return withoutVersion(order);
  }

  /** Confirmed (or all) orders of an owner, newest first: e.g. a fan's tickets of an event. */
  async listOrders(
    owner: CartOwner,
    filter: { eventId?: string; status?: Order['status']; limit?: number } = {},
  ): Promise<Order[]> {
    return this.deps.orders.listByOwner({
      appId: owner.appId,
      sandbox: owner.sandbox,
      ...(owner.fanId !== undefined ? { fanId: owner.fanId } : {}),
      ...(filter.eventId ? { eventId: filter.eventId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      limit: Math.min(Math.max(filter.limit ?? 100, 1), 500),
    });
  }

  // ------------------------------------------------------------------------------------------
  // Reserve

  /**
   * Reserves tickets into a new cart. Waits up to `reserveWaitMs` for the partner; answers the
   * held cart, or a PENDING one that completes in the background. A reserve the partner refuses
   * within the wait is thrown (RESOURCE_EXHAUSTED 20052, ...); one refused later leaves the cart
   * FAILED with its code.
   */
  async reserve(input: ReserveInput): Promise<CartView> {
    if (!EVENT_ID.test(input.eventId))
      throw invalidInput('event id must be 15 letters or digits', 'event_id');
    const event = await this.#event(input.eventId);
    const now = this.deps.clock.now();
    this.#transactable(event, now);
    const requests = input.requests.map((r) => this.#toReserve(r));
    const resaleLines = resaleLinesOf(requests);
    if (resaleLines.length === 0) validateReserves(requests, event);
    for (const ticket of requests.flatMap((r) => r.tickets)) {
      const type = event.priceTypes.find((t) => t.id === ticket.priceTypeId);
      if (type?.accessCodeRequired && !ticket.accessCodeSealed)
        throw new CartError(
          'permission_denied',
          ErrorCode.INVALID_INPUT,
          `ticket type ${ticket.priceTypeId} needs a password`,
          { field: 'tickets' },
        );
    }
    if (resaleLines.length === 0 && !input.owner.sandbox)
      this.#refuseIfJustSoldOut(event.id, requests);
    const hit = await this.deps.tracking.latest(
      input.owner.appId,
      event.id,
      new Date(now.getTime() - this.deps.settings.trackingWindowMs),
    );
    const cart: Cart = {
      id: this.deps.ids.cartId(),
      appId: input.owner.appId,
      channel: input.owner.channel,
      ...(input.owner.fanId !== undefined ? { fanId: input.owner.fanId } : {}),
      eventId: event.id,
      partnerId: event.partnerId,
      sandbox: input.owner.sandbox,
      language: input.language || 'en-us',
      currency: event.currency,
      secureEntryEnabled: event.secureEntryEnabled,
      countryCode: event.countryCode,
      timezone: event.timezone,
      status: 'PENDING',
      requests,
      lines: [],
      reserveAttempts: 0,
      tickets: [],
      releaseOwed: false,
      bookingUnknown: false,
      voidOwed: false,
      ...(hit && hit.sandbox === input.owner.sandbox ? { sharedId: hit.sharedId } : {}),
      createdAt: now,
      updatedAt: now,
    };
    if (resaleLines.length > 0)
      return this.#reserveResale(cart, resaleLines, input.fanSessionId ?? '');
    // The first attempt is claimed by the insert itself, its lines planned before it: one write
    // fewer than inserting and then claiming. Lines that cannot be planned now (live seats the
    // partner does not answer, say) leave the cart unclaimed, and the attempt plans them as a retry
    // does, failing the cart with the reason when it must.
    const lines = cart.sandbox ? undefined : await this.#lines(cart, event).catch(() => null);
    const claimed: Cart =
      lines === null
        ? cart
        : { ...cart, reserveAttempts: 1, reserveStartedAt: now, ...(lines ? { lines } : {}) };
    const inserted = await this.deps.carts.insert(this.#withSweepAt(claimed));
    let last: Stored<Cart> | undefined;
    const work = this.#track(cart.id, async () => {
      last = await this.#completeReserve(cart, lines === null ? undefined : inserted);
    });
    if (input.forceAsync) return this.view(cart);
    const settled = await Promise.race([
      work.then(() => true),
      sleep(this.deps.settings.reserveWaitMs).then(() => false),
    ]);
    if (!settled) {
      // Answered PENDING: the reserve goes on without its request and keeps its place.
      this.#unanswered += 1;
      void work.finally(() => (this.#unanswered -= 1));
    }
    // A settled reserve answers with the state it wrote last, without reading it back.
    const current = (settled ? last : undefined) ?? (await this.deps.carts.get(cart.id)) ?? cart;
    if (settled && current.status === 'FAILED' && current.failure)
      throw this.#failureError(current.failure);
    return this.view(current);
  }

  /**
   * A resale reserve: the listing is held by cart's resale inventory (the partner sold its tickets
   * already), at the price of the live fan session, and the cart is written HELD at once. No
   * partner booking, so no `booking-held`; the inventory token stays empty.
   */
  async #reserveResale(
    cart: Cart,
    lines: { listingId: string; quantity: number }[],
    fanSessionId: string,
  ): Promise<CartView> {
    const resale = this.deps.resale;
    if (!resale || cart.sandbox)
      throw invalidInput('resale listings are not sold on this prefix', 'tickets');
    const held = await resale.holdListings({
      cartId: cart.id,
      appId: cart.appId,
      eventId: cart.eventId,
      fanSessionId,
      lines,
    });
    const now = this.deps.clock.now();
    const booking = {
      inventoryToken: '',
      tickets: heldTicketsOf(held.listings),
      expiresAt: held.expiresAt,
      fees: this.deps.settings.fees,
    };
    const written = hold(cart, booking, now);
    try {
      await this.deps.carts.insert(this.#withSweepAt(written));
    } catch (error) {
      await resale.releaseListings(cart.id, listingIdsOf(cart.requests)).catch(() => undefined);
      throw error;
    }
    return this.view(written);
  }

  /**
   * Runs the background part of a reserve (also resumed by the sweeper); never throws. Each attempt
   * plans the booking lines first, then claims the cart and records those lines in one write (a
   * booking of unknown outcome is found again by them), then asks the partner. Resolves the cart as
   * last written, or `undefined` when another worker had it.
   */
  async #completeReserve(
    pending: Cart,
    claimedByInsert?: Stored<Cart>,
  ): Promise<Stored<Cart> | undefined> {
    const { settings } = this.deps;
    const cartId = pending.id;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const event = await this.#event(pending.eventId);
        const claimed =
          attempt === 1 && claimedByInsert
            ? claimedByInsert
            : await this.#claimAttempt(pending, event);
        if (!claimed || claimed.status !== 'PENDING') {
          // Released before this attempt claimed it: what it owes is settled here, since the
          // release left that to this reserve.
          if (claimed && (claimed.releaseOwed || claimed.voidOwed))
            await this.settle(cartId, claimed);
          return undefined;
        }
        const { booking, lines: booked, tickets } = await this.#book(claimed, event);
        return await this.#recordHeld(cartId, booking, booked, tickets);
      } catch (error) {
        if (isTransient(error) && !(error instanceof CartError)) {
          if (attempt < settings.reserveAttempts) {
            this.deps.log.warn(
              { cart_id: cartId, attempt, err: error },
              'reserve attempt failed; retrying',
            );
            await sleep(settings.reserveRetryMs * 2 ** (attempt - 1));
            continue;
          }
          // The partner may hold a booking of an earlier attempt: releasing finds it by its lines.
          return this.#fail(cartId, hostDown('the partner did not answer the reserve'), true);
        }
        const refusal = partnerRefusal(error);
        if (refusal.code === ErrorCode.NO_INVENTORY && !pending.sandbox)
          this.#noteSoldOut(pending.eventId, pending.requests);
        return this.#fail(cartId, refusal, false);
      }
    }
  }

  /** Plans the lines and claims the pending cart for one more attempt (the cart as written). */
  async #claimAttempt(pending: Cart, event: SellableEvent): Promise<Stored<Cart> | undefined> {
    const lines = pending.sandbox ? undefined : await this.#lines(pending, event);
    const now = this.deps.clock.now();
    return this.#mutate(pending.id, (cart) =>
      cart.status === 'PENDING'
        ? {
            ...cart,
            reserveAttempts: cart.reserveAttempts + 1,
            reserveStartedAt: now,
            updatedAt: now,
            ...(lines ? { lines } : {}),
          }
        : undefined,
    );
  }

  /** The booking lines of a partner reserve, planned from the event's areas (and live seats). */
  async #lines(cart: Cart, event: SellableEvent): Promise<BookingLine[]> {
    const lines: BookingLine[] = [];
    for (const reserve of cart.requests) {
      const planned = await this.#plan(reserve, event);
      planned.forEach((line, i) => {
        const sealed = reserve.tickets[i]?.accessCodeSealed;
        lines.push({ ...line, ...(sealed ? { accessCodeSealed: sealed } : {}) });
      });
    }
    return lines;
  }

  /** Asks the partner (or the sandbox inventory) to hold the claimed cart's tickets. */
  async #book(
    cart: Cart,
    event: SellableEvent,
  ): Promise<{
    booking: PartnerBooking;
    lines: BookingLine[];
    tickets: HeldTicket[];
  }> {
    const now = this.deps.clock.now();
    if (cart.sandbox) return this.#bookSandbox(cart, event, now);
    const lines = cart.lines;
    const booking = await this.deps.connector.createBooking({
      eventId: cart.eventId,
      cartId: cart.id,
      lines: lines.map(({ accessCodeSealed, ...line }) => ({
        ...line,
        accessCode: accessCodeSealed ? this.deps.secrets.open(accessCodeSealed) : '',
      })),
      language: cart.language,
    });
    const areaName = (id: string) => {
      const area = event.areas.find((a) => a.areaId === id);
      return area ? [area.levelId, area.sectionId].filter(Boolean).join(' ') || id : id;
    };
    const tickets: HeldTicket[] = booking.tickets.map((t) => ({
      ...t,
      generalAdmission: t.seat === '',
      areaDescription: areaName(t.areaId),
    }));
    return { booking, lines, tickets };
  }

  async #plan(
    reserve: Reserve,
    event: SellableEvent,
  ): Promise<Omit<BookingLine, 'accessCodeSealed'>[]> {
    if (!reserve.section) return bestAvailableLines(reserve, event.areas);
    const known = areaOfSection(event.areas, reserve.section);
    const live =
      known ??
      (await this.deps.connector.availability({ eventId: event.id, withSeats: false })).areas.find(
        (a) => a.sectionId === reserve.section || a.areaId === reserve.section,
      );
    if (!live) {
      if (reserve.acceptBestAvailable) return bestAvailableLines(reserve, event.areas);
      throw new CartError(
        'resource_exhausted',
        ErrorCode.NO_INVENTORY,
        `no section ${reserve.section} in this event`,
      );
    }
    if (live.generalAdmission || !live.levelId || !live.sectionId)
      return bestAvailableLines(reserve, event.areas, live.areaId);
    const answer = await this.deps.connector.availability({
      eventId: event.id,
      levelId: live.levelId,
      sectionId: live.sectionId,
      withSeats: true,
    });
    const area = answer.areas.find((a) => a.areaId === live.areaId) ?? answer.areas[0];
    return seatedLines(reserve, live, area?.seats ?? []);
  }

  async #bookSandbox(
    cart: Cart,
    event: SellableEvent,
    now: Date,
  ): Promise<{ booking: PartnerBooking; lines: BookingLine[]; tickets: HeldTicket[] }> {
    const expiresAt = new Date(now.getTime() + this.deps.settings.sandboxHoldSeconds * 1000);
    const areas = sandboxAreas(event);
    const lines = cart.requests.flatMap((reserve) =>
      reserve.tickets.map((ticket) => {
        const priced = areas.filter(
          (a) =>
            (!ticket.priceLevelId || a.priceLevelId === ticket.priceLevelId) &&
            faceValueOf(event, a.priceLevelId, ticket.priceTypeId) !== undefined,
        );
        const wanted =
          reserve.areaIds.length > 0
            ? priced.filter((a) => reserve.areaIds.includes(a.areaId))
            : reserve.section
              ? priced.filter(
                  (a) => a.sectionId === reserve.section || a.areaId === reserve.section,
                )
              : priced;
        const candidates = wanted.length > 0 || !reserve.acceptBestAvailable ? wanted : priced;
        return {
          areaIds: candidates.map((a) => a.areaId),
          priceLevelId: ticket.priceLevelId,
          priceTypeId: ticket.priceTypeId,
          quantity: ticket.quantity,
        };
      }),
    );
    if (lines.some((l) => l.areaIds.length === 0))
      throw new CartError(
        'resource_exhausted',
        ErrorCode.NO_INVENTORY,
        'no sandbox inventory matches',
      );
    const held = await this.deps.sandbox.hold({
      eventId: event.id,
      cartId: cart.id,
      lines,
      areas,
      expiresAt,
      now,
    });
    const tickets: HeldTicket[] = held.map((t) => ({
      ...t,
      faceValueMinor: faceValueOf(event, t.priceLevelId, t.priceTypeId) ?? 0,
      areaDescription: t.areaId,
    }));
    return {
      booking: { inventoryToken: `sandbox-${cart.id}`, expiresAt, tickets },
      lines: lines.map((l) => ({
        areaId: '',
        priceLevelId: l.priceLevelId,
        priceTypeId: l.priceTypeId,
        quantity: l.quantity,
        seatIds: [],
      })),
      tickets,
    };
  }

  /** The partner holds the tickets: HELD with `booking-held`, or released at once if the cart was. */
  async #recordHeld(
    cartId: string,
    booking: PartnerBooking,
    lines: BookingLine[],
    tickets: HeldTicket[],
  ): Promise<Stored<Cart> | undefined> {
    const now = this.deps.clock.now();
    const fees = this.deps.settings.fees;
    const maxHoldMs = (this.deps.settings.maxHoldSeconds ?? 0) * 1000;
    const expiresAt =
      maxHoldMs > 0 && booking.expiresAt.getTime() - now.getTime() > maxHoldMs
        ? new Date(now.getTime() + maxHoldMs)
        : booking.expiresAt;
    const written = await this.#mutate(
      cartId,
      (cart) => {
        if (cart.status === 'PENDING')
          return hold(
            { ...cart, lines },
            { inventoryToken: booking.inventoryToken, tickets, expiresAt, fees },
            now,
          );
        if (cart.inventoryToken === booking.inventoryToken) return undefined;
        // Released (or failed) while the partner was still answering: give the booking back.
        return {
          ...cart,
          inventoryToken: booking.inventoryToken,
          releaseOwed: true,
          bookingUnknown: false,
          updatedAt: now,
        };
      },
      (before, after) =>
        before.status === 'PENDING' && after.status === 'HELD' && !after.sandbox
          ? [{ type: 'booking-held', cart: after }]
          : [],
    );
    if (written && written.status !== 'HELD') {
      await this.settle(cartId, written);
      return undefined; // settled since: the caller reads it
    }
    return written;
  }

  async #fail(
    cartId: string,
    error: CartError,
    bookingUnknown: boolean,
  ): Promise<Stored<Cart> | undefined> {
    const now = this.deps.clock.now();
    const failed = await this.#mutate(cartId, (cart) =>
      cart.status === 'PENDING'
        ? fail(cart, { code: error.code, message: error.message }, now, { bookingUnknown })
        : undefined,
    );
    if (failed?.releaseOwed) {
      await this.settle(cartId, failed);
      return undefined;
    }
    return failed;
  }

  // ------------------------------------------------------------------------------------------
  // Shipping, payment, commit

  /** Chooses a shipping option (10104 when the cart's event does not offer it). */
  async selectShipping(
    owner: CartOwner,
    cartId: string,
    shippingId: string,
    eventId?: string,
  ): Promise<CartView> {
    const cart = await this.#owned(owner, cartId, eventId);
    this.#inWindow(cart);
    const option = findShippingOption(shippingId, cart.secureEntryEnabled);
    if (!option)
      throw new CartError(
        'invalid_argument',
        ErrorCode.INVALID_DELIVERY,
        `unknown shipping option ${shippingId}`,
        { field: 'shipping_id' },
      );
    const now = this.deps.clock.now();
    const written = await this.#mutate(cart.id, (current) => {
      this.#assertHeld(current, now);
      if (current.status !== 'HELD')
        throw staleCart(`cart ${current.id} is ${current.status}: shipping can no longer change`);
      return { ...current, delivery: option, updatedAt: now };
    });
    return this.view(written!);
  }

  /**
   * Authorises the payment of the unpaid total and moves the cart to PAID. A declined payment is
   * FAILED_PRECONDITION (20122, 20129, 20152) and leaves the cart HELD without a payment; a
   * processor that does not answer is UNAVAILABLE (20001), the payment then counts as not taken.
   */
  async addPayment(
    owner: CartOwner,
    cartId: string,
    billing: BillingInput,
    eventId?: string,
  ): Promise<CartView> {
    const cart = await this.#owned(owner, cartId, eventId);
    this.#inWindow(cart);
    const now = this.deps.clock.now();
    this.#assertHeld(cart, now);
    if (cart.status !== 'HELD')
      throw staleCart(`cart ${cart.id} is ${cart.status}: it cannot take a payment`, {
        status: cart.status,
      });
    if (!billing.cardNonce) throw invalidInput('a card payment nonce is required', 'card.number');
    if (cart.secureEntryEnabled && !billing.thirdPartyAccountId)
      throw invalidInput(
        'third_party_account_id is required for events with secure entry',
        'third_party_account_id',
      );
    if (!billing.email) throw invalidInput('email_address is required', 'email_address');
    const delivery = cart.delivery ?? DEFAULT_SHIPPING;
    const priced = priceCart({ tickets: cart.tickets, fees: cart.fees!, delivery });
    if (billing.currency && billing.currency.toUpperCase() !== cart.currency)
      throw invalidInput(`the cart is priced in ${cart.currency}`, 'currency');
    if (billing.amountMinor !== priced.totals.unpaid)
      throw invalidInput(
        `amount must equal the unpaid total ${priced.totals.unpaid} (minor units of ${cart.currency})`,
        'amount',
      );
    const processor = cart.sandbox ? this.deps.sandboxProcessor : this.deps.processor;
    const authorization = await processor.authorize({
      reference: `${cart.id}:${cart.version}`,
      amountMinor: priced.totals.unpaid,
      currency: cart.currency,
      nonce: billing.cardNonce,
      cin: billing.cin,
      expireMonth: billing.expireMonth,
      expireYear: billing.expireYear,
    });
    const payment = {
      paymentId: authorization.paymentId,
      type: billing.type || 'CC',
      amountMinor: priced.totals.unpaid,
      issuer: authorization.issuer,
      maskedNumber: `************${authorization.last4}`,
      expireMonth: billing.expireMonth,
      expireYear: billing.expireYear,
      status: 'AUTHORIZED' as const,
      authorizedAt: now,
    };
    const kept: CartBilling = {
      firstName: billing.firstName,
      lastName: billing.lastName,
      email: billing.email,
      thirdPartyAccountId: billing.thirdPartyAccountId,
      reference: billing.reference,
      countryCode: billing.countryCode,
    };
    try {
      const written = await this.#mutate(cart.id, (current) => {
        if (current.status !== 'HELD' || current.version !== cart.version)
          throw staleCart(`cart ${cart.id} changed while the payment was authorised`);
        return pay({ ...current, delivery }, payment, kept, now);
      });
      return this.view(written!);
    } catch (error) {
      await processor
        .void(authorization.paymentId)
        .catch((voidError: unknown) =>
          this.deps.log.error(
            { cart_id: cart.id, payment_id: authorization.paymentId, err: voidError },
            'void of an unused authorisation failed',
          ),
        );
      throw error;
    }
  }

  /**
   * Commits a paid cart: the order id, number and token are fixed on the cart first, then the
   * partner confirms the order (idempotent per order id), the payment is captured, and the order is
   * written with `order-confirmed`. A retry, or a commit of an already committed cart by its app,
   * answers the same order and token.
   */
  async commit(owner: CartOwner, cartId: string, eventId?: string): Promise<CommitResult> {
    let cart = await this.#owned(owner, cartId, eventId);
    if (cart.status === 'COMMITTED') return this.#committed(cart);
    this.#inWindow(cart);
    const now = this.deps.clock.now();
    if (cart.status !== 'PAID')
      throw staleCart(`cart ${cart.id} is ${cart.status}: only a paid cart can be committed`, {
        status: cart.status,
      });
    if (isExpired(cart, now) && !cart.order)
      throw staleCart(`the hold of cart ${cart.id} has expired`);
    this.#committing.add(cart.id);
    try {
      if (!cart.order) {
        const token = this.deps.ids.orderToken();
        const order = {
          orderId: this.deps.ids.orderId(),
          orderNumber: orderNumberFrom(this.deps.ids.orderNumberBytes()),
          tokenSha256: this.deps.hasher.sha256(token),
          tokenSealed: this.deps.secrets.seal(token),
        };
        cart = (await this.#mutate(cart.id, (current) => prepareCommit(current, order, now)))!;
      }
      const existing = await this.deps.orders.get(cart.order!.orderId);
      if (!existing) await this.#confirm(cart);
      const committed = await this.#mutate(cart.id, (current) => {
        if (current.status === 'COMMITTED') return undefined;
        return commitCart(
          current,
          {
            inventoryOrderId: existing?.inventoryOrderId ?? current.order!.inventoryOrderId ?? '',
            confirmedAt: now,
          },
          now,
        );
      });
      return this.#committed(committed ?? cart);
    } finally {
      this.#committing.delete(cart.id);
    }
  }

  /** Partner order, capture, order document with `order-confirmed`. */
  async #confirm(cart: Stored<Cart>): Promise<void> {
    const ref = cart.order!;
    const now = this.deps.clock.now();
    const delivery = cart.delivery ?? DEFAULT_SHIPPING;
    const priced = priceCart({ tickets: cart.tickets, fees: cart.fees!, delivery });
    let inventoryOrderId = '';
    const listingIds = listingIdsOf(cart.requests);
    let resold: { ticketId: string; previousOrderId: string }[] = [];
    if (cart.sandbox) {
      await this.deps.sandbox.sell(cart.eventId, cart.id);
    } else if (listingIds.length > 0) {
      // A resale: the listing is sold and its tickets move to this order (no partner order).
      try {
        resold = await this.deps.resale!.sellListings({
          cartId: cart.id,
          orderId: ref.orderId,
          buyer: {
            appId: cart.appId,
            fanId: cart.fanId ?? '',
            thirdPartyAccountId: cart.billing?.thirdPartyAccountId ?? '',
          },
          listingIds,
        });
      } catch (error) {
        if (isTransient(error))
          throw hostDown('the resale could not be recorded; retry the commit');
        const refused = staleCart(`the listing is no longer held: ${(error as Error).message}`);
        await this.#mutate(cart.id, (current) =>
          current.status === 'PAID'
            ? fail(current, { code: refused.code, message: refused.message }, now)
            : undefined,
        );
        await this.settle(cart.id);
        throw refused;
      }
    } else {
      try {
        ({ inventoryOrderId } = await this.deps.connector.createOrder({
          eventId: cart.eventId,
          inventoryToken: cart.inventoryToken!,
          orderId: ref.orderId,
          ticketsAmountMinor: priced.totals.merchandise,
          currency: cart.currency,
          ticketsQuantity: cart.tickets.length,
          paymentMethodType: 'CARD',
          deliveryMethodType: deliveryMethodType(delivery),
        }));
      } catch (error) {
        if (isTransient(error))
          throw hostDown('the partner did not confirm the order; retry the commit');
        // The partner refuses for good (the hold is gone): void, release, FAILED.
        const refused = staleCart(
          `the partner refused the order: ${(error as Error).message ?? 'refused'}`,
        );
        await this.#mutate(cart.id, (current) =>
          current.status === 'PAID'
            ? fail(current, { code: refused.code, message: refused.message }, now)
            : undefined,
        );
        await this.settle(cart.id);
        throw refused;
      }
    }
    const processor = cart.sandbox ? this.deps.sandboxProcessor : this.deps.processor;
    try {
      await processor.capture(cart.payment!.paymentId, cart.payment!.amountMinor, cart.currency);
    } catch (_error) {
      throw hostDown('the payment could not be captured yet; retry the commit');
    }
    const order: Order = {
      id: ref.orderId,
      orderNumber: ref.orderNumber,
      cartId: cart.id,
      appId: cart.appId,
      channel: cart.channel,
      ...(cart.fanId !== undefined ? { fanId: cart.fanId } : {}),
      eventId: cart.eventId,
      partnerId: cart.partnerId,
      sandbox: cart.sandbox,
      inventoryToken: cart.inventoryToken ?? '',
      inventoryOrderId,
      status: 'CONFIRMED',
      currency: cart.currency,
      tickets: cart.tickets.map((t) => ({
        ticketId: t.ticketId,
        areaId: t.areaId,
        section: t.section,
        row: t.row,
        seat: t.seat,
        priceLevelId: t.priceLevelId,
        priceTypeId: t.priceTypeId,
        faceValueMinor: t.faceValueMinor,
        generalAdmission: t.generalAdmission,
      })),
      merchandiseMinor: priced.totals.merchandise,
      feeMinor: priced.totals.fee,
      taxMinor: priced.totals.tax,
      deliveryMinor: priced.totals.delivery,
      grandMinor: priced.totals.grand,
      delivery,
      paymentId: cart.payment!.paymentId,
      customerEmail: cart.billing?.email ?? '',
      thirdPartyAccountId: cart.billing?.thirdPartyAccountId ?? '',
      secureEntryEnabled: cart.secureEntryEnabled,
      tokenSha256: ref.tokenSha256,
      confirmedAt: now,
      ...(resold.length > 0
        ? {
            resoldTicketIds: resold.map((t) => t.ticketId),
            resoldFromOrderId: resold[0]!.previousOrderId,
          }
        : {}),
    };
    try {
      await this.deps.orders.insertConfirmed(order);
    } catch (error) {
      if (errorKindOf(error) !== 'already_exists') throw error;
    }
  }

  async #committed(cart: Cart): Promise<CommitResult> {
    const order = await this.deps.orders.get(cart.order!.orderId);
    if (!order) throw hostDown(`order of cart ${cart.id} is not written yet; retry the commit`);
    return {
      view: await this.view(cart),
      order: withoutVersion(order),
      orderToken: this.deps.secrets.open(cart.order!.tokenSealed),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Release, expiry, settlement

  /**
   * Releases a cart (idempotent): RELEASED with `booking-released`, then the partner booking is
   * given back and any authorisation voided (retried by the sweeper until done). A committed cart
   * cannot be released (cancel its order).
   */
  async release(
    owner: CartOwner,
    cartId: string,
    eventId?: string,
    reason: ReleaseReason = 'client',
  ): Promise<void> {
    if (!cartId) throw cartNotFound(cartId);
    const now = this.deps.clock.now();
    if (await this.#releaseHeld(owner, cartId, eventId, reason, now)) return;
    // Ownership is checked on the state the write is computed from: one read, not two.
    let pending = false;
    const released = await this.#mutate(
      cartId,
      (current) => {
        if (!ownedBy(owner, current, eventId)) throw cartNotFound(cartId);
        pending = current.status === 'PENDING';
        if (current.status === 'COMMITTED')
          throw staleCart(`cart ${current.id} is committed: cancel its order instead`);
        const next = releaseCart(current, reason, now);
        return next === current ? undefined : next;
      },
      bookingReleased,
    );
    if (!released) throw cartNotFound(cartId);
    // A reserve still running here gives the booking back itself once the partner answers, if it
    // had not answered when this was written; a hold it wrote before is settled here.
    if (!pending || !this.#inflight.has(cartId)) await this.settle(cartId, released);
  }

  /**
   * The release of a plain partner hold (HELD, so its reserve is done; nothing paid; no commit of
   * it running here), written once: the booking goes back to the partner first, then the cart is
   * written RELEASED with nothing owed, instead of RELEASED-and-owed before the call and settled after it.
   * A hold cannot be committed (that needs a payment first), and whatever changed the cart in
   * between (a payment, an expiry) is applied to the state the write finds, with this booking no
   * longer owed. Answers false, having written nothing, when the cart is not such a hold or the
   * partner did not answer: the general path then writes the release and leaves the booking owed
   * to the sweeper. A crash between the call and the write leaves a HELD cart whose booking is
   * gone: the client's retry of the release, or the hold's expiry, ends it.
   */
  async #releaseHeld(
    owner: CartOwner,
    cartId: string,
    eventId: string | undefined,
    reason: ReleaseReason,
    now: Date,
  ): Promise<boolean> {
    const seen = await this.deps.carts.get(cartId);
    if (!seen || !ownedBy(owner, seen, eventId)) throw cartNotFound(cartId);
    const token = seen.inventoryToken;
    if (
      seen.status !== 'HELD' ||
      seen.sandbox ||
      !token ||
      seen.payment !== undefined ||
      seen.bookingUnknown ||
      listingIdsOf(seen.requests).length > 0 ||
      this.#committing.has(cartId)
    )
      return false;
    // Refused for good (e.g. confirmed meanwhile as an order) counts as done, as for any release:
    // the write below finds out, and reconciliation decides about the booking.
    if (!(await this.#releaseBooking(seen))) return false;
    const released = await this.#mutate(
      cartId,
      (current) => {
        if (current.status === 'COMMITTED' || current.order)
          throw staleCart(`cart ${current.id} is committed: cancel its order instead`);
        const next = releaseCart(current, reason, now);
        if (next === current) return undefined;
        return current.inventoryToken === token
          ? { ...next, releaseOwed: false, bookingUnknown: false }
          : next;
      },
      bookingReleased,
    );
    // Still owed: what changed meanwhile (a payment to void, say).
    if (released && (released.releaseOwed || released.voidOwed))
      await this.settle(cartId, released);
    return true;
  }

  /**
   * Gives back what an ended cart still owes: the partner (or sandbox) booking and the payment
   * authorisation. Failures that may pass are left owed for the next sweep.
   */
  async settle(cartId: string, known?: Stored<Cart>): Promise<void> {
    const cart = known ?? (await this.deps.carts.get(cartId));
    if (!cart || (!cart.releaseOwed && !cart.voidOwed)) return;
    let released = !cart.releaseOwed;
    let voided = !cart.voidOwed;
    if (cart.voidOwed && cart.payment) {
      const processor = cart.sandbox ? this.deps.sandboxProcessor : this.deps.processor;
      try {
        await processor.void(cart.payment.paymentId);
        voided = true;
      } catch (error) {
        this.deps.log.warn({ cart_id: cartId, err: error }, 'payment void failed; retried later');
      }
    } else voided = true;
    if (cart.releaseOwed) released = await this.#releaseBooking(cart);
    if (!released && !voided) return;
    await this.#mutate(cartId, (current) => ({
      ...current,
      releaseOwed: released ? false : current.releaseOwed,
      bookingUnknown: released ? false : current.bookingUnknown,
      voidOwed: voided ? false : current.voidOwed,
      payment:
        voided && current.payment && current.voidOwed
          ? { ...current.payment, status: 'VOIDED' }
          : current.payment,
      updatedAt: this.deps.clock.now(),
    }));
  }

  async #releaseBooking(cart: Cart): Promise<boolean> {
    try {
      const listingIds = listingIdsOf(cart.requests);
      if (listingIds.length > 0 && this.deps.resale) {
        await this.deps.resale.releaseListings(cart.id, listingIds);
        return true;
      }
      if (cart.sandbox) {
        await this.deps.sandbox.release(cart.eventId, cart.id);
        return true;
      }
      let token = cart.inventoryToken;
      if (!token && cart.bookingUnknown) {
        // The partner may hold tickets under a token never seen: CreateBooking is idempotent per
        // cart and answers the live booking of the cart (or makes one), which is then released.
        if (cart.lines.length === 0) return true;
        try {
          token = (
            await this.deps.connector.createBooking({
              eventId: cart.eventId,
              cartId: cart.id,
              lines: cart.lines.map(({ accessCodeSealed, ...line }) => ({
                ...line,
                accessCode: accessCodeSealed ? this.deps.secrets.open(accessCodeSealed) : '',
              })),
              language: cart.language,
            })
          ).inventoryToken;
        } catch (error) {
          if (isTransient(error)) throw error;
          return true; // refused: nothing is held for this cart
        }
      }
      if (!token) return true;
      await this.deps.connector.releaseBooking(cart.eventId, token);
      // Places went back to the partner: the event may sell again.
      this.#soldOut.delete(cart.eventId);
      return true;
    } catch (error) {
      if (!isTransient(error)) {
        // Refused for good (e.g. already confirmed as an order): reconciliation decides.
        this.deps.log.warn(
          { cart_id: cart.id, event_id: cart.eventId, err: error },
          'partner refused the release; left to reconciliation',
        );
        return true;
      }
      this.deps.log.warn({ cart_id: cart.id, err: error }, 'partner release failed; retried later');
      return false;
    }
  }

  /**
   * One pass of the sweeper (every replica runs it; compare-and-set keeps them apart), over the
   * carts whose `sweepAt` has come: resumes stale pending reserves, expires ended holds
   * (`booking-expired`), and settles what ended carts still owe. Resolves how many it touched.
   */
  async sweep(): Promise<number> {
    const { settings } = this.deps;
    const now = this.deps.clock.now();
    let touched = 0;
    for (const cart of await this.deps.carts.findDue(now, SWEEP_BATCH)) {
      if (cart.status === 'PENDING') {
        if (this.#inflight.has(cart.id)) continue;
        touched += 1;
        await this.#track(cart.id, async () => {
          await this.#completeReserve(cart);
        });
        continue;
      }
      if ((cart.status === 'HELD' || cart.status === 'PAID') && isExpired(cart, now)) {
        if (this.#committing.has(cart.id)) continue;
        if (cart.status === 'PAID' && cart.order) {
          // A commit was started: finish it if its order exists; wait out the grace otherwise.
          if (await this.deps.orders.get(cart.order.orderId)) {
            await this.#finishCommitted(cart.id);
            touched += 1;
            continue;
          }
          if (now.getTime() - cart.updatedAt.getTime() < settings.commitGraceMs) continue;
        }
        touched += 1;
        const expired = await this.#mutate(
          cart.id,
          (current) => (isExpired(current, now) ? expire(current, now) : undefined),
          // Only a partner booking expires on the topic: sandbox and resale carts hold none (a
          // resale cart's inventory token is empty; its listing goes back on sale in `settle`).
          (_before, after) =>
            after.status === 'EXPIRED' && !after.sandbox && after.inventoryToken
              ? [{ type: 'booking-expired', cart: after }]
              : [],
        );
        if (expired?.status === 'EXPIRED') await this.settle(cart.id, expired);
        continue;
      }
      if (cart.releaseOwed || cart.voidOwed) {
        if (this.#inflight.has(cart.id)) continue;
        touched += 1;
        await this.settle(cart.id, cart);
        continue;
      }
      // Due for nothing (its due time was computed under other settings): brought up to date.
      const due = this.#withSweepAt(cart).sweepAt?.getTime();
      if (due !== cart.sweepAt?.getTime()) await this.#mutate(cart.id, (current) => current);
    }
    return touched;
  }

  /**
   * Deletes carts that ended longer ago than the retention and owe nothing (no release, no void);
   * each at the version read, so a cart written meanwhile stays. Resolves how many it deleted.
   * Their orders are records of their own and are kept.
   */
  async purgeEnded(limit = 500): Promise<number> {
    const retention = this.deps.settings.endedRetentionMs;
    if (retention === undefined) return 0;
    const cutoff = new Date(this.deps.clock.now().getTime() - retention);
    let purged = 0;
    for (const cart of await this.deps.carts.findEndedBefore(cutoff, limit)) {
      if (!FINAL_STATUSES.includes(cart.status) || cart.releaseOwed || cart.voidOwed) continue;
      if (await this.deps.carts.deleteAt(cart.id, cart.version)) purged += 1;
    }
    if (purged > 0) this.deps.log.info({ purged }, 'ended carts purged');
    return purged;
  }

  /**
   * The cart with its `sweepAt`: the soonest of a pending reserve going stale, the hold ending
   * (for a paid cart with an order, not before its commit's grace), and the next retry of what
   * an ended cart still owes; absent when none applies.
   */
  #withSweepAt<C extends Cart>(cart: C): C {
    const { settings } = this.deps;
    const after = (at: Date, ms: number) => at.getTime() + ms;
    const times: number[] = [];
    if (cart.status === 'PENDING')
      times.push(after(cart.reserveStartedAt ?? cart.createdAt, settings.pendingStaleMs));
    if ((cart.status === 'HELD' || cart.status === 'PAID') && cart.expiresAt)
      times.push(
        cart.status === 'PAID' && cart.order
          ? Math.max(cart.expiresAt.getTime(), after(cart.updatedAt, settings.commitGraceMs))
          : cart.expiresAt.getTime(),
      );
    if (cart.releaseOwed || cart.voidOwed) times.push(after(cart.updatedAt, settings.owedRetryMs));
    const { sweepAt: _previous, ...rest } = cart;
    return (times.length > 0 ? { ...rest, sweepAt: new Date(Math.min(...times)) } : rest) as C;
  }

  async #finishCommitted(cartId: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.#mutate(cartId, (current) =>
      current.status === 'PAID' && current.order
        ? commitCart(
            current,
            { inventoryOrderId: current.order.inventoryOrderId ?? '', confirmedAt: now },
            now,
          )
        : undefined,
    );
  }

  // ------------------------------------------------------------------------------------------
  // Orders

  /**
   * Cancels a confirmed order: CANCELLED with `order-cancelled`, which 3p-connector consumes and
   * sends to the partner (queued and retried while the partner is down). Idempotent.
   * `partnerCancelQueued` is true when the partner cancel is left to that queue.
   */
  async cancelOrder(
    orderId: string,
    reason: CancelReason,
    detail: string,
  ): Promise<{ order: Order; partnerCancelQueued: boolean }> {
    return retryingConflicts(async () => {
      const order = await this.deps.orders.get(orderId);
      if (!order)
        throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
      if (order.status === 'CANCELLED')
        return { order: withoutVersion(order), partnerCancelQueued: false };
      const now = this.deps.clock.now();
      const written = await this.deps.orders.updateCancelled(
        {
          ...withoutVersion(order),
          status: 'CANCELLED',
          cancelledAt: now,
          cancelReason: reason,
          cancelDetail: detail,
        },
        order.version,
      );
      return { order: withoutVersion(written), partnerCancelQueued: !written.sandbox };
    });
  }

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
  async printOrder(orderId: string, action: 'PRINT' | 'ROLLBACK_PRINT'): Promise<Order> {
    const what = action === 'PRINT' ? 'printed' : 'have its printing rolled back';
    const order = await this.deps.orders.get(orderId);
    if (!order)
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    if (order.status !== 'CONFIRMED')
      throw staleCart(`order ${orderId} is ${order.status}: only a confirmed order can be ${what}`);
    if (!order.sandbox) {
      try {
        await this.deps.connector.printOrder({
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
      () =>
        this.deps.orders.updatePrinted(
          { ...withoutVersion(current), printed: action },
          current.version,
        ),
      async (error) => {
        const again = await this.deps.orders.get(orderId);
        if (!again) throw error;
        current = again;
      },
    );
    return withoutVersion(written);
  }

  // ------------------------------------------------------------------------------------------
  // Tracking

  /** Stores an affiliate tracking hit; carts the app reserves for the event soon after carry its sharedId. */
  async recordTracking(input: {
    appId: string;
    eventId: string;
    sharedId: string;
    subIds: [string, string, string];
    sandbox: boolean;
  }): Promise<void> {
    if (!EVENT_ID.test(input.eventId))
      throw invalidInput('event id must be 15 letters or digits', 'event_id');
    for (const [field, value] of [
      ['sharedId', input.sharedId],
      ['subId1', input.subIds[0]],
      ['subId2', input.subIds[1]],
      ['subId3', input.subIds[2]],
    ] as const)
      if (value.length > 32) throw invalidInput(`${field} is at most 32 characters`, field);
    await this.deps.tracking.insert({
      id: this.deps.ids.trackingId(),
      appId: input.appId,
      eventId: input.eventId,
      sharedId: input.sharedId,
      subId1: input.subIds[0],
      subId2: input.subIds[1],
      subId3: input.subIds[2],
      sandbox: input.sandbox,
      at: this.deps.clock.now(),
    });
  }

  // ------------------------------------------------------------------------------------------
  // Views and helpers

  /** The cart as callers see it (prices computed from the held tickets and the fees of the hold). */
  async view(cart: Cart): Promise<CartView> {
    const now = this.deps.clock.now();
    const delivery = cart.delivery;
    const paid = cart.payment && cart.payment.status !== 'VOIDED' ? cart.payment.amountMinor : 0;
    const priced = priceCart({
      tickets: cart.tickets,
      fees: cart.fees ?? this.deps.settings.fees,
      delivery,
      paidMinor: paid,
    });
    const order = cart.order ? await this.deps.orders.get(cart.order.orderId) : undefined;
    return {
      cart: withoutVersion(cart as Stored<Cart>),
      priced,
      holdSeconds: holdSecondsLeft(cart, now),
      agreements: agreementsFor({
        language: cart.language,
        secureEntry: cart.secureEntryEnabled,
        termsUrl: this.deps.settings.termsUrl,
        secureEntryUrl: this.deps.settings.secureEntryAgreementUrl,
      }),
      ...(order ? { order: withoutVersion(order) } : {}),
      pollAfterSeconds: cart.status === 'PENDING' ? this.deps.settings.pollAfterSeconds : 0,
    };
  }

  /** Redemption URL of an order. */
  redemptionUrl(order: Order): string {
    return `${this.deps.settings.redemptionBaseUrl}${encodeURIComponent(order.orderNumber)}`;
  }

  /**
   * Load shedding: runs `work` (a reserve request, from its first store access to its answer) in
   * one of `maxReservesInFlight` places, shared with reserves still running after a PENDING answer;
   * with none free it is refused at once, `unavailable` (503 with Retry-After at the edge). Under a
   * rush (thousands of fans on one on-sale) the admitted reserves then finish within their callers'
   * deadlines, instead of all of them queueing for the store and the partner until every caller
   * has given up. A refusal writes nothing, so an idempotent retry is harmless.
   */
  async withReserveSlot<T>(work: () => Promise<T>): Promise<T> {
    const release = this.takeReserveSlot();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Takes one of the places `withReserveSlot` hands out, at once (refused like it when none is
   * free); the function returned gives it back (calling it again does nothing). For a port that
   * must hold the place across work of its own before the reserve, such as its idempotency record,
   * so that a burst cannot pass the capacity check all at once and only then find no place.
   */
  takeReserveSlot(): () => void {
    this.assertReserveCapacity();
    this.#admitted += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#admitted -= 1;
    };
  }

  /** Waits for background reserves of this process (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
  }

  /**
   * Refuses at once, as withReserveSlot would, when no place is free; takes none. For a port to
   * check before work of its own (an idempotency record) that a refusal would waste.
   */
  assertReserveCapacity(): void {
    const limit = this.deps.settings.maxReservesInFlight ?? DEFAULT_MAX_RESERVES_IN_FLIGHT;
    if (this.#admitted + this.#unanswered >= limit)
      // 1 to 4 s, at random: refused clients spread their retries instead of returning together.
      throw overloaded(
        'too many reservations in progress; retry shortly',
        RESERVE_RETRY_AFTER_MS + Math.floor(Math.random() * 3) * 1_000,
      );
  }

  /**
   * The sold-out hint as a check a port runs before work of its own (an idempotency record): a
   * best-available partner reserve no smaller than one the partner just refused as sold out is
   * refused here at once (RESOURCE_EXHAUSTED 20052). Sandbox and resale reserves are never refused
   * by it. `reserve` applies the same rule itself.
   */
  /** Whether the sold-out hint of the event is live (refuseIfJustSoldOut may refuse). */
  soldOutHinted(eventId: string): boolean {
    const known = this.#soldOut.get(eventId);
    return known !== undefined && known.until > this.deps.clock.now().getTime();
  }

  refuseIfJustSoldOut(input: Pick<ReserveInput, 'owner' | 'eventId' | 'requests'>): void {
    if (input.owner.sandbox || !this.#soldOut.has(input.eventId)) return;
    const requests = input.requests.map((r) => ({
      tickets: r.tickets.map((t) => ({ priceTypeId: t.priceTypeId, quantity: t.quantity })),
      areaIds: r.areaIds ?? [],
      section: r.section ?? '',
      row: r.row ?? '',
      beginSeat: r.beginSeat ?? 0,
      endSeat: r.endSeat ?? 0,
    }));
    if (requests.some((r) => r.tickets.some((t) => isListingId(t.priceTypeId)))) return;
    this.#refuseIfJustSoldOut(input.eventId, requests);
  }

  /**
   * Per event, the smallest best-available reserve the partner refused as sold out (20052) and
   * until when that is believed: a larger or equal one is refused at once, without a cart or a
   * partner call, for `soldOutHintMs` after the refusal or until this process gives places back.
   * When 2,000 fans ask for the last 200 places, the 1,800 who cannot have one hear so in one step
   * instead of each costing a cart, a booking attempt and the writes of a failure. Seats asked for
   * by section or row always go to the partner; the partner stays the only judge of what is held.
   */
  #soldOut = new Map<string, { quantity: number; until: number }>();

  #noteSoldOut(eventId: string, requests: readonly Reserve[]): void {
    const hintMs = this.deps.settings.soldOutHintMs ?? DEFAULT_SOLD_OUT_HINT_MS;
    const quantity = bestAvailableQuantity(requests);
    if (hintMs <= 0 || quantity === undefined) return;
    const known = this.#soldOut.get(eventId);
    const until = this.deps.clock.now().getTime() + hintMs;
    this.#soldOut.set(eventId, {
      quantity:
        known && known.until > this.deps.clock.now().getTime()
          ? Math.min(known.quantity, quantity)
          : quantity,
      until,
    });
  }

  #refuseIfJustSoldOut(eventId: string, requests: readonly SoldOutProbe[]): void {
    const known = this.#soldOut.get(eventId);
    if (!known) return;
    if (known.until <= this.deps.clock.now().getTime()) {
      this.#soldOut.delete(eventId);
      return;
    }
    const quantity = bestAvailableQuantity(requests);
    if (quantity !== undefined && quantity >= known.quantity)
      throw new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, 'sold out', {
        event_id: eventId,
      });
  }

  /** Reserve requests being served (withReserveSlot). */
  #admitted = 0;
  /** Reserves still running after their request was answered PENDING. */
  #unanswered = 0;

  #track(cartId: string, work: () => Promise<void>): Promise<void> {
    const running = this.#inflight.get(cartId);
    if (running) return running;
    // Detached from the gRPC call that started it: the reserve outlives that call's answer (202),
    // so its partner calls must not inherit the caller's deadline.
    const promise = (this.deps.detach ? this.deps.detach(work) : work())
      .catch((error: unknown) =>
        this.deps.log.error({ cart_id: cartId, err: error }, 'background reserve failed'),
      )
      .finally(() => this.#inflight.delete(cartId));
    this.#inflight.set(cartId, promise);
    return promise;
  }

  #toReserve(input: ReserveRequestInput): Reserve {
    const tickets: ReserveTicket[] = input.tickets.map((t) => ({
      priceTypeId: t.priceTypeId,
      quantity: t.quantity,
      priceLevelId: t.priceLevelId ?? '',
      ...(t.accessCode ? { accessCodeSealed: this.deps.secrets.seal(t.accessCode) } : {}),
    }));
    return {
      tickets,
      areaIds: input.areaIds ?? [],
      section: input.section ?? '',
      row: input.row ?? '',
      beginSeat: input.beginSeat ?? 0,
      endSeat: input.endSeat ?? 0,
      acceptBestAvailable: input.acceptBestAvailable ?? true,
    };
  }

  #failureError(failure: { code: string; message: string }): CartError {
    const kinds: Record<string, CartError['kind']> = {
      [ErrorCode.NO_INVENTORY]: 'resource_exhausted',
      [ErrorCode.INVALID_INPUT]: 'invalid_argument',
      [ErrorCode.HOST_DOWN]: 'unavailable',
      [ErrorCode.NOT_TRANSACTABLE]: 'failed_precondition',
    };
    return new CartError(
      kinds[failure.code] ?? 'failed_precondition',
      failure.code as CartError['code'],
      failure.message,
    );
  }

  async #event(eventId: string): Promise<SellableEvent> {
    const event = await this.deps.events.get(eventId);
    if (!event)
      throw new CartError('not_found', ErrorCode.NOT_TRANSACTABLE, `event ${eventId} not found`, {
        event_id: eventId,
      });
    return event;
  }

  #transactable(event: SellableEvent, now: Date): void {
    if (!isPartnerEvent(event))
      throw notTransactable(`event ${event.id} is not sold through the partner cart`);
    if (event.status === 'CANCELLED') throw notTransactable(`event ${event.id} is cancelled`);
    if (!isOnSale(event, now)) throw notTransactable(`event ${event.id} is not on sale`);
    if (inMaintenance(this.deps.settings.maintenance, now, event.timezone)) throw maintenance();
  }

  #inWindow(cart: Cart): void {
    if (inMaintenance(this.deps.settings.maintenance, this.deps.clock.now(), cart.timezone))
      throw maintenance();
  }

  #assertHeld(cart: Cart, now: Date): void {
    if (isExpired(cart, now)) throw staleCart(`the hold of cart ${cart.id} has expired`);
  }

  async #owned(owner: CartOwner, cartId: string, eventId?: string): Promise<Stored<Cart>> {
    const cart = cartId ? await this.deps.carts.get(cartId) : undefined;
    if (!cart || !ownedBy(owner, cart, eventId)) throw cartNotFound(cartId);
    return cart;
  }

  /**
   * Read, change, compare-and-set in one store call, retried when other writers kept winning.
   * `change` returning `undefined` writes nothing (resolves the current record). `events` are
   * written with the state.
   */
  async #mutate(
    cartId: string,
    change: (cart: Stored<Cart>) => Cart | undefined,
    events?: (before: Cart, after: Cart) => CartEvent[],
  ): Promise<Stored<Cart> | undefined> {
    return retryingConflicts(() =>
      this.deps.carts.modify(
        cartId,
        (current) => {
          const next = change(current);
          return next && this.#withSweepAt(next);
        },
        events,
      ),
    );
  }
}

/** A release's event: a partner booking released (not a sandbox or resale cart's). */
function bookingReleased(before: Cart, after: Cart): CartEvent[] {
  return after.status === 'RELEASED' &&
    before.status !== 'RELEASED' &&
    !after.sandbox &&
    after.inventoryToken
    ? [{ type: 'booking-released', cart: after }]
    : [];
}

/** Whether the caller may see the cart: its app, prefix, channel, fan and (if named) event. */
function ownedBy(owner: CartOwner, cart: Cart, eventId?: string): boolean {
  return (
    cart.appId === owner.appId &&
    cart.sandbox === owner.sandbox &&
    (owner.channel === undefined || cart.channel === owner.channel) &&
    (owner.fanId === undefined || cart.fanId === owner.fanId) &&
    (eventId === undefined || eventId === '' || cart.eventId === eventId)
  );
}

function withoutVersion<T extends object>(doc: T): Omit<T, 'version'> & T {
  const { version: _version, ...rest } = doc as T & { version?: number };
  return rest as Omit<T, 'version'> & T;
}

/** Sandbox areas: the event's last known areas, or one general-admission area per price level. */
export function sandboxAreas(event: SellableEvent): SellableArea[] {
  if (event.areas.length > 0) return event.areas;
  return event.priceLevels.map((level) => ({
    areaId: `SANDBOX-${level.id}`,
    levelId: '',
    sectionId: '',
    priceLevelId: level.id,
    generalAdmission: true,
    available: 0,
    unavailable: 0,
  }));
}
