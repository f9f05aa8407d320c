import type { Deal } from '../domain/deal.js';
import type { DealEvent } from '../domain/deal-event.js';
import {
  compareKeys,
  eventMatcher,
  SearchKey,
  type DealSearchCriteria,
  type DealSearchHit,
  type DealSearchResult,
} from '../domain/search.js';

/**
 * The in-memory deals search index (docs/decisions.md: search and geo live in the service, built
 * from its repository, because the Mongo-wire server of dev/CI has no geo or text indexes). Holds
 * every live event projection and every active deal; searches walk the events that carry at least
 * one active deal, kept sorted in result order, so a query is one filtered pass with no sort.
 */
export class DealSearchIndex {
  private readonly events = new Map<string, DealEvent>();
  /** Active deals by event id, then by deal id. */
  private readonly dealsByEvent = new Map<string, Map<string, Deal>>();
  private readonly eventOfDeal = new Map<string, string>();
  /** Events with a projection and at least one active deal, in result order; rebuilt lazily. */
  private sorted: SearchKey[] | undefined;

  putEvent(event: DealEvent): void {
    if (event.deleted) {
      this.removeEvent(event.id);
      return;
    }
    this.events.set(event.id, event);
    if (this.dealsByEvent.has(event.id)) this.sorted = undefined;
  }

  removeEvent(eventId: string): void {
    if (this.events.delete(eventId) && this.dealsByEvent.has(eventId)) this.sorted = undefined;
  }

  /** Adds, replaces or (when ended) removes a deal. */
  putDeal(deal: Deal): void {
    const previousEvent = this.eventOfDeal.get(deal.id);
    if (previousEvent !== undefined) this.dropDeal(deal.id, previousEvent);
    if (deal.state === 'active') {
      let deals = this.dealsByEvent.get(deal.eventId);
      if (!deals) this.dealsByEvent.set(deal.eventId, (deals = new Map()));
      deals.set(deal.id, deal);
      this.eventOfDeal.set(deal.id, deal.eventId);
    }
    this.sorted = undefined;
  }

  private dropDeal(dealId: string, eventId: string): void {
    this.eventOfDeal.delete(dealId);
    const deals = this.dealsByEvent.get(eventId);
    deals?.delete(dealId);
    if (deals?.size === 0) this.dealsByEvent.delete(eventId);
  }

  /** Sizes, for logs and the benchmark. */
  stats(): { events: number; activeDeals: number; eventsWithDeals: number } {
    return {
      events: this.events.size,
      activeDeals: this.eventOfDeal.size,
      eventsWithDeals: this.dealsByEvent.size,
    };
  }

  private candidates(): SearchKey[] {
    if (!this.sorted) {
      const list: SearchKey[] = [];
      for (const eventId of this.dealsByEvent.keys()) {
        const event = this.events.get(eventId);
        if (event) list.push(new SearchKey(event));
      }
      // Copies again, allocated one after the other in result order: the search loop then walks
      // memory in sequence instead of chasing keys scattered over a large, long-lived heap
      // (bench/deals: the scattered keys cost several times more CPU per search).
      this.sorted = list.sort(compareKeys).map((key) => new SearchKey(key.event));
    }
    return this.sorted;
  }

  search(criteria: DealSearchCriteria, now: Date): DealSearchResult {
    const matches = eventMatcher(criteria, now);
    const allowed = new Set<string>(criteria.exclusivities);
    let pool: SearchKey[];
    if (criteria.dealId !== undefined) {
      const eventId = this.eventOfDeal.get(criteria.dealId);
      const event = eventId === undefined ? undefined : this.events.get(eventId);
      pool = event ? [new SearchKey(event)] : [];
    } else {
      pool = this.candidates();
    }
    const hits: DealSearchHit[] = [];
    let total = 0;
    const end = criteria.startRow + criteria.rows;
    const everyExclusivity = allowed.size >= 2;
    for (const key of pool) {
      if (!matches(key)) continue;
      // Every candidate has an active deal; only a narrower exclusivity needs a look at them.
      if (!everyExclusivity && !this.hasDealOf(key.id, allowed)) continue;
      // Deal lists are built for the page only: counting the rest needs none.
      if (total >= criteria.startRow && total < end)
        hits.push({ event: key.event, deals: this.dealsOf(key.id, allowed) });
      total++;
    }
    return { hits, totalHits: total, startRow: criteria.startRow, rows: criteria.rows };
  }

  private hasDealOf(eventId: string, allowed: ReadonlySet<string>): boolean {
    for (const deal of this.dealsByEvent.get(eventId)?.values() ?? [])
      if (allowed.has(deal.exclusivity)) return true;
    return false;
  }

  /** The event's active deals of the allowed exclusivities, oldest first. */
  private dealsOf(eventId: string, allowed: ReadonlySet<string>): Deal[] {
    const deals: Deal[] = [];
    for (const deal of this.dealsByEvent.get(eventId)?.values() ?? [])
      if (allowed.has(deal.exclusivity)) deals.push(deal);
    return deals.length > 1
      ? deals.sort(
          (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
        )
      : deals;
  }
}
