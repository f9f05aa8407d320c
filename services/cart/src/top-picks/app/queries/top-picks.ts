import { isWriteRace, retryingConflicts, withoutVersion } from '@marquee/platform/kernel';
import { parseDecimalRounded, type Money } from '@marquee/platform/money';
import { invalid, notFound } from '../../domain/errors.js';
import {
  SESSION_ID_PATTERN,
  recordShownPrices,
  resolveSession,
  type FanSession,
  type SessionOutcome,
} from '../../domain/fan-session.js';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_QUANTITY,
  MAX_PAGE_SIZE,
  buildPicks,
  paginate,
  resaleOffers,
  type PicksEvent,
  type PicksQuery,
} from '../../domain/picks.js';
import type { Stored } from '../ports.js';
import type { TopPicksDeps, TopPicksRequest, TopPicksResult } from '../types.js';

/** Tickets per pick at most when the event gives no limit. */
export const MAX_QUANTITY = 50;

/**
 * The top picks of an event for a query: the fan session opened (or renewed), the event's seats
 * and its resale listings ranked and paged, and the resale prices shown recorded on the session.
 */
export class GetTopPicks {
  constructor(private readonly deps: TopPicksDeps) {}

  async handle(request: TopPicksRequest): Promise<TopPicksResult> {
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
}
