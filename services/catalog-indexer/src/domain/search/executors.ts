import { distanceKm } from '@marquee/geo';
import { intersectAll, NO_DOCS, unite } from '../postings.js';
import { localeValues, normalizedPhrase } from '../text.js';
import { RankSelector } from '../top-ranks.js';
import {
  compareDates,
  FLAG_WINDOWED,
  type EventColumnStore,
  type EventEntry,
} from './column-store.js';
import type { EntryFilter, EventSearchPlan, ListFilter } from './planner.js';
import { toPoint, type Places } from './places.js';
import { inclusionAccepts, type Page } from './query.js';

/**
 * The executors: run an EventSearchPlan (search/planner.ts) against the column store and answer
 * the page's entries and the count of every match. One strategy per plan (`plan.strategy`):
 * `candidates` and `date-slice` (runCandidates), `distance` (runByDistance), `walk` (runWalk).
 * All of them check a document with one DocumentMatcher made from the plan, which reads the
 * columns first and an entry only for the plan's entry filters.
 */
export class EventSearchExecutor {
  /** Scratch of one query: its matching documents, and the picker of the first of them. */
  private matched = new Int32Array(1024);
  private readonly selector = new RankSelector();
  /**
   * Totals of unfiltered listings ("the most recent events", the commonest query), by inclusion
   * flags and second: their count depends only on the flags and the clock. Cleared on any change.
   */
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly store: EventColumnStore,
    private readonly places: Places,
  ) {}

  /** What the index holds changed: forget the kept counts. */
  invalidate(): void {
    this.counts.clear();
  }

  run(plan: EventSearchPlan, now: Date): Page<EventEntry> {
    const nowMs = now.getTime();
    const matches = new DocumentMatcher(
      this.store,
      plan,
      nowMs,
      plan.filters.map((filter) => this.predicate(filter)),
    );
    let found: { docs: number[]; total: number };
    switch (plan.strategy) {
      case 'candidates':
        found = this.runCandidates(plan, this.candidates(plan), matches);
        break;
      case 'date-slice':
        found = this.runCandidates(plan, [this.dateSlice(plan)], matches);
        break;
      case 'distance':
        found = this.runByDistance(plan, this.candidates(plan), matches);
        break;
      case 'walk':
        found = this.runWalk(plan, matches, nowMs);
        break;
    }
    const docs = this.store.docs;
    return {
      items: found.docs.map((d) => docs[d]!),
      total: found.total,
      offset: plan.offset,
      limit: plan.limit,
    };
  }

  /**
   * Candidates as document numbers, in chunks: the intersection of the plan's lists (with the
   * radius's venues united into one more list), or the disjoint lists of a radius alone (an event
   * has one venue), with no union to build.
   */
  private candidates(plan: EventSearchPlan): Int32Array[] {
    const lists = plan.lists.map((filter) => this.docsOf(filter));
    let nearby: Int32Array[] | undefined;
    if (plan.near) {
      const venues = this.store.postings.venue;
      const parts: Int32Array[] = [];
      this.places.venuesWithin(plan.near.center, plan.near.km, (venueId) => {
        const list = venues.get(venueId);
        if (list) parts.push(list.docs());
      });
      nearby = parts;
    }
    if (lists.length === 0) return nearby ?? [];
    if (nearby) lists.push(unite(nearby));
    return [intersectAll(lists)];
  }

  private docsOf(filter: ListFilter): Int32Array {
    const store = this.store;
    switch (filter.kind) {
      case 'postings':
        return unite(store.listsOf(filter.index, filter.keys));
      case 'events': {
        const wanted = filter.ids
          .map((id) => store.entries.get(id)?.doc ?? -1)
          .filter((d) => d >= 0);
        return wanted.length === 0 ? NO_DOCS : Int32Array.from(new Set(wanted)).sort();
      }
      case 'cities':
        return unite(store.listsOf('venue', this.places.venuesInCities(filter.cityIds)));
    }
  }

  /** A start-date range as the slice of the date order it is. */
  private dateSlice(plan: EventSearchPlan): Int32Array {
    const { from: lo, to: hi } = plan.start!;
    const starts = this.store.starts;
    const byDate = this.store.order('date-asc').docs;
    const from = firstIndex(byDate, (d) => !(starts[d]! < lo));
    const to = firstIndex(byDate, (d) => !(starts[d]! >= lo && starts[d]! < hi), from);
    return byDate.subarray(from, to);
  }

  /**
   * An index narrowed the search: count every match, then pick the first offset + limit by their
   * positions in the prebuilt order (top-ranks.ts): no comparisons, never sorting the whole set.
   * Relevance orders by name word count first, then the order.
   */
  private runCandidates(
    plan: EventSearchPlan,
    candidates: readonly Int32Array[],
    matches: DocumentMatcher,
  ): { docs: number[]; total: number } {
    const order = this.store.order(plan.order);
    let n = 0;
    for (const chunk of candidates) n += chunk.length;
    if (this.matched.length < n)
      this.matched = new Int32Array(Math.max(n, 2 * this.matched.length));
    const matched = this.matched;
    let total = 0;
    for (const chunk of candidates) {
      for (let i = 0; i < chunk.length; i++) {
        const d = chunk[i]!;
        if (matches.test(d)) matched[total++] = d;
      }
    }
    const ranks = this.selector.select(
      matched,
      total,
      plan.offset + plan.limit,
      order.rank,
      order.docs.length,
      plan.relevance ? this.store.wordCounts : undefined,
    );
    const docs: number[] = [];
    for (let i = plan.offset; i < ranks.length; i++) docs.push(order.docs[ranks[i]!]!);
    return { docs, total };
  }

  /** By distance: count every match, keep the best offset + limit by distance, then the order. */
  private runByDistance(
    plan: EventSearchPlan,
    candidates: readonly Int32Array[],
    matches: DocumentMatcher,
  ): { docs: number[]; total: number } {
    const { rank } = this.store.order(plan.order);
    const center = plan.near!.center;
    const direction = plan.distance!;
    const entries = this.store.docs;
    const distances = new Map<number, number>();
    const distance = (d: number) => {
      let km = distances.get(d);
      if (km === undefined) {
        const point = toPoint(this.places.venueOf(entries[d]!)?.location);
        km = point ? distanceKm(center, point) : Number.NaN;
        distances.set(d, km);
      }
      return km;
    };
    const compare = (a: number, b: number) =>
      compareDates(distance(a), distance(b), direction) || rank[a]! - rank[b]!;
    const best = new BestOf<number>(plan.offset + plan.limit, compare);
    let total = 0;
    for (const chunk of candidates) {
      for (let i = 0; i < chunk.length; i++) {
        const d = chunk[i]!;
        if (matches.test(d)) {
          total++;
          best.offer(d);
        }
      }
    }
    return { docs: best.sorted().slice(plan.offset), total };
  }

  /**
   * Nothing narrowed it: walk the prebuilt order once, count everything, keep one page. When the
   * order is by start date, a start-date range is one contiguous slice of it.
   */
  private runWalk(
    plan: EventSearchPlan,
    matches: DocumentMatcher,
    nowMs: number,
  ): { docs: number[]; total: number } {
    const { offset, limit } = plan;
    const starts = this.store.starts;
    const walk = this.store.order(plan.order).docs;
    let from = 0;
    let to = walk.length;
    if (plan.start) {
      // Only by date here (other orders take the date slice). Ascending:
      // [ < lo | in range | >= hi or undated ]; descending: [ >= hi | in range | < lo | undated ].
      const { from: lo, to: hi } = plan.start;
      const before =
        plan.order === 'date-desc'
          ? (d: number) => starts[d]! >= hi
          : (d: number) => starts[d]! < lo;
      from = firstIndex(walk, (d) => !before(d));
      to = firstIndex(walk, (d) => !(starts[d]! >= lo && starts[d]! < hi), from);
    }
    const docs: number[] = [];
    let total = 0;
    // An unfiltered listing's count is kept for a second (cleared on any change), and the walk
    // stops once the page is full.
    const countKey =
      plan.filters.length === 0 && from === 0 && to === walk.length
        ? `${plan.mask.required}|${plan.mask.refused}|${Math.floor(nowMs / 1000)}`
        : undefined;
    const known = countKey === undefined ? undefined : this.counts.get(countKey);
    for (let i = from; i < to; i++) {
      const d = walk[i]!;
      if (!matches.test(d)) continue;
      if (total >= offset && docs.length < limit) docs.push(d);
      total++;
      if (known !== undefined && docs.length === limit) break;
    }
    if (known !== undefined) total = known;
    else if (countKey !== undefined) {
      if (this.counts.size > 64) this.counts.clear();
      this.counts.set(countKey, total);
    }
    return { docs, total };
  }

  private predicate(filter: EntryFilter): (e: EventEntry) => boolean {
    const venueOf = (e: EventEntry) => this.places.venueOf(e);
    const { onsale, offsale, prices } = this.store;
    switch (filter.kind) {
      case 'postal-code':
        return (e) => normalizedPhrase(venueOf(e)?.postalCode ?? '') === filter.value;
      case 'city':
        return (e) =>
          localeValues(venueOf(e)?.cityNames).some((c) => normalizedPhrase(c) === filter.value);
      case 'country':
        return (e) => filter.codes.has(venueOf(e)?.country?.countryCode.toUpperCase() ?? '');
      case 'state':
        return (e) => filter.codes.has(venueOf(e)?.state?.stateCode.toUpperCase() ?? '');
      case 'source':
        return (e) => filter.names.has(e.source);
      case 'promoter':
        return (e) => filter.ids.has(e.promoterId);
      case 'onsale':
      case 'offsale': {
        const column = filter.kind === 'onsale' ? onsale : offsale;
        const { from, to } = filter;
        return (e) => {
          const v = column[e.doc]!;
          return v >= from && v < to;
        };
      }
      // prices: [min, max, min incl. fees, max incl. fees] per document.
      case 'min-price': {
        const at = filter.withFees ? 3 : 1;
        const value = filter.value;
        return (e) => prices[4 * e.doc + at]! >= value;
      }
      case 'max-price': {
        const at = filter.withFees ? 2 : 0;
        const value = filter.value;
        return (e) => prices[4 * e.doc + at]! <= value;
      }
      case 'not-package':
        return (e) => !e.package;
      case 'cancelled':
        return (e) =>
          inclusionAccepts(
            filter.inclusion,
            e.status === 'cancelled' || e.status === 'rescheduled',
          );
      case 'rescheduled':
        return (e) => inclusionAccepts(filter.inclusion, e.status === 'rescheduled');
      case 'on-sale':
        return (e) => e.status === 'onsale';
      case 'not-external':
        return (e) => !e.external;
    }
  }
}

/**
 * Whether a document matches a plan: the flags column against the mask, the visibility window
 * (only for windowed events), the start range, then the entry filters on the entry. One per query;
 * a class, not a closure, so each strategy's loop calls one monomorphic method that V8 inlines
 * (a closure handed to the loops cost 10-15 % of a keyword or date-range search, measured in
 * process against the closure defined next to the loop).
 */
class DocumentMatcher {
  private readonly flags: Uint8Array;
  private readonly visibleFrom: Float64Array;
  private readonly visibleUntil: Float64Array;
  private readonly starts: Float64Array;
  private readonly docs: readonly (EventEntry | undefined)[];
  private readonly required: number;
  private readonly refused: number;
  private readonly ranged: boolean;
  private readonly lo: number;
  private readonly hi: number;

  constructor(
    store: EventColumnStore,
    plan: EventSearchPlan,
    private readonly nowMs: number,
    private readonly predicates: readonly ((e: EventEntry) => boolean)[],
  ) {
    this.flags = store.flags;
    this.visibleFrom = store.visibleFrom;
    this.visibleUntil = store.visibleUntil;
    this.starts = store.starts;
    this.docs = store.docs;
    this.required = plan.mask.required;
    this.refused = plan.mask.refused;
    this.ranged = plan.start !== undefined;
    this.lo = plan.start?.from ?? -Infinity;
    this.hi = plan.start?.to ?? Infinity;
  }

  test(d: number): boolean {
    const f = this.flags[d]!;
    if ((f & this.refused) !== 0 || (f & this.required) !== this.required) return false;
    if (
      (f & FLAG_WINDOWED) !== 0 &&
      !(this.visibleFrom[d]! <= this.nowMs && this.nowMs < this.visibleUntil[d]!)
    )
      return false;
    // Date filters only keep events that have the date they filter on (NaN fails both sides).
    if (this.ranged && !(this.starts[d]! >= this.lo && this.starts[d]! < this.hi)) return false;
    const predicates = this.predicates;
    if (predicates.length === 0) return true;
    const e = this.docs[d]!;
    for (let i = 0; i < predicates.length; i++) if (!predicates[i]!(e)) return false;
    return true;
  }
}

/** The first index where `test` holds, for a `test` that is false then true along the array. */
function firstIndex<T>(items: ArrayLike<T>, test: (item: T) => boolean, from = 0): number {
  let lo = from;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(items[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The `size` smallest items by `compare`, kept sorted; offering an item costs O(log size). */
class BestOf<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly size: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const items = this.items;
    if (items.length >= this.size && this.compare(item, items[items.length - 1]!) >= 0) return;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(items[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
    if (items.length > this.size) items.pop();
  }

  sorted(): T[] {
    return this.items;
  }
}
