import {
  SESSION_ID_PATTERN,
  priceForFan,
  recordShownPrices,
  resolveSession,
  type FanSession,
  type SessionOutcome,
} from '../domain/fan-session.js';
import { TopPicksError, invalid, notFound, precondition, unavailable } from '../domain/errors.js';
import { EraseFanResale, type FanResaleErased } from './erase-fan.js';
import type {
  HeldListing,
  NewListing,
  ResoldTicket,
  TopPicksDeps,
  TopPicksRequest,
  TopPicksResult,
} from './types.js';
import {
  effectiveState,
  eventOfListing,
  hold,
  isListingId,
  keepForSale,
  release,
  sell,
  withdraw,
  withdrawAdmitted,
  type ResaleListing,
} from '../domain/listing.js';
import {
  errorKindOf,
  isWriteRace,
  retryingConflicts,
  withoutVersion,
} from '@marquee/platform/kernel';
import { parseDecimalRounded, type Money } from '@marquee/platform/money';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_QUANTITY,
  MAX_PAGE_SIZE,
  buildPicks,
  listingLocation,
  paginate,
  resaleOffers,
  type PicksEvent,
  type PicksQuery,
} from '../domain/picks.js';
import type { Stored, TicketOwnership } from './ports.js';

export type {
  HeldListing,
  NewListing,
  ResoldTicket,
  TopPicksDeps,
  TopPicksRequest,
  TopPicksResult,
} from './types.js';

/** Tickets per pick at most when the event gives no limit. */
export const MAX_QUANTITY = 50;
/** Tickets per listing at most. */
export const MAX_LISTING_TICKETS = 50;
/** How long a sale in progress keeps its listings out of other carts' reach. */
const SALE_GRACE_MS = 10 * 60_000;

/**
 * Top picks, fan sessions and resale listings. Every write is a compare-and-set on one document;
 * several-document changes (claiming the tickets of a listing, holding several listings) undo what they
 * did when a later step fails, and a half-done change left by a crash is harmless (a claim whose
 * listing does not exist or is no longer on sale counts as no claim).
 */
export class TopPicksApp {
  readonly #eraseFan: EraseFanResale;

  constructor(private readonly deps: TopPicksDeps) {
    this.#eraseFan = new EraseFanResale(deps);
  }

  /**
   * A deleted fan's part in resale: the open listings of the fan's orders `orderIds` withdrawn,
   * their seller notes and the fan's ticket ownership blanked (`EraseFanResale`). Idempotent.
   */
  eraseFan(fanId: string, orderIds: readonly string[]): Promise<FanResaleErased> {
    return this.#eraseFan.handle(fanId, orderIds);
  }

  // ---------------------------------------------------------------- top picks

  async getTopPicks(request: TopPicksRequest): Promise<TopPicksResult> {
    const now = this.deps.clock.now();
    const event = await this.deps.events.get(request.eventId);
    if (!event) throw notFound(`event ${request.eventId} is not sold through the platform`);
    const query = this.parseQuery(request, event);
    const page = request.page || 1;
    const size = request.size || DEFAULT_PAGE_SIZE;
    if (page < 1) throw invalid('page starts at 1');
    if (size < 1 || size > MAX_PAGE_SIZE) throw invalid(`size must be 1 to ${MAX_PAGE_SIZE}`);

    const opened = await this.openSession(request.appId, request.fanSessionId, now);
    const outcome = opened.outcome;
    let session = opened.session;
    const withSeats = await this.withLiveSeats(event);
    const listings = query.includeResale ? await this.deps.listings.findActive(event.id) : [];
    const resale = resaleOffers(listings, { session, now, chargesFor: event.chargesFor });
    const picks = paginate(buildPicks(withSeats, resale, query, now), page, size);

    // The resale prices shown on this page are the ones a reserve under this session pays.
    const shownKeys = new Set(
      picks.items.filter((p) => p.selection === 'resale').map((p) => p.key),
    );
    const shown = resale
      .filter((r) => shownKeys.has(r.listing.id))
      .map((r) => ({ key: r.listing.id, ...r.price }));
    session = await this.recordPrices(session, shown, now);

    return { session, outcome, picks, event, resale, includeResale: query.includeResale, now };
  }

  private parseQuery(request: TopPicksRequest, event: PicksEvent): PicksQuery {
    const quantity = request.quantity || DEFAULT_QUANTITY;
    const max = event.ticketLimit > 0 ? event.ticketLimit : MAX_QUANTITY;
    if (quantity < 1 || quantity > max) throw invalid(`quantity must be 1 to ${max}`);
    const bound = (text: string, name: string) => {
      if (!text) return undefined;
      const minor = parseDecimalRounded(text, event.currency);
      if (minor === undefined) throw invalid(`${name} must be a non-negative decimal amount`);
      return minor;
    };
    const priceMin = bound(request.priceMin, 'the minimum price');
    const priceMax = bound(request.priceMax, 'the maximum price');
    if (priceMin !== undefined && priceMax !== undefined && priceMin > priceMax)
      throw invalid('prices: the minimum is above the maximum');
    return {
      quantity,
      ...(request.ticketTypeId ? { ticketTypeId: request.ticketTypeId } : {}),
      priceLevelIds: request.priceLevelIds,
      areaIds: request.areaIds,
      sections: request.sections,
      ...(priceMin !== undefined ? { priceMin } : {}),
      ...(priceMax !== undefined ? { priceMax } : {}),
      includeResale: request.includeResale,
    };
  }

  /**
   * The session of the request: an absent, ill-formed, unknown or other app's id gets a new session
   * with a fresh id; a live one is returned; an expired one is renewed under its id.
   */
  private async openSession(
    appId: string,
    presentedId: string,
    now: Date,
  ): Promise<{ session: Stored<FanSession>; outcome: SessionOutcome }> {
    return retryingConflicts(
      async () => {
        const stored =
          presentedId && SESSION_ID_PATTERN.test(presentedId)
            ? await this.deps.sessions.get(presentedId)
            : undefined;
        const presented = stored && stored.appId === appId ? stored : undefined;
        const { session, outcome } = resolveSession(presented && withoutVersion(presented), {
          appId,
          now,
          ttlMs: this.deps.settings.sessionTtlMs,
          newId: () => this.deps.ids.sessionId(),
        });
        if (outcome === 'active') return { session: stored!, outcome };
        if (outcome === 'created')
          return { session: await this.deps.sessions.insert(session), outcome };
        return { session: await this.deps.sessions.update(session, stored!.version), outcome };
      },
      { isConflict: isWriteRace },
    );
  }

  private async recordPrices(
    session: Stored<FanSession>,
    prices: (Money & { key: string })[],
    now: Date,
  ): Promise<Stored<FanSession>> {
    let current = session;
    return retryingConflicts(
      async () => {
        const next = recordShownPrices(withoutVersion(current), prices, now);
        return next ? this.deps.sessions.update(next, current.version) : current;
      },
      {
        beforeRetry: async (error) => {
          const reread = await this.deps.sessions.get(current.id);
          if (!reread) throw error;
          current = reread;
        },
      },
    );
  }

  /** Fills in the seats of reserved areas the projection knows only by counts, when it can. */
  private async withLiveSeats(event: PicksEvent): Promise<PicksEvent> {
    const missing = event.areas.some((a) => !a.generalAdmission && a.seats === undefined);
    if (!missing || !this.deps.liveSeats) return event;
    try {
      const seats = await this.deps.liveSeats.availableSeats(event.id);
      return {
        ...event,
        areas: event.areas.map((a) =>
          a.generalAdmission || a.seats !== undefined || !seats.has(a.id)
            ? a
            : { ...a, seats: seats.get(a.id)!, available: seats.get(a.id)!.length },
        ),
      };
    } catch (error) {
      this.deps.log.warn(
        { err: error, eventId: event.id },
        'live seats unavailable; top picks from availability counts',
      );
      return event;
    }
  }

  // ---------------------------------------------------------------- listings (operators)

  async createListing(input: NewListing): Promise<ResaleListing> {
    const now = this.deps.clock.now();
    const ticketIds = [...new Set(input.ticketIds)];
    if (ticketIds.length === 0) throw invalid('ticketIds must name at least one ticket');
    if (ticketIds.length !== input.ticketIds.length) throw invalid('ticketIds repeats a ticket');
    if (ticketIds.length > MAX_LISTING_TICKETS)
      throw invalid(`a listing has at most ${MAX_LISTING_TICKETS} tickets`);
    if (!Number.isSafeInteger(input.price.amountMinor) || input.price.amountMinor <= 0)
      throw invalid('price.amount must be a positive integer of minor units');
    const order = await this.deps.orders.getOrder(input.orderId);
    if (!order) throw notFound(`order ${input.orderId} not found`);
    if (!order.confirmed) throw precondition(`order ${order.id} is not confirmed`);
    const tickets = ticketIds.map((id) => {
      const ticket = order.tickets.find((t) => t.ticketId === id);
      if (!ticket) throw precondition(`ticket ${id} is not a ticket of order ${order.id}`);
      return ticket;
    });
    const first = tickets[0]!;
    if (input.price.currency.toUpperCase() !== first.faceValue.currency.toUpperCase())
      throw invalid(`price.currency must be the event's currency ${first.faceValue.currency}`);
    if (tickets.some((t) => t.areaId !== first.areaId || t.row !== first.row))
      throw invalid('the tickets of a listing must be in one area and one row');
    await this.refuseAdmitted(order.eventId, ticketIds);

    const listing: ResaleListing = {
      id: `${order.eventId}.${this.deps.ids.listingKey()}`,
      eventId: order.eventId,
      orderId: order.id,
      ticketIds,
      price: { amountMinor: input.price.amountMinor, currency: first.faceValue.currency },
      faceValue: first.faceValue,
      areaId: first.areaId,
      section: first.section,
      row: first.row,
      seats: tickets
        .map((t) => t.seat)
        .filter((s) => s !== '')
        .sort(new Intl.Collator('en', { numeric: true }).compare),
      generalAdmission: first.generalAdmission,
      priceLevelId: first.priceLevelId,
      priceTypeId: first.priceTypeId,
      sellerAppId: order.appId,
      sellerNotes: input.sellerNotes,
      state: 'LISTED',
      createdAt: now,
      updatedAt: now,
    };
    const claimed: string[] = [];
    try {
      for (const ticketId of ticketIds) {
        await this.claimTicket(listing, ticketId, order, now);
        claimed.push(ticketId);
      }
      await this.deps.listings.insert(listing);
    } catch (error) {
      await Promise.allSettled(
        claimed.map((ticketId) => this.unclaimTicket(listing.eventId, ticketId, listing.id, now)),
      );
      throw error;
    }
    // A seat admitted while the listing was being made: `ticket-scanned` may have been handled
    // before the listing existed, so ask again now that it does, and take it off sale.
    try {
      await this.refuseAdmitted(order.eventId, ticketIds);
    } catch (error) {
      await this.withdrawForAdmission(listing.id, now);
      throw error;
    }
    return withoutVersion((await this.deps.listings.get(listing.id))!);
  }

  /** FAILED_PRECONDITION (409) when a gate has admitted any of these seats, under any owner. */
  private async refuseAdmitted(eventId: string, ticketIds: readonly string[]): Promise<void> {
    const admitted = await this.deps.admittedSeats.admitted(eventId, ticketIds);
    if (admitted.length > 0) {
      throw new TopPicksError(
        'failed_precondition',
        `ticket ${admitted.join(', ')} was admitted at a gate and cannot be resold`,
        'ticket_admitted',
      );
    }
  }

  /**
   * A gate admitted the seat of `ticketId` (from `ticket-scanned`): its live listing, if any, is
   * withdrawn, even while a cart holds it, so an admitted seat is never sold. Idempotent.
   */
  async seatAdmitted(eventId: string, ticketId: string): Promise<ResaleListing | undefined> {
    const owner = await this.deps.ownership.get(ownershipId(eventId, ticketId));
    if (!owner?.listingId) return undefined;
    return this.withdrawForAdmission(owner.listingId, this.deps.clock.now());
  }

  private async withdrawForAdmission(
    listingId: string,
    now: Date,
  ): Promise<ResaleListing | undefined> {
    const before = isListingId(listingId) ? await this.deps.listings.get(listingId) : undefined;
    if (!before) return undefined;
    const after = await this.changeListing(listingId, (l) => withdrawAdmitted(l, now));
    if (after.state !== 'WITHDRAWN') return undefined;
    await Promise.allSettled(
      after.ticketIds.map((t) => this.unclaimTicket(after.eventId, t, after.id, now)),
    );
    if (before.state !== 'WITHDRAWN') {
      this.deps.log.info(
        { listingId: after.id, eventId: after.eventId },
        'resale listing withdrawn: a gate admitted one of its seats',
      );
    }
    return after;
  }

  /** Makes `listing` the ticket's one claim; refuses a ticket held by another order or already listed. */
  private async claimTicket(
    listing: ResaleListing,
    ticketId: string,
    order: { id: string; appId: string; fanId: string; thirdPartyAccountId: string },
    now: Date,
  ): Promise<void> {
    const id = ownershipId(listing.eventId, ticketId);
    await retryingConflicts(
      async () => {
        const current = await this.deps.ownership.get(id);
        if (!current) {
          await this.deps.ownership.insert({
            id,
            eventId: listing.eventId,
            ticketId,
            orderId: order.id,
            ownerAppId: order.appId,
            ownerFanId: order.fanId,
            thirdPartyAccountId: order.thirdPartyAccountId,
            listingId: listing.id,
            previous: [],
            updatedAt: now,
          });
          return;
        }
        if (current.orderId !== order.id)
          throw precondition(`ticket ${ticketId} now belongs to order ${current.orderId}`);
        if (current.listingId && (await this.claimIsLive(current.listingId, now)))
          throw precondition(`ticket ${ticketId} is already listed (${current.listingId})`);
        await this.deps.ownership.update(
          { ...withoutVersion(current), listingId: listing.id, updatedAt: now },
          current.version,
        );
      },
      { isConflict: isWriteRace },
    );
  }

  /** A claim counts while its listing exists and is listed or held. */
  private async claimIsLive(listingId: string, now: Date): Promise<boolean> {
    const listing = await this.deps.listings.get(listingId);
    if (!listing) return false;
    const state = effectiveState(listing, now);
    return state === 'LISTED' || state === 'HELD';
  }

  private async unclaimTicket(
    eventId: string,
    ticketId: string,
    listingId: string,
    now: Date,
  ): Promise<void> {
    await this.updateOwnership(ownershipId(eventId, ticketId), (current) =>
      current.listingId === listingId ? { ...current, listingId: '', updatedAt: now } : undefined,
    );
  }

  private async updateOwnership(
    id: string,
    change: (current: TicketOwnership) => TicketOwnership | undefined,
  ): Promise<void> {
    await retryingConflicts(async () => {
      const current = await this.deps.ownership.get(id);
      if (!current) return;
      const next = change(withoutVersion(current));
      if (next) await this.deps.ownership.update(next, current.version);
    });
  }

  async listListings(query: {
    eventId: string;
    activeOnly: boolean;
    offset: number;
    limit: number;
  }): Promise<{ listings: ResaleListing[]; total: number }> {
    return this.deps.listings.list(query);
  }

  async getListing(id: string): Promise<ResaleListing> {
    const listing = isListingId(id) ? await this.deps.listings.get(id) : undefined;
    if (!listing) throw notFound(`resale listing ${id} not found`);
    return withoutVersion(listing);
  }

  async withdrawListing(id: string): Promise<ResaleListing> {
    const now = this.deps.clock.now();
    const result = await this.changeListing(id, (l) => withdraw(l, now));
    await Promise.allSettled(
      result.ticketIds.map((t) => this.unclaimTicket(result.eventId, t, result.id, now)),
    );
    return result;
  }

  /** Reads, applies `change` (undefined = nothing to write) and compare-and-sets, retrying races. */
  private async changeListing(
    id: string,
    change: (listing: ResaleListing) => ResaleListing | undefined,
  ): Promise<ResaleListing> {
    return retryingConflicts(async () => {
      const current = isListingId(id) ? await this.deps.listings.get(id) : undefined;
      if (!current) throw notFound(`resale listing ${id} not found`);
      const next = change(withoutVersion(current));
      if (!next) return withoutVersion(current);
      return withoutVersion(await this.deps.listings.update(next, current.version));
    });
  }

  // ---------------------------------------------------------------- resale inventory (cart)

  /**
   * Holds a listing for a cart for `resaleHoldMs`, at the price the fan sees under the live fan
   * session (`priceForFan`), or the asking price without one. One listing per reserve (an order
   * confirmed from it names one seller's order); the shape takes several so that can grow, all or
   * nothing. Unknown listing: INVALID_ARGUMENT; not on sale:
   * RESOURCE_EXHAUSTED (partner cart code 20052).
   */
  async holdListings(input: {
    cartId: string;
    appId: string;
    eventId: string;
    fanSessionId: string;
    lines: { listingId: string; quantity: number }[];
  }): Promise<{ listings: HeldListing[]; expiresAt: Date }> {
    const now = this.deps.clock.now();
    const holdUntil = new Date(now.getTime() + this.deps.settings.resaleHoldMs);
    const ids = input.lines.map((l) => l.listingId);
    if (ids.length !== 1)
      throw invalid('a resale reserve holds exactly one listing (tickets[] with its id)');
    const stored =
      input.fanSessionId && SESSION_ID_PATTERN.test(input.fanSessionId)
        ? await this.deps.sessions.get(input.fanSessionId)
        : undefined;
    const session = stored && stored.appId === input.appId ? stored : undefined;
    const held: HeldListing[] = [];
    try {
      for (const line of input.lines) {
        if (!isListingId(line.listingId) || eventOfListing(line.listingId) !== input.eventId)
          throw invalid(`${line.listingId} is not a resale listing of event ${input.eventId}`);
        const result = await this.changeListing(line.listingId, (listing) =>
          hold(listing, {
            cartId: input.cartId,
            until: holdUntil,
            price: priceForFan(session, listing.id, listing.price, now),
            quantity: line.quantity,
            now,
          }),
        ).catch((error: unknown) => {
          throw errorKindOf(error) === 'not_found'
            ? invalid(`${line.listingId} is not a resale listing of event ${input.eventId}`)
            : error;
        });
        held.push(toHeld(result));
      }
      return { listings: held, expiresAt: holdUntil };
    } catch (error) {
      await this.releaseListings(
        input.cartId,
        held.map((h) => h.listingId),
      ).catch(() => undefined);
      throw error;
    }
  }

  /** Gives the cart's listings back for sale; idempotent (listings the cart does not hold are left). */
  async releaseListings(cartId: string, listingIds: readonly string[]): Promise<void> {
    const now = this.deps.clock.now();
    for (const id of listingIds) {
      await this.changeListing(id, (l) => release(l, cartId, now)).catch((error: unknown) => {
        if (errorKindOf(error) !== 'not_found') throw error;
      });
    }
  }

  /**
   * Sells the cart's listings to the buyer's order and moves their tickets to it. Idempotent: a retried
   * commit with the same order id answers the same tickets. Returns every ticket with the order that
   * held it before, whose ticket is void from now on.
   */
  async sellListings(input: {
    cartId: string;
    orderId: string;
    buyer: { appId: string; fanId: string; thirdPartyAccountId: string };
    listingIds: readonly string[];
  }): Promise<ResoldTicket[]> {
    const now = this.deps.clock.now();
    // First make sure every listing is still the cart's and stays so while the sale runs (a hold that
    // ended but was not taken by anyone is extended); only then sell: a lost hold fails the commit
    // before anything is sold, and the second phase cannot fail on a race.
    const until = new Date(now.getTime() + SALE_GRACE_MS);
    for (const id of input.listingIds) {
      await this.changeListing(id, (l) =>
        keepForSale(l, { cartId: input.cartId, orderId: input.orderId, until, now }),
      ).catch((error: unknown) => {
        throw errorKindOf(error) === 'not_found'
          ? unavailable(`listing ${id} is no longer held by cart ${input.cartId}`)
          : error;
      });
    }
    const resold: ResoldTicket[] = [];
    for (const id of input.listingIds) {
      const listing = await this.changeListing(id, (l) =>
        sell(l, { cartId: input.cartId, orderId: input.orderId, now }),
      );
      for (const ticketId of listing.ticketIds) {
        const key = ownershipId(listing.eventId, ticketId);
        let previousOrderId = listing.orderId;
        await this.updateOwnership(key, (current) => {
          if (current.orderId === input.orderId) {
            previousOrderId =
              current.previous[current.previous.length - 1]?.orderId ?? listing.orderId;
            return undefined;
          }
          previousOrderId = current.orderId;
          return {
            ...current,
            orderId: input.orderId,
            ownerAppId: input.buyer.appId,
            ownerFanId: input.buyer.fanId,
            thirdPartyAccountId: input.buyer.thirdPartyAccountId,
            listingId: '',
            previous: [
              ...current.previous,
              { orderId: current.orderId, listingId: listing.id, until: now },
            ],
            updatedAt: now,
          };
        });
        resold.push({ ticketId, listingId: listing.id, previousOrderId });
      }
    }
    return resold;
  }

  /** Who holds a ticket now (the original order's buyer when it was never listed). */
  async ownerOf(eventId: string, ticketId: string): Promise<TicketOwnership | undefined> {
    const found = await this.deps.ownership.get(ownershipId(eventId, ticketId));
    return found && withoutVersion(found);
  }

  /** Deletes fan sessions expired for longer than `keepMs`. */
  async purgeSessions(keepMs: number, limit = 500): Promise<number> {
    return this.deps.sessions.purgeExpiredBefore(
      new Date(this.deps.clock.now().getTime() - keepMs),
      limit,
    );
  }
}

export const ownershipId = (eventId: string, ticketId: string): string => `${eventId}.${ticketId}`;

function toHeld(listing: ResaleListing): HeldListing {
  return {
    listingId: listing.id,
    quantity: listing.ticketIds.length,
    ticketIds: listing.ticketIds,
    areaId: listing.areaId,
    section: listing.section,
    row: listing.row,
    seats: listing.seats,
    generalAdmission: listing.generalAdmission,
    priceLevelId: listing.priceLevelId,
    priceTypeId: listing.priceTypeId,
    unitPrice: listing.holdPrice ?? listing.price,
    faceValue: listing.faceValue,
    sellerNotes: listing.sellerNotes,
    details: {
      location: listingLocation(listing),
      sellerNotes: listing.sellerNotes,
      originalFaceValueMinor: listing.faceValue.amountMinor,
      inHandDate: listing.createdAt.toISOString().slice(0, 10),
    },
  };
}

export { TopPicksError };
