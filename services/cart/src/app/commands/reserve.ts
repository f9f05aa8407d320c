import { fail, hold, type Cart } from '../../domain/cart.js';
import { CartError, ErrorCode, invalidInput } from '../../domain/errors.js';
import {
  resolvePriceLevels,
  validateReserves,
  type Reserve,
  type ReserveTicket,
} from '../../domain/reserve.js';
import { isEventId, type SellableEvent } from '../../domain/sellable-event.js';
import type { CartCore } from '../core/cart-core.js';
import { BuyerLimit } from '../core/buyer-limit.js';
import type { HoldLimit } from '../core/hold-limit.js';
import { failureError } from '../core/refusals.js';
import type { ReserveAdmission } from '../core/reserve-admission.js';
import type { Inventories } from '../inventory/inventory.js';
import { resaleLinesOf, type ResaleInventory } from '../inventory/resale.js';
import type { Stored } from '../ports.js';
import type { CartView, ReserveInput, ReserveRequestInput } from '../types.js';
import type { CompleteReserve } from './complete-reserve.js';
import type { SettleCart } from './settle.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The id of the cart a claimed Idempotency-Key makes: the claim's hex digest laid out as a version
 * 4 UUID (the shape of every cart id), so the key's retry finds the cart by id.
 */
export function claimedCartId(claimId: string): string {
  const h = claimId.slice(0, 32);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Reserves tickets into a new cart. Waits up to `reserveWaitMs` from the request's start (its wait
 * for a reserve place and the store's own slowness under a rush included, so the answer stays well
 * within the caller's deadline) for the partner; answers the held
 * cart, or a PENDING one that completes in the background. A reserve the partner refuses within
 * the wait is thrown (RESOURCE_EXHAUSTED 20052, ...); one refused later leaves the cart FAILED
 * with its code. A resale reserve holds its listing at once and answers HELD.
 */
export class ReserveTickets {
  readonly #buyerLimit: BuyerLimit;

  constructor(
    private readonly core: CartCore,
    private readonly inventories: Inventories,
    private readonly resale: ResaleInventory,
    private readonly admission: ReserveAdmission,
    private readonly complete: CompleteReserve,
    private readonly holdLimit: HoldLimit,
    private readonly settle: SettleCart,
  ) {
    this.#buyerLimit = new BuyerLimit(core.deps.carts, core.deps.orders);
  }

  async handle(input: ReserveInput): Promise<CartView> {
    const { deps } = this.core;
    const started = this.core.now().getTime() - (input.waitedMs ?? 0);
    if (!isEventId(input.eventId))
      throw invalidInput('event id must be 15 letters or digits', 'event_id');
    const event = await this.core.event(input.eventId);
    const now = this.core.now();
    this.core.assertTransactable(event, now);
    const requests = resolvePriceLevels(
      input.requests.map((r) => this.#toReserve(r)),
      event,
    );
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
      this.admission.refuseIfSoldOut(event.id, requests);
    const hit = await deps.tracking.latest(
      input.owner.appId,
      event.id,
      new Date(now.getTime() - deps.settings.trackingWindowMs),
    );
    const cart: Cart = {
      id: input.claim ? claimedCartId(input.claim.id) : deps.ids.cartId(),
      ...(input.claim ? { requestDigest: input.claim.requestHash } : {}),
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
    const limit = this.holdLimit.limitOf(input.owner);
    if (resaleLines.length > 0)
      return this.#reserveResale(cart, event, resaleLines, input.fanSessionId ?? '', limit);
    return this.#reserveHeld(cart, event, input.forceAsync === true, limit, started);
  }

  /**
   * A partner or sandbox reserve. The first attempt is claimed by the insert itself, its lines
   * planned before it: one write fewer than inserting and then claiming. Lines that cannot be
   * planned now (live seats the partner does not answer, say) leave the cart unclaimed, and the
   * attempt plans them as a retry does, failing the cart with the reason when it must.
   */
  async #reserveHeld(
    cart: Cart,
    event: SellableEvent,
    forceAsync: boolean,
    limit: number,
    started: number,
  ): Promise<CartView> {
    const { deps } = this.core;
    const now = this.core.now();
    const lines = await this.inventories
      .of(cart)
      .planLines(cart, event)
      .catch(() => null);
    const claimed: Cart =
      lines === null
        ? cart
        : { ...cart, reserveAttempts: 1, reserveStartedAt: now, ...(lines ? { lines } : {}) };
    const inserted = await deps.carts.insert(this.core.withSweepAt(claimed));
    await this.#refuseOverLimit(inserted, limit, event);
    let last: Stored<Cart> | undefined;
    const work = this.core.track(cart.id, async () => {
      last = await this.complete.handle(cart, lines === null ? undefined : inserted);
    });
    if (forceAsync) return this.core.view(cart);
    const settled = await Promise.race([
      work.then(() => true),
      sleep(Math.max(0, deps.settings.reserveWaitMs - (this.core.now().getTime() - started))).then(
        () => false,
      ),
    ]);
    // Answered PENDING: the reserve goes on without its request and keeps its place.
    if (!settled) this.admission.keepPlaceUntil(work);
    // A settled reserve answers with the state it wrote last, a pending one as inserted (the
    // client polls), both without reading it back.
    const current = settled ? (last ?? (await deps.carts.get(cart.id)) ?? cart) : inserted;
    if (settled && current.status === 'FAILED' && current.failure)
      throw failureError(current.failure);
    return this.core.view(current);
  }

  /**
   * A resale reserve: the listing is held by the resale inventory (the partner sold its tickets
   * already), at the price of the live fan session, and the cart is written HELD at once. No
   * partner booking, so no `booking-held`; the inventory token stays empty.
   */
  async #reserveResale(
    cart: Cart,
    event: SellableEvent,
    lines: { listingId: string; quantity: number }[],
    fanSessionId: string,
    limit: number,
  ): Promise<CartView> {
    const resale = this.resale;
    if (!resale.available || cart.sandbox)
      throw invalidInput('resale listings are not sold on this prefix', 'tickets');
    // A retry of a claimed key is answered from its cart before its listings are asked for again.
    if (cart.requestDigest && (await this.core.deps.carts.get(cart.id)))
      throw new CartError('already_exists', ErrorCode.INVALID_CART, `cart ${cart.id} exists`);
    const booking = await resale.hold(cart, lines, fanSessionId, this.core.deps.settings.fees);
    const written = hold(cart, booking, this.core.now());
    let inserted: Cart;
    try {
      inserted = await this.core.deps.carts.insert(this.core.withSweepAt(written));
    } catch (error) {
      // A claimed id already taken is the key's first reserve: the hold under that id is its own.
      if (!(cart.requestDigest && (error as { kind?: unknown }).kind === 'already_exists'))
        await resale.release(cart).catch(() => undefined);
      throw error;
    }
    await this.#refuseOverLimit(inserted, limit, event);
    return this.core.view(inserted);
  }

  /**
   * Refuses a cart just written when its app is over its held-ticket quota with it, or its fan
   * over the event's ticket limit per buyer: the cart is written FAILED with the refusal (it stops
   * counting, and what it holds is given back) before anything more is asked of the inventory.
   */
  async #refuseOverLimit(cart: Cart, limit: number, event: SellableEvent): Promise<void> {
    const refusal =
      (await this.holdLimit.refusalOf(cart, limit)) ??
      (cart.fanId
        ? await this.#buyerLimit.refusalOf(cart, { fanId: cart.fanId }, event)
        : undefined);
    if (!refusal) return;
    const now = this.core.now();
    const failed = await this.core.mutate(cart.id, (current) =>
      current.status === 'PENDING' || current.status === 'HELD'
        ? fail(current, { code: refusal.code, message: refusal.message }, now)
        : undefined,
    );
    if (failed?.releaseOwed) await this.settle.handle(cart.id, failed);
    throw refusal;
  }

  #toReserve(input: ReserveRequestInput): Reserve {
    const tickets: ReserveTicket[] = input.tickets.map((t) => ({
      priceTypeId: t.priceTypeId,
      quantity: t.quantity,
      priceLevelId: t.priceLevelId ?? '',
      ...(t.accessCode ? { accessCodeSealed: this.core.deps.secrets.seal(t.accessCode) } : {}),
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
}
