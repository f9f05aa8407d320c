import { parseDecimal } from '@marquee/platform/money';
import type {
  BillingInput,
  CartApp,
  CartOwner,
  CartView,
  CommitResult,
  ReserveRequestInput,
  ReserveTicketInput,
} from '../../app/index.js';
import type { SecretBox } from '../../app/ports.js';
import { CartError, ErrorCode } from '../../domain/errors.js';
import type { FeeSchedule } from '../../domain/pricing.js';
import {
  isPartnerEvent,
  type EventReader,
  type SellableEvent,
} from '../../domain/sellable-event.js';
import { commerceDeliveries, type CommerceDelivery } from '../domain/deliveries.js';
import { buildOffers, type BuiltOffer, type EventOffers } from '../domain/offers.js';
import { parseOfferId } from '../../domain/offer-ids.js';

/**
 * 3p-connector's VerifyAccessCode: the price types of an event a password opens. The access codes
 * never leave the connector; cart only learns which types a given password opens.
 */
export interface AccessCodes {
  priceTypesOpenedBy(eventId: string, code: string): Promise<string[]>;
}

/**
 * Counts presale passwords that open nothing and refuses guessing (README, "Presale passwords"):
 * `check` throws the refusal when a counter of the caller is at its limit.
 */
export interface PasswordAttempts {
  check(who: { appId: string; fanId: string }, eventId: string): Promise<void>;
  failed(who: { appId: string; fanId: string }, eventId: string, failures: number): Promise<void>;
}

/** A product of a create or a change (commerce create body `products[]`). */
export interface ProductInput {
  product: string;
  eventId: string;
  /** Tickets of the best offer, when no offers are named. */
  qty: number;
  offers: { offer: string; qty: number; password: string }[];
  areaIds: string[];
  /** Decimal strings in the event's currency (`''` = none), else minor units (0 = none). */
  minPrice: string;
  maxPrice: string;
  minPriceMinor: number;
  maxPriceMinor: number;
}

export interface ProductChange {
  op: 'add' | 'remove';
  product: ProductInput;
}

/** Who is calling a shopping use case: the app and the signed-in fan. */
export interface Shopper {
  appId: string;
  fanId: string;
  /** The app's held-ticket quota as the edge read it with the key; absent: cart's default. */
  heldTicketsPerEvent?: number;
}

export interface ShoppingCartView {
  view: CartView;
  event: SellableEvent | undefined;
  /** The offers of the cart's tickets. */
  offers: BuiltOffer[];
}

/** Passwords tried per request at most (each one is a VerifyAccessCode call). */
const MAX_PASSWORDS = 5;

const invalid = (message: string, field: string) =>
  new CartError('invalid_argument', ErrorCode.INVALID_INPUT, message, { field });

/** One (price type, price level) of a cart's contents, with its quantity and password. */
interface Content {
  priceTypeId: string;
  priceLevelId: string;
  quantity: number;
  accessCode: string;
  areaIds: string[];
}

const contentKey = (c: { priceTypeId: string; priceLevelId: string }) =>
  `${c.priceTypeId}\u0000${c.priceLevelId}`;

/**
 * The commerce API's use cases over cart's application (`CartApp`): offers built from the event
 * projection, and shopping carts that are cart's carts of channel `commerce` owned by an app and a
 * fan. No second cart engine: holds, payment, commit, expiry and release are CartApp's.
 */
export class CommerceApp {
  constructor(
    private readonly deps: {
      carts: CartApp;
      events: EventReader;
      accessCodes: AccessCodes;
      /** Opens the passwords cart keeps (sealed) with a cart's requests, to hold them again. */
      secrets: SecretBox;
      fees: FeeSchedule;
      clock: { now(): Date };
      /** Counts passwords that open nothing and refuses guessing (README, "Presale passwords"). */
      throttle: PasswordAttempts;
    },
  ) {}

  // ------------------------------------------------------------------------------------------
  // Offers

  async offers(input: {
    shopper: Shopper;
    eventId: string;
    passwords: readonly string[];
  }): Promise<{
    event: SellableEvent;
    offers: EventOffers;
  }> {
    const event = await this.#sellable(input.eventId);
    const unlocked = await this.#unlock(input.shopper, event, input.passwords);
    return {
      event,
      offers: buildOffers({ event, fees: this.deps.fees, unlocked, now: this.deps.clock.now() }),
    };
  }

  /**
   * The protected price types the passwords open (no call when the event has none). Passwords that
   * open none of them count against the caller's throttle, which is checked first.
   */
  async #unlock(
    shopper: Shopper,
    event: SellableEvent,
    passwords: readonly string[],
  ): Promise<Set<string>> {
    const protectedTypes = new Set(
      event.priceTypes.filter((t) => t.accessCodeRequired).map((t) => t.id),
    );
    const unlocked = new Set<string>();
    if (protectedTypes.size === 0) return unlocked;
    const distinct = [...new Set(passwords.filter((p) => p.length > 0))];
    if (distinct.length > MAX_PASSWORDS)
      throw invalid(`at most ${MAX_PASSWORDS} passwords per request`, 'passwords');
    if (distinct.length === 0) return unlocked;
    await this.deps.throttle.check(shopper, event.id);
    let failures = 0;
    for (const code of distinct) {
      const opened = (await this.deps.accessCodes.priceTypesOpenedBy(event.id, code)).filter((id) =>
        protectedTypes.has(id),
      );
      if (opened.length === 0) failures += 1;
      for (const id of opened) unlocked.add(id);
    }
    await this.deps.throttle.failed(shopper, event.id, failures);
    return unlocked;
  }

  async #sellable(eventId: string): Promise<SellableEvent> {
    const event = eventId ? await this.deps.events.get(eventId) : undefined;
    if (!event || !isPartnerEvent(event))
      throw new CartError(
        'not_found',
        ErrorCode.NOT_TRANSACTABLE,
        `no offers for event ${eventId}`,
        {
          event_id: eventId,
        },
      );
    return event;
  }

  // ------------------------------------------------------------------------------------------
  // Shopping

  #owner(shopper: Shopper): CartOwner {
    if (!shopper.appId || !shopper.fanId)
      throw new CartError(
        'unauthenticated',
        ErrorCode.INVALID_INPUT,
        'a signed-in fan is required',
      );
    return {
      appId: shopper.appId,
      fanId: shopper.fanId,
      sandbox: false,
      channel: 'commerce',
      ...(shopper.heldTicketsPerEvent !== undefined
        ? { heldTicketsPerEvent: shopper.heldTicketsPerEvent }
        : {}),
    };
  }

  /** Creates a cart of the fan and holds its products (one event per cart). */
  async create(shopper: Shopper, products: readonly ProductInput[]): Promise<ShoppingCartView> {
    const owner = this.#owner(shopper);
    const eventId = this.#eventOf(products);
    const event = await this.#sellable(eventId);
    const contents = new Map<string, Content>();
    for (const product of products) await this.#add(shopper, contents, event, product);
    return this.#reserve(owner, event, [...contents.values()]);
  }

  async get(shopper: Shopper, cartId: string): Promise<ShoppingCartView> {
    return this.#shaped(await this.deps.carts.get(this.#owner(shopper), cartId));
  }

  async release(shopper: Shopper, cartId: string): Promise<void> {
    await this.deps.carts.release(this.#owner(shopper), cartId);
  }

  /**
   * Applies `add` / `remove` changes to the cart's contents and holds the result as a new cart;
   * the old cart is released (reason `replaced`) once the new one is reserved. The answer is the
   * new cart: its id is the one to use from then on.
   */
  async updateProducts(
    shopper: Shopper,
    cartId: string,
    changes: readonly ProductChange[],
  ): Promise<ShoppingCartView> {
    const owner = this.#owner(shopper);
    if (changes.length === 0) throw invalid('at least one product change is required', 'products');
    const { cart } = await this.deps.carts.get(owner, cartId);
    if (cart.status !== 'HELD')
      throw new CartError(
        'failed_precondition',
        ErrorCode.INVALID_CART,
        `cart ${cart.id} is ${cart.status}: only a held cart without payment can change`,
        { status: cart.status },
      );
    this.#eventOf(
      changes.map((c) => c.product),
      cart.eventId,
    );
    const event = await this.#sellable(cart.eventId);
    const contents = new Map<string, Content>();
    for (const request of cart.requests) {
      for (const ticket of request.tickets) {
        const content: Content = {
          priceTypeId: ticket.priceTypeId,
          priceLevelId: ticket.priceLevelId,
          quantity: ticket.quantity,
          accessCode: ticket.accessCodeSealed
            ? this.deps.secrets.open(ticket.accessCodeSealed)
            : '',
          areaIds: request.areaIds,
        };
        const held = contents.get(contentKey(content));
        if (held) held.quantity += content.quantity;
        else contents.set(contentKey(content), content);
      }
    }
    for (const change of changes) {
      if (change.op === 'add') await this.#add(shopper, contents, event, change.product);
      else this.#remove(contents, change.product);
    }
    const remaining = [...contents.values()].filter((c) => c.quantity > 0);
    if (remaining.length === 0)
      throw invalid('the change would leave the cart empty: delete the cart instead', 'products');
    const replaced = await this.#reserve(owner, event, remaining);
    await this.deps.carts.release(owner, cart.id, undefined, 'replaced');
    return replaced;
  }

  async selectDelivery(
    shopper: Shopper,
    cartId: string,
    deliveryId: string,
  ): Promise<ShoppingCartView> {
    if (!deliveryId) throw invalid('a delivery id is required', 'deliveries');
    return this.#shaped(
      await this.deps.carts.selectShipping(this.#owner(shopper), cartId, deliveryId),
    );
  }

  async addPayment(
    shopper: Shopper,
    cartId: string,
    billing: BillingInput,
  ): Promise<ShoppingCartView> {
    return this.#shaped(await this.deps.carts.addPayment(this.#owner(shopper), cartId, billing));
  }

  /** Commits a paid cart; a retry (or a purchased cart) answers the same order and token. */
  async purchase(
    shopper: Shopper,
    cartId: string,
  ): Promise<{ cart: ShoppingCartView; result: CommitResult }> {
    const result = await this.deps.carts.commit(this.#owner(shopper), cartId);
    return { cart: await this.#shaped(result.view), result };
  }

  /** Deliveries of a cart of the app (any of its fans: the checkout read needs no fan). */
  async deliveries(
    appId: string,
    cartId: string,
  ): Promise<{ currency: string; deliveries: CommerceDelivery[] }> {
    const owner: CartOwner = { appId, sandbox: false, channel: 'commerce' };
    const view = await this.deps.carts.get(owner, cartId);
    const options = await this.deps.carts.shippingOptions(owner, cartId, '');
    return {
      currency: view.cart.currency,
      deliveries: commerceDeliveries({
        options,
        eventCountry: view.cart.countryCode,
        selectedId: view.cart.delivery?.id,
      }),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Helpers

  /** The one event of the products (`product` is the event id of a ticket product). */
  #eventOf(products: readonly ProductInput[], expected?: string): string {
    if (products.length === 0) throw invalid('at least one product is required', 'products');
    let eventId = expected;
    for (const p of products) {
      if (p.eventId && p.eventId !== p.product)
        throw invalid(`product ${p.product} is not event ${p.eventId}`, 'products.event');
      if (eventId !== undefined && p.product !== eventId)
        throw invalid('a cart holds tickets of one event', 'products.product');
      eventId = p.product;
    }
    return eventId!;
  }

  async #add(
    shopper: Shopper,
    contents: Map<string, Content>,
    event: SellableEvent,
    product: ProductInput,
  ) {
    const bounds = this.#priceBounds(event, product);
    const within = (o: BuiltOffer) =>
      (bounds.min === undefined || o.faceValueMinor >= bounds.min) &&
      (bounds.max === undefined || o.faceValueMinor <= bounds.max);
    const passwords = product.offers.map((o) => o.password).filter((p) => p !== '');
    const unlocked = await this.#unlock(shopper, event, passwords);
    const built = buildOffers({
      event,
      fees: this.deps.fees,
      unlocked,
      now: this.deps.clock.now(),
    });
    const addContent = (offer: BuiltOffer, quantity: number, accessCode: string) => {
      const key = contentKey(offer);
      const held = contents.get(key);
      if (held) {
        held.quantity += quantity;
        if (accessCode) held.accessCode = accessCode;
        if (product.areaIds.length > 0) held.areaIds = product.areaIds;
      } else
        contents.set(key, {
          priceTypeId: offer.priceTypeId,
          priceLevelId: offer.priceLevelId,
          quantity,
          accessCode,
          areaIds: product.areaIds,
        });
    };
    if (product.offers.length === 0) {
      if (product.qty < 1) throw invalid('qty or offers[] is required', 'products.qty');
      // The best offer: the cheapest public one within the filters with enough tickets left.
      const best = built.offers
        .filter((o) => !o.protected && within(o))
        .filter((o) => o.limit.sellableQty >= product.qty)
        .filter(
          (o) => product.areaIds.length === 0 || o.areaIds.some((a) => product.areaIds.includes(a)),
        )
        .sort((a, b) => a.faceValueMinor - b.faceValueMinor || a.rank - b.rank)[0];
      if (!best)
        throw new CartError(
          'resource_exhausted',
          ErrorCode.NO_INVENTORY,
          `no offer of event ${event.id} has ${product.qty} tickets within the filters`,
        );
      addContent(best, product.qty, '');
    } else {
      for (const wanted of product.offers) {
        const ids = parseOfferId(wanted.offer);
        const offer = ids && built.offers.find((o) => o.id === wanted.offer);
        if (!offer) {
          const type = ids && event.priceTypes.find((t) => t.id === ids.priceTypeId);
          if (type?.accessCodeRequired)
            throw new CartError(
              'permission_denied',
              ErrorCode.INVALID_INPUT,
              `offer ${wanted.offer} needs its password`,
              { field: 'products.offers.password' },
            );
          throw invalid(`unknown offer ${wanted.offer} for event ${event.id}`, 'products.offers');
        }
        if (!within(offer))
          throw invalid(`offer ${offer.id} is outside the price filters`, 'products.offers');
        if (wanted.qty < 1) throw invalid('qty must be at least 1', 'products.offers.qty');
        addContent(offer, wanted.qty, offer.protected ? wanted.password : '');
      }
    }
    const total = [...contents.values()].reduce((s, c) => s + c.quantity, 0);
    if (total > built.limitMax)
      throw invalid(`at most ${built.limitMax} tickets per purchase`, 'products.qty');
  }

  #remove(contents: Map<string, Content>, product: ProductInput) {
    if (product.offers.length === 0) {
      contents.clear();
      return;
    }
    for (const wanted of product.offers) {
      const ids = parseOfferId(wanted.offer);
      const held = ids && contents.get(contentKey(ids));
      if (!held) throw invalid(`offer ${wanted.offer} is not in the cart`, 'products.offers');
      held.quantity = Math.max(0, held.quantity - wanted.qty);
    }
  }

  #priceBounds(event: SellableEvent, product: ProductInput): { min?: number; max?: number } {
    const bound = (decimal: string, minor: number, field: string) => {
      if (decimal) {
        const value = parseDecimal(decimal, event.currency);
        if (value === undefined)
          throw invalid(
            `${field} is not an amount in ${event.currency}`,
            `products.filters.${field}`,
          );
        return value;
      }
      return minor > 0 ? minor : undefined;
    };
    const min = bound(product.minPrice, product.minPriceMinor, 'minPrice');
    const max = bound(product.maxPrice, product.maxPriceMinor, 'maxPrice');
    if (min !== undefined && max !== undefined && min > max)
      throw invalid('minPrice is above maxPrice', 'products.filters');
    return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
  }

  async #reserve(
    owner: CartOwner,
    event: SellableEvent,
    contents: readonly Content[],
  ): Promise<ShoppingCartView> {
    // One reserve per distinct area filter (cart's reserves carry one area list each).
    const byAreas = new Map<string, ReserveRequestInput>();
    for (const c of contents) {
      const key = [...c.areaIds].sort().join(',');
      const ticket: ReserveTicketInput = {
        priceTypeId: c.priceTypeId,
        priceLevelId: c.priceLevelId,
        quantity: c.quantity,
        ...(c.accessCode ? { accessCode: c.accessCode } : {}),
      };
      const request = byAreas.get(key);
      if (request) request.tickets.push(ticket);
      else byAreas.set(key, { tickets: [ticket], areaIds: c.areaIds, acceptBestAvailable: true });
    }
    const view = await this.deps.carts.withReserveSlot(() =>
      this.deps.carts.reserve({
        owner: { ...owner, channel: 'commerce' },
        eventId: event.id,
        requests: [...byAreas.values()],
      }),
    );
    return this.#shaped(view, event);
  }

  /** The view with its event and the offers of its tickets (and of what it asked for). */
  async #shaped(view: CartView, known?: SellableEvent): Promise<ShoppingCartView> {
    const event = known ?? (await this.deps.events.get(view.cart.eventId));
    const offers: BuiltOffer[] = [];
    if (event) {
      const wanted = new Set(
        [...view.cart.tickets, ...view.cart.requests.flatMap((r) => r.tickets)].map((t) =>
          contentKey(t),
        ),
      );
      // Every type counts as unlocked here: the cart already holds (or asked for) these tickets.
      const all = new Set(event.priceTypes.map((t) => t.id));
      const built = buildOffers({
        event,
        fees: this.deps.fees,
        unlocked: all,
        now: this.deps.clock.now(),
      });
      offers.push(...built.offers.filter((o) => wanted.has(contentKey(o))));
    }
    return { view, event, offers };
  }
}
