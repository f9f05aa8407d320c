import { dmasOfMarkets } from '../dma.js';
import { DocOrder, type SortedDocs } from '../doc-order.js';
import { isKnownCurrency, toDecimal } from '@marquee/platform/money';
import type { CatalogEvent, Classification, EventStatus, PriceRange } from '../model.js';
import { post, type PostingList, unpost } from '../postings.js';
import { firstLocale, fold, localeValues, normalizedPhrase, pickText, words } from '../text.js';
import type { EventOrder } from './query.js';

/**
 * The per-event side of the search index: every indexed event as an entry with a dense document
 * number, the numbers searches read in typed columns by document number, the posting lists
 * (inverted indexes) by document number, and every event in each sort order. What it holds is
 * written by CatalogIndex (upsert, remove, setSoldOut) and read by the executors
 * (search/executors.ts); venues and attractions themselves live in search/places.ts.
 */

/** Bits of the flags column (hidden: inactive, not publicly visible, or removed). */
export const FLAG_HIDDEN = 1;
export const FLAG_TBA = 2;
export const FLAG_TBD = 4;
export const FLAG_TEST = 8;
/** Visible only inside a public-visibility window (most events have none: no window read). */
export const FLAG_WINDOWED = 16;
/** Known to be sold out (`availability-changed`): refused by a `seats_available` search. */
export const FLAG_SOLD_OUT = 32;

/**
 * One indexed event. Kept small, because 100,000 of them live in the heap and every major garbage
 * collection visits each object they hold: numbers live in the store's typed columns by `doc` (a
 * double field would be one more heap object per entry), strings other entries share are interned,
 * and the posting keys (name words, classification and market keys) are recomputed from the packed
 * event when the entry is removed instead of being kept (README "Memory").
 */
export interface EventEntry {
  id: string;
  /** Dense document number of the entry in the posting lists and columns (reused after a removal). */
  doc: number;
  /**
   * The resolved event, packed by the codec with its document up to its venue's (a renderer's
   * eventOpening); unpacked only for the events a page returns.
   */
  packed: unknown;
  /** What the classification tree reads, kept unpacked: one shared array per distinct value. */
  classifications: Classification[];
  venueId: string | undefined;
  attractionIds: string[];
  nameKey: string;
  /** A package (international `properties.package`, `is_not_package`). */
  package: boolean;
  /**
   * The shared event counters of the event's attractions (live: `popularityOf` reads them at sort
   * time; popularity orders are VOLATILE_ORDERS, rebuilt after any change, so none sees a stale count).
   */
  attractionCounters: { events: number }[];
  promoterId: string;
  status: EventStatus;
  /** Sold outside the platform (no ticketing data): a published event. */
  external: boolean;
  source: string;
  tba: boolean;
  tbd: boolean;
  test: boolean;
  /** Inactive or not publicly visible (the window itself is in the visibleFrom/Until columns). */
  hidden: boolean;
}

/** The posting lists an event is in, by what they index. */
export type PostingIndex =
  'word' | 'venue' | 'attraction' | 'classificationId' | 'classificationName' | 'market';

/** What an event is posted under besides its venue and attractions: derived from the event alone. */
export interface PostingKeys {
  nameWords: string[];
  classificationIds: string[];
  classificationNames: string[];
  /** `m<market id>` and `d<designated market area>`. */
  marketKeys: string[];
}

export function postingKeysOf(event: CatalogEvent): PostingKeys {
  const classificationIds = new Set<string>();
  const classificationNames = new Set<string>();
  for (const c of event.classifications) {
    for (const level of [c.segment, c.genre, c.subGenre]) {
      if (!level) continue;
      if (level.id) classificationIds.add(level.id.toLowerCase());
      for (const name of localeValues(level.names)) classificationNames.add(normalizedPhrase(name));
    }
  }
  return {
    nameWords: [...new Set(localeValues(event.names).flatMap(words))],
    classificationIds: [...classificationIds],
    classificationNames: [...classificationNames],
    marketKeys: [
      ...event.marketIds.map((m) => `m${m}`),
      ...dmasOfMarkets(event.marketIds).map((d) => `d${d}`),
    ],
  };
}

/** The canonical venue and attraction ids of an event and its attractions' event counters. */
export interface EntryLinks {
  venueId: string | undefined;
  attractionIds: string[];
  attractionCounters: { events: number }[];
}

/** Orders whose comparison reads other events (attraction counts): rebuilt after any change. */
const VOLATILE_ORDERS: ReadonlySet<EventOrder> = new Set(['popularity-desc', 'popularity-asc']);

export class EventColumnStore {
  /** Entries by event id. */
  readonly entries = new Map<string, EventEntry>();
  /** Entries by document number; posting lists hold document numbers (postings.ts). */
  readonly docs: (EventEntry | undefined)[] = [];
  private readonly freeDocs: number[] = [];
  readonly postings: Readonly<Record<PostingIndex, Map<string, PostingList>>> = {
    word: new Map(),
    venue: new Map(),
    attraction: new Map(),
    classificationId: new Map(),
    classificationName: new Map(),
    market: new Map(),
  };
  /**
   * What the search loops read, by document number, in compact typed arrays: walking thousands of
   * candidates then touches a few cache lines instead of one scattered entry object each (which
   * cost more than everything else in a search, measured with bench/discovery). Replaced when they
   * grow: read them through the store for each query, not once.
   */
  flags = new Uint8Array(1024);
  visibleFrom = new Float64Array(1024);
  visibleUntil = new Float64Array(1024);
  /** Start date-time; NaN when the event has none (TBA/TBD). */
  starts = new Float64Array(1024);
  /** Words of the name (relevance: fewer first). */
  wordCounts = new Uint16Array(1024);
  onsale = new Float64Array(1024);
  offsale = new Float64Array(1024);
  /**
   * Price bounds, four per document: lowest and highest excluding ticket fees (`standard` ranges;
   * major units; NaN when none), then the same including fees (the standard bounds when unknown).
   */
  prices = new Float64Array(4 * 1024);
  /** Every event in each sort order, built lazily after a change (wide queries walk them). */
  private readonly orders = new Map<EventOrder, DocOrder>();
  /** Interned strings (sources, promoter ids) and classification arrays, shared by entries. */
  private readonly strings = new Map<string, string>();
  private readonly sharedClassifications = new Map<
    string,
    { value: Classification[]; entries: number }
  >();
  /** Event writes so far (adds and removals): a count of upcoming events holds between two. */
  private writes = 0;
  /** upcomingIn's counts by posting list, with the span of time each holds for. */
  private readonly upcomingCounts = new WeakMap<
    PostingList,
    { writes: number; from: number; until: number; count: number }
  >();

  get size(): number {
    return this.entries.size;
  }

  /** Indexes a resolved event packed as `packed`; the caller removed any earlier state first. */
  add(event: CatalogEvent, packed: unknown, keys: PostingKeys, links: EntryLinks): EventEntry {
    this.writes++;
    const start = event.dates?.start;
    // Every field spelled out (no spread): entries must share one hidden class, or every property
    // read in the search loop goes through a slow lookup. Ids are the venue's and attractions' own
    // strings (one copy each, however many events name them).
    const entry: EventEntry = {
      id: event.id,
      doc: this.freeDocs.pop() ?? this.docs.length,
      packed,
      classifications: this.shareClassifications(event.classifications),
      venueId: links.venueId,
      attractionIds: links.attractionIds,
      nameKey: fold(pickText(event.names, firstLocale(event.names))),
      package: event.package,
      attractionCounters: links.attractionCounters,
      promoterId: this.intern(event.promoter?.id ?? ''),
      status: event.status,
      external: !event.ticketing,
      source: this.intern(fold(event.source?.name ?? '')),
      hidden:
        !event.active || (event.publicVisibility !== undefined && !event.publicVisibility.visible),
      tba: Boolean(start?.dateTba || start?.timeTba),
      tbd: Boolean(start?.dateTbd),
      test: event.test,
    };
    this.entries.set(entry.id, entry);
    const doc = entry.doc;
    this.docs[doc] = entry;
    this.setColumns(entry, event, keys.nameWords.length);
    const { postings } = this;
    for (const w of keys.nameWords) post(postings.word, w, doc);
    for (const c of keys.classificationIds) post(postings.classificationId, c, doc);
    for (const c of keys.classificationNames) post(postings.classificationName, c, doc);
    for (const m of keys.marketKeys) post(postings.market, m, doc);
    if (entry.venueId !== undefined) post(postings.venue, entry.venueId, doc);
    for (const attractionId of entry.attractionIds) post(postings.attraction, attractionId, doc);
    if (!entry.hidden) for (const counter of entry.attractionCounters) counter.events++;
    this.touchOrders(doc);
    return entry;
  }

  /** Takes an entry out; `keys` are those it was added with. */
  remove(entry: EventEntry, keys: PostingKeys): void {
    this.writes++;
    this.entries.delete(entry.id);
    const doc = entry.doc;
    this.docs[doc] = undefined;
    this.flags[doc] = FLAG_HIDDEN;
    this.freeDocs.push(doc);
    const { postings } = this;
    for (const w of keys.nameWords) unpost(postings.word, w, doc);
    for (const c of keys.classificationIds) unpost(postings.classificationId, c, doc);
    for (const c of keys.classificationNames) unpost(postings.classificationName, c, doc);
    for (const m of keys.marketKeys) unpost(postings.market, m, doc);
    if (entry.venueId !== undefined) unpost(postings.venue, entry.venueId, doc);
    for (const attractionId of entry.attractionIds) unpost(postings.attraction, attractionId, doc);
    if (!entry.hidden) for (const counter of entry.attractionCounters) counter.events--;
    this.unshareClassifications(entry.classifications);
    this.touchOrders(doc);
  }

  setSoldOut(entry: EventEntry, soldOut: boolean): void {
    const doc = entry.doc;
    this.flags[doc] = soldOut
      ? this.flags[doc]! | FLAG_SOLD_OUT
      : this.flags[doc]! & ~FLAG_SOLD_OUT;
  }

  /** The union of the posting lists of `keys` in one index, sorted document numbers. */
  listsOf(index: PostingIndex, keys: Iterable<string>): Int32Array[] {
    const map = this.postings[index];
    const found: Int32Array[] = [];
    for (const key of keys) {
      const list = map.get(key);
      if (list) found.push(list.docs());
    }
    return found;
  }

  /** isPubliclyVisible on an entry's columns (same rule; the hot path reads no event). */
  visibleAt(e: EventEntry, nowMs: number): boolean {
    return !e.hidden && this.visibleFrom[e.doc]! <= nowMs && nowMs < this.visibleUntil[e.doc]!;
  }

  /** Every live event in one order (built once, then kept current: doc-order.ts). */
  order(order: EventOrder): SortedDocs {
    let sorted = this.orders.get(order);
    if (!sorted) {
      // Reads the columns through `this` at each call: they are replaced when they grow.
      const compare = comparatorFor(order, {
        startMs: (e) => this.starts[e.doc]!,
        onsaleMs: (e) => this.onsale[e.doc]!,
      });
      const docs = this.docs;
      sorted = new DocOrder((a, b) => compare(docs[a]!, docs[b]!), !VOLATILE_ORDERS.has(order));
      this.orders.set(order, sorted);
    }
    return sorted.current(this.docs.length, (d) => this.docs[d] !== undefined);
  }

  /**
   * Visible events of one posting list (a venue's, an attraction's) that have not started (or have
   * no start yet), from the columns: isPubliclyVisible's rule without reading an entry. Each page
   * asks it for every venue and attraction it shows, so a count is kept with the span of time it
   * holds for: until the next start, visibility opening or closing among the list's events, and
   * while no event was written (`writes`). Counting a long list for every hit had become a third of
   * catalog-indexer's CPU in the uncached search benchmark.
   */
  upcomingIn(list: PostingList | undefined, now: Date): number {
    if (!list) return 0;
    const nowMs = now.getTime();
    const memo = this.upcomingCounts.get(list);
    if (memo && memo.writes === this.writes && memo.from <= nowMs && nowMs < memo.until)
      return memo.count;
    const { flags, visibleFrom, visibleUntil, starts } = this;
    const docs = list.docs();
    let count = 0;
    // The earliest moment after now at which one of these events changes its answer.
    let until = Infinity;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if ((flags[d]! & FLAG_HIDDEN) !== 0) continue;
      const from = visibleFrom[d]!;
      const to = visibleUntil[d]!;
      const start = starts[d]!;
      if (from > nowMs) until = Math.min(until, from);
      if (to > nowMs) until = Math.min(until, to);
      if (start >= nowMs) until = Math.min(until, start + 1);
      if (from <= nowMs && nowMs < to && !(start < nowMs)) count++;
    }
    this.upcomingCounts.set(list, { writes: this.writes, from: nowMs, until, count });
    return count;
  }

  /** The entry's numbers in the columns (grown as documents are added). */
  private setColumns(entry: EventEntry, event: CatalogEvent, nameWordCount: number): void {
    const doc = entry.doc;
    if (doc >= this.flags.length) {
      const grow = <A extends Uint8Array | Uint16Array | Float64Array>(old: A, made: A): A => {
        made.set(old);
        return made;
      };
      const size = Math.max(doc + 1, this.flags.length * 2);
      this.flags = grow(this.flags, new Uint8Array(size));
      this.visibleFrom = grow(this.visibleFrom, new Float64Array(size));
      this.visibleUntil = grow(this.visibleUntil, new Float64Array(size));
      this.starts = grow(this.starts, new Float64Array(size));
      this.wordCounts = grow(this.wordCounts, new Uint16Array(size));
      this.onsale = grow(this.onsale, new Float64Array(size));
      this.offsale = grow(this.offsale, new Float64Array(size));
      this.prices = grow(this.prices, new Float64Array(4 * size));
    }
    const visibleFromMs = event.publicVisibility?.startDateTime?.getTime() ?? -Infinity;
    const visibleUntilMs = event.publicVisibility?.endDateTime?.getTime() ?? Infinity;
    this.flags[doc] =
      (entry.hidden ? FLAG_HIDDEN : 0) |
      (entry.tba ? FLAG_TBA : 0) |
      (entry.tbd ? FLAG_TBD : 0) |
      (entry.test ? FLAG_TEST : 0) |
      (visibleFromMs > -Infinity || visibleUntilMs < Infinity ? FLAG_WINDOWED : 0) |
      (event.availability?.soldOut ? FLAG_SOLD_OUT : 0);
    this.visibleFrom[doc] = visibleFromMs;
    this.visibleUntil[doc] = visibleUntilMs;
    const start = event.dates?.start?.dateTime;
    // NaN when the event has no start date-time (TBA/TBD), and for the dates below when unknown.
    this.starts[doc] = start ? start.getTime() : Number.NaN;
    this.onsale[doc] = event.sales?.publicSale?.startDateTime?.getTime() ?? Number.NaN;
    this.offsale[doc] = event.sales?.publicSale?.endDateTime?.getTime() ?? Number.NaN;
    const { priceMin, priceMax, priceMinInclFees, priceMaxInclFees } = priceBounds(event);
    this.prices[4 * doc] = priceMin;
    this.prices[4 * doc + 1] = priceMax;
    this.prices[4 * doc + 2] = priceMinInclFees;
    this.prices[4 * doc + 3] = priceMaxInclFees;
    this.wordCounts[doc] = Math.min(nameWordCount, 0xffff);
  }

  private touchOrders(doc: number): void {
    for (const order of this.orders.values()) order.touch(doc);
  }

  private intern(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /** One shared array per distinct classifications value, counted, so a removal can drop it. */
  private shareClassifications(value: Classification[]): Classification[] {
    if (value.length === 0) return [];
    const key = JSON.stringify(value);
    let shared = this.sharedClassifications.get(key);
    if (!shared) this.sharedClassifications.set(key, (shared = { value, entries: 0 }));
    shared.entries++;
    return shared.value;
  }

  private unshareClassifications(value: Classification[]): void {
    if (value.length === 0) return;
    const key = JSON.stringify(value);
    const shared = this.sharedClassifications.get(key);
    if (shared && --shared.entries === 0) this.sharedClassifications.delete(key);
  }
}

/**
 * Price bounds excluding fees (`standard` ranges, and ranges of no type) and including fees
 * (`standard including fees` ranges); an event without the latter has unknown fees, and its
 * including bounds are the standard ones.
 */
function priceBounds(event: CatalogEvent): {
  priceMin: number;
  priceMax: number;
  priceMinInclFees: number;
  priceMaxInclFees: number;
} {
  const including = (r: PriceRange) => r.type === 'standard-including-fees';
  const standard = bounds(event.priceRanges.filter((r) => !including(r)));
  const withFees = bounds(event.priceRanges.filter(including));
  const feesKnown = !Number.isNaN(withFees.priceMin);
  return {
    ...standard,
    priceMinInclFees: feesKnown ? withFees.priceMin : standard.priceMin,
    priceMaxInclFees: feesKnown ? withFees.priceMax : standard.priceMax,
  };
}

function bounds(ranges: PriceRange[]): { priceMin: number; priceMax: number } {
  let priceMin = Number.NaN;
  let priceMax = Number.NaN;
  for (const range of ranges) {
    const currency = range.min?.currency || range.max?.currency || '';
    // Publisher and 3p-connector refuse prices without a known currency; none can be compared.
    if (!isKnownCurrency(currency)) continue;
    if (range.min) {
      const v = toDecimal(range.min.amountMinor, currency);
      if (!(v >= priceMin)) priceMin = v;
    }
    if (range.max) {
      const v = toDecimal(range.max.amountMinor, currency);
      if (!(v <= priceMax)) priceMax = v;
    }
  }
  if (Number.isNaN(priceMax)) priceMax = priceMin;
  if (Number.isNaN(priceMin)) priceMin = priceMax;
  return { priceMin, priceMax };
}

/** Dates compare NaN (unknown) after every known date, whatever the direction. */
export function compareDates(a: number, b: number, direction: 1 | -1): number {
  if (a === b) return 0;
  if (a < b) return -direction;
  if (a > b) return direction;
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN || bNaN) return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
  return (a - b) * direction;
}

export const byId = (a: { id: string }, b: { id: string }) =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * Names compare folded (case and accents removed), by code point: locale-aware collation costs a
 * microsecond a comparison, too much for sorting thousands of events per query.
 */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An event's popularity: the number of active, not hidden events in the catalog of its most popular
 * attraction (whatever their dates, so a prebuilt order stays right until the next change); 0
 * without attractions (README "Popularity").
 */
function popularityOf(e: EventEntry): number {
  let most = 0;
  for (const c of e.attractionCounters) if (c.events > most) most = c.events;
  return most;
}

/** The sort keys of an entry that live in the store's columns. */
interface SortColumns {
  startMs(e: EventEntry): number;
  onsaleMs(e: EventEntry): number;
}

function comparatorFor(
  order: EventOrder,
  { startMs, onsaleMs }: SortColumns,
): (a: EventEntry, b: EventEntry) => number {
  switch (order) {
    case 'popularity-desc':
      return (a, b) =>
        popularityOf(b) - popularityOf(a) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case 'popularity-asc':
      return (a, b) =>
        popularityOf(a) - popularityOf(b) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case 'onsale-asc':
      return (a, b) =>
        compareDates(onsaleMs(a), onsaleMs(b), 1) ||
        compareDates(startMs(a), startMs(b), 1) ||
        byId(a, b);
    case 'onsale-desc':
      return (a, b) =>
        compareDates(onsaleMs(a), onsaleMs(b), -1) ||
        compareDates(startMs(a), startMs(b), 1) ||
        byId(a, b);
    case 'date-desc':
      return (a, b) => compareDates(startMs(a), startMs(b), -1) || byId(a, b);
    case 'name-asc':
      return (a, b) =>
        compareText(a.nameKey, b.nameKey) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case 'name-desc':
      return (a, b) =>
        compareText(b.nameKey, a.nameKey) || compareDates(startMs(a), startMs(b), -1) || byId(a, b);
    case 'date-asc':
      return (a, b) => compareDates(startMs(a), startMs(b), 1) || byId(a, b);
  }
}
