import type {
  ClassificationLevel,
  ClassificationSegment,
  Event,
  SearchAttractionsRequest,
  SearchClassificationsRequest,
  SearchEventsRequest,
  SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event as EventMessage,
  EventSort,
  EventStatus,
  Inclusion,
  NameSort,
  PriceRangeType,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { distanceKm, milesToKm, type Point } from '@marquee/geo';
import { cityIds } from './city-id.js';
import { dmasOfMarkets } from './dma.js';
import { GeoGrid } from './geo-grid.js';
import { majorAmount } from './money.js';
import { resolveEvent } from './resolution.js';
import { DocOrder, type SortedDocs } from './doc-order.js';
import { RankSelector } from './top-ranks.js';
import { intersectAll, NO_DOCS, post, type PostingList, unite, unpost } from './postings.js';
import { firstLocale, fold, localeValues, normalizedPhrase, pickText, words } from './text.js';

/** Discovery v2 defaults: 20 per page, radius 50 miles. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_EVENT_PAGE_SIZE = 500;
export const DEFAULT_RADIUS = 50;

/**
 * How the index keeps each event's full state between queries. The default keeps the object; the
 * service passes a compact encoding (adapters/protobuf-event-codec.ts) so 100,000 events do not
 * make a heap of object graphs that the garbage collector has to walk (README: memory).
 */
export interface EventCodec<P = unknown> {
  /** The event, and its rendered document when the index has a renderer (DocumentRenderer). */
  pack(event: Event, document: string | undefined): P;
  unpack(packed: P): Event;
  /** The document packed with the event, as UTF-8 (undefined if none was). */
  document(packed: P): Uint8Array | undefined;
  /** The event's protobuf encoding, when the packed form already is it (skips decode + encode). */
  encoded?(packed: P): Uint8Array;
}

const keepObjects: EventCodec<{ event: Event; document: Uint8Array | undefined }> = {
  pack: (event, document) => ({
    event,
    document: document === undefined ? undefined : Buffer.from(document),
  }),
  unpack: (packed) => packed.event,
  document: (packed) => packed.document,
};

/**
 * The public documents of what the index holds (Discovery v2 JSON: adapters/discovery-documents.ts).
 * Given one, the index renders each event's document when it indexes the event — once per version,
 * on the write path — and each venue's and attraction's when its upcoming-event count moves, and
 * `searchEventsDocuments` answers a page by joining them (README "Documents").
 */
export interface DocumentRenderer {
  /**
   * The event's document up to where its embedded venue goes: all of it but the venue's and
   * attractions' documents (their upcoming-event counts change without the event changing). Kept
   * packed with the event (EventCodec), not as one more object per event for the collector.
   */
  eventOpening(event: Event): string;
  /** A venue's document, as UTF-8. */
  venue(venue: DiscoveryVenue): Uint8Array;
  /** An attraction's document, as UTF-8. */
  attraction(attraction: DiscoveryAttraction): Uint8Array;
}

/**
 * One indexed event. Kept small, because 100,000 of them live in the heap and every major garbage
 * collection visits each object they hold: numbers live in the index's typed columns by `doc` (a
 * double field would be one more heap object per entry), strings other entries share are interned,
 * and the posting keys (name words, classification and market keys) are recomputed from the packed
 * event when the entry is removed instead of being kept (README "Memory").
 */
interface EventEntry {
  id: string;
  /** Dense document number of the entry in the posting lists and columns (reused after a removal). */
  doc: number;
  /**
   * The resolved event, packed by the codec with its document up to its venue's (a renderer's
   * eventOpening); unpacked only for the events a page returns.
   */
  packed: unknown;
  /** What the classification tree reads, kept unpacked: one shared array per distinct value. */
  classifications: Event['classifications'];
  venueId: string | undefined;
  attractionIds: string[];
  nameKey: string;
  /** A package (international `properties.package`, `is_not_package`). */
  package: boolean;
  /**
   * The shared event counters of the event's attractions (live: `popularityOf` reads them at sort
   * time; popularity orders are VOLATILE_SORTS, rebuilt after any change, so none sees a stale count).
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

/** What an event is posted under besides its venue and attractions: derived from the event alone. */
interface PostingKeys {
  nameWords: string[];
  classificationIds: string[];
  classificationNames: string[];
  marketKeys: string[];
}

function postingKeysOf(event: Event): PostingKeys {
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

interface VenueEntry {
  venue: DiscoveryVenue;
  /** Its DiscoveryVenue encoding with the count last asked for (the entry is replaced on change). */
  encoded: CountedBytes | undefined;
  /** Its document with the count last asked for (as `encoded`). */
  rendered: CountedBytes | undefined;
  /** Described by an inline place (full details), not only named by a reference. */
  described: boolean;
  events: Set<string>;
  nameWords: string[];
  /** The ids of the city's name in every locale (`cityIds`; a `city_ids` filter matches any). */
  cityIds: number[];
}

interface AttractionEntry {
  attraction: DiscoveryAttraction;
  /** Its DiscoveryAttraction encoding with the count last asked for (replaced on change). */
  encoded: CountedBytes | undefined;
  /** Its document with the count last asked for (as `encoded`). */
  rendered: CountedBytes | undefined;
  events: Set<string>;
  nameWords: string[];
}

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

/** The event ids a page of results refers to, with what the caller needs to render them. */
export interface EventHit {
  event: Event;
  venue: DiscoveryVenue | undefined;
  attractions: DiscoveryAttraction[];
}

/**
 * A hit as protobuf bytes, for callers that forward it as is: the event (`Event`), its venue
 * (`DiscoveryVenue`) and attractions (`DiscoveryAttraction`) with their ids.
 */
export interface EncodedEventHit {
  encoded: Uint8Array;
  venue: EncodedView | undefined;
  attractions: EncodedView[];
}

export interface EncodedView {
  id: string;
  encoded: Uint8Array;
}

/**
 * A venue's or attraction's encoding, or its document, as last made, with the upcoming-event count
 * it was made with: kept while that count holds.
 */
interface CountedBytes {
  upcoming: number;
  bytes: Uint8Array;
}

/**
 * A hit as rendered documents (DocumentRenderer): the event's opening, then its venue's document
 * (if it has a venue) and its attractions' documents in the event's order, as they stand now.
 */
export interface DocumentHit {
  opening: Uint8Array;
  venue: Uint8Array | undefined;
  attractions: Uint8Array[];
}

/** A query the catalog refuses (kind `invalid_argument`, mapped to the API family's 400 body). */
export class InvalidQueryError extends Error {
  readonly kind = 'invalid_argument';
}

const EMPTY: ReadonlySet<string> = new Set();
/** Placeholder of an attraction counter until upsert sets the real one. */
const UNCOUNTED: { events: number } = { events: 0 };
const EMPTY_ANY: ReadonlySet<unknown> = new Set();
const EMPTY_OF = <V>() => EMPTY_ANY as ReadonlySet<V>;

/** Bits of the flags column (hidden: inactive, not publicly visible, or removed). */
const FLAG_HIDDEN = 1;
const FLAG_TBA = 2;
const FLAG_TBD = 4;
const FLAG_TEST = 8;
/** Visible only inside a public-visibility window (most events have none: no window read). */
const FLAG_WINDOWED = 16;
/** Known to be sold out (`availability-changed`): refused by a `seats_available` search. */
const FLAG_SOLD_OUT = 32;
/** What a sold-out event carries in its answers (Event.availability); absent when not sold out. */
const SOLD_OUT: Event['availability'] = { soldOut: true };

/** Sorts whose comparison reads other events (attraction counts): rebuilt after any change. */
const VOLATILE_SORTS: ReadonlySet<EventSort> = new Set([
  EventSort.EVENT_SORT_POPULARITY_DESC,
  EventSort.EVENT_SORT_POPULARITY_ASC,
]);

/**
 * Price bounds excluding fees (`standard` ranges, and ranges of no type) and including fees
 * (`standard including fees` ranges); an event without the latter has unknown fees, and its
 * including bounds are the standard ones.
 */
function priceBounds(event: Event): {
  priceMin: number;
  priceMax: number;
  priceMinInclFees: number;
  priceMaxInclFees: number;
} {
  const including = (r: Event['priceRanges'][number]) =>
    r.type === PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES;
  const standard = bounds(event.priceRanges.filter((r) => !including(r)));
  const withFees = bounds(event.priceRanges.filter(including));
  const feesKnown = !Number.isNaN(withFees.priceMin);
  return {
    ...standard,
    priceMinInclFees: feesKnown ? withFees.priceMin : standard.priceMin,
    priceMaxInclFees: feesKnown ? withFees.priceMax : standard.priceMax,
  };
}

function bounds(ranges: Event['priceRanges']): { priceMin: number; priceMax: number } {
  let priceMin = Number.NaN;
  let priceMax = Number.NaN;
  for (const range of ranges) {
    const currency = range.min?.currency || range.max?.currency || '';
    if (range.min) {
      const v = majorAmount(range.min.amountMinor, currency);
      if (!(v >= priceMin)) priceMin = v;
    }
    if (range.max) {
      const v = majorAmount(range.max.amountMinor, currency);
      if (!(v <= priceMax)) priceMax = v;
    }
  }
  if (Number.isNaN(priceMax)) priceMax = priceMin;
  if (Number.isNaN(priceMin)) priceMin = priceMax;
  return { priceMin, priceMax };
}

/** Folded name words, each a prefix of or one edit away from a word of `names` (fuzzy match). */
function fuzzyMatches(queryWords: readonly string[], nameWords: readonly string[]): boolean {
  return queryWords.every((q) => nameWords.some((w) => w.startsWith(q) || withinOneEdit(q, w)));
}

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

function addTo<V>(map: Map<string, Set<V>>, key: string, id: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom<V>(map: Map<string, Set<V>>, key: string, id: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

function union<V>(map: Map<string, Set<V>>, keys: Iterable<string>): Set<V> {
  const out = new Set<V>();
  for (const key of keys) for (const id of map.get(key) ?? EMPTY_OF<V>()) out.add(id);
  return out;
}

const toPoint = (p: { latitude: number; longitude: number } | undefined): Point | undefined =>
  p &&
  Number.isFinite(p.latitude) &&
  Number.isFinite(p.longitude) &&
  !(p.latitude === 0 && p.longitude === 0)
    ? { latitude: p.latitude, longitude: p.longitude }
    : undefined;

function radiusKm(radius: number, unit: DistanceUnit): number {
  const value = radius > 0 ? radius : DEFAULT_RADIUS;
  return unit === DistanceUnit.DISTANCE_UNIT_KILOMETERS ? value : milesToKm(value);
}

function inclusionAccepts(inclusion: Inclusion, flag: boolean): boolean {
  switch (inclusion) {
    case Inclusion.INCLUSION_YES:
      return true;
    case Inclusion.INCLUSION_ONLY:
      return flag;
    default:
      return !flag;
  }
}

function checkPage(page: { offset: number; limit: number } | undefined, max: number) {
  const offset = page?.offset ?? 0;
  const limit = page?.limit || DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidQueryError('page offset must be 0 or more');
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new InvalidQueryError(`page size must be between 1 and ${max}`);
  return { offset, limit };
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

/** Dates compare NaN (unknown) after every known date, whatever the direction. */
function compareDates(a: number, b: number, direction: 1 | -1): number {
  if (a === b) return 0;
  if (a < b) return -direction;
  if (a > b) return direction;
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN || bNaN) return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
  return (a - b) * direction;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Names compare folded (case and accents removed), by code point: locale-aware collation costs a
 * microsecond a comparison, too much for sorting thousands of events per query.
 */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

/** The sort keys of an entry that live in the index's columns. */
interface SortColumns {
  startMs(e: EventEntry): number;
  onsaleMs(e: EventEntry): number;
}

function comparatorFor(
  sort: EventSort,
  { startMs, onsaleMs }: SortColumns,
): (a: EventEntry, b: EventEntry) => number {
  switch (sort) {
    case EventSort.EVENT_SORT_POPULARITY_DESC:
      return (a, b) =>
        popularityOf(b) - popularityOf(a) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case EventSort.EVENT_SORT_POPULARITY_ASC:
      return (a, b) =>
        popularityOf(a) - popularityOf(b) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case EventSort.EVENT_SORT_ONSALE_ASC:
      return (a, b) =>
        compareDates(onsaleMs(a), onsaleMs(b), 1) ||
        compareDates(startMs(a), startMs(b), 1) ||
        byId(a, b);
    case EventSort.EVENT_SORT_ONSALE_DESC:
      return (a, b) =>
        compareDates(onsaleMs(a), onsaleMs(b), -1) ||
        compareDates(startMs(a), startMs(b), 1) ||
        byId(a, b);
    case EventSort.EVENT_SORT_DATE_DESC:
      return (a, b) => compareDates(startMs(a), startMs(b), -1) || byId(a, b);
    case EventSort.EVENT_SORT_NAME_ASC:
      return (a, b) =>
        compareText(a.nameKey, b.nameKey) || compareDates(startMs(a), startMs(b), 1) || byId(a, b);
    case EventSort.EVENT_SORT_NAME_DESC:
      return (a, b) =>
        compareText(b.nameKey, a.nameKey) || compareDates(startMs(a), startMs(b), -1) || byId(a, b);
    default:
      return (a, b) => compareDates(startMs(a), startMs(b), 1) || byId(a, b);
  }
}

/**
 * The discovery search index: every event of the read model with inverted indexes on the words of
 * its name, its venue, attractions, classifications and markets, and a geo grid of venues. Lives in
 * memory (FerretDB has no text or geo indexes; architecture.md), rebuilt from the Mongo read model
 * at start and kept current by the `event-changed` consumer. Pure: no I/O, the clock is a parameter.
 */
export class CatalogIndex {
  constructor(
    private readonly codec: EventCodec = keepObjects as EventCodec,
    private readonly renderer?: DocumentRenderer,
  ) {}

  private readonly events = new Map<string, EventEntry>();
  private readonly venues = new Map<string, VenueEntry>();
  private readonly attractions = new Map<string, AttractionEntry>();
  /** Entries by document number; posting lists hold document numbers (postings.ts). */
  private readonly docs: (EventEntry | undefined)[] = [];
  private readonly freeDocs: number[] = [];
  private readonly byWord = new Map<string, PostingList>();
  /** upcomingIn's counts by posting list, with the span of time each holds for. */
  private readonly upcomingCounts = new WeakMap<
    PostingList,
    { writes: number; from: number; until: number; count: number }
  >();
  /** Event writes so far (upserts and removals): a count of upcoming events holds between two. */
  private writes = 0;
  private readonly byVenue = new Map<string, PostingList>();
  private readonly byAttraction = new Map<string, PostingList>();
  private readonly byClassificationId = new Map<string, PostingList>();
  private readonly byClassificationName = new Map<string, PostingList>();
  private readonly byMarket = new Map<string, PostingList>();
  private readonly venueGrid = new GeoGrid();
  private readonly venueByWord = new Map<string, Set<string>>();
  /** Venue ids by city id (decimal string). */
  private readonly venueByCity = new Map<string, Set<string>>();
  /** Per attraction id, its active and not hidden events (popularity); shared with the entries. */
  private readonly attractionCounters = new Map<string, { events: number }>();
  private readonly attractionByWord = new Map<string, Set<string>>();
  /** Every event in each sort order, built lazily after a change (wide queries walk them). */
  private readonly orders = new Map<EventSort, DocOrder>();
  /**
   * What the search loops read, by document number, in compact typed arrays: walking thousands of
   * candidates then touches a few cache lines instead of one scattered entry object each (which
   * cost more than everything else in a search, measured with bench/discovery).
   */
  private flags = new Uint8Array(1024);
  private visibleFrom = new Float64Array(1024);
  private visibleUntil = new Float64Array(1024);
  private starts = new Float64Array(1024);
  private wordCounts = new Uint16Array(1024);
  private onsale = new Float64Array(1024);
  private offsale = new Float64Array(1024);
  /**
   * Price bounds, four per document: lowest and highest excluding ticket fees (`standard` ranges;
   * major units; NaN when none), then the same including fees (the standard bounds when unknown).
   */
  private prices = new Float64Array(4 * 1024);
  /** Interned strings (sources, promoter ids) and classification arrays, shared by entries. */
  private readonly strings = new Map<string, string>();
  private readonly sharedClassifications = new Map<
    string,
    { value: Event['classifications']; entries: number }
  >();
  /** Totals of unfiltered listings, by inclusion flags and second; cleared on any change. */
  private readonly counts = new Map<string, number>();
  /** Scratch of one query: its matching documents, and the picker of the first of them. */
  private matched = new Int32Array(1024);
  private readonly selector = new RankSelector();
  /** The classification tree of visible events, built on demand, at most a second old. */
  private classificationTree: { builtAtS: number; segments: ClassificationSegment[] } | undefined;
  /**
   * Ids of the events known to be sold out (`setSoldOut`), indexed or not yet: availability may
   * arrive before its event, and an event's new state keeps what is known of its availability.
   */
  private readonly soldOut = new Set<string>();

  get size(): number {
    return this.events.size;
  }

  /** Adds or replaces an event (the caller has checked that this state is newer). */
  upsert(input: Event): void {
    this.remove(input.id);
    this.writes++;
    const { event, venue, venueDescribed, attractions } = resolveEvent(input);
    // The catalog's own knowledge of its availability, whatever the producer put there.
    event.availability = this.soldOut.has(event.id) ? SOLD_OUT : undefined;
    const id = event.id;
    const keys = postingKeysOf(event);
    const start = event.dates?.start;
    if (venue) this.mergeVenue(venue, venueDescribed, id);
    for (const attraction of attractions) this.mergeAttraction(attraction, id);
    // Every field spelled out (no spread): entries must share one hidden class, or every property
    // read in the search loop goes through a slow lookup. Ids are the venue's and attractions' own
    // strings (one copy each, however many events name them).
    const entry: EventEntry = {
      id,
      doc: this.freeDocs.pop() ?? this.docs.length,
      packed: this.codec.pack(event, this.renderer?.eventOpening(event)),
      classifications: this.shareClassifications(event.classifications),
      venueId: venue && this.venues.get(venue.id)!.venue.id,
      attractionIds: attractions.map((a) => this.attractions.get(a.id)!.attraction.id),
      nameKey: fold(pickText(event.names, firstLocale(event.names))),
      package: event.package,
      // Exactly as long as needed (a pushed-to empty array reserves room for 16).
      attractionCounters: attractions.map(() => UNCOUNTED),
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
    this.events.set(id, entry);
    const doc = entry.doc;
    this.docs[doc] = entry;
    this.setColumns(entry, event, keys.nameWords.length);
    for (const w of keys.nameWords) post(this.byWord, w, doc);
    for (const c of keys.classificationIds) post(this.byClassificationId, c, doc);
    for (const c of keys.classificationNames) post(this.byClassificationName, c, doc);
    for (const m of keys.marketKeys) post(this.byMarket, m, doc);
    if (venue) post(this.byVenue, venue.id, doc);
    for (let i = 0; i < attractions.length; i++) {
      const attraction = attractions[i]!;
      post(this.byAttraction, attraction.id, doc);
      let counter = this.attractionCounters.get(attraction.id);
      if (!counter) this.attractionCounters.set(attraction.id, (counter = { events: 0 }));
      entry.attractionCounters[i] = counter;
      if (!entry.hidden) counter.events++;
    }
    this.touchOrders(doc);
    this.counts.clear();
    this.classificationTree = undefined;
  }

  /** The entry's numbers in the columns (grown as documents are added). */
  private setColumns(entry: EventEntry, event: Event, nameWordCount: number): void {
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

  /** isPubliclyVisible on an entry's columns (same rule; the hot path reads no event). */
  private visibleAt(e: EventEntry, nowMs: number): boolean {
    return !e.hidden && this.visibleFrom[e.doc]! <= nowMs && nowMs < this.visibleUntil[e.doc]!;
  }

  private intern(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /** One shared array per distinct classifications value, counted, so a removal can drop it. */
  private shareClassifications(value: Event['classifications']): Event['classifications'] {
    if (value.length === 0) return [];
    const key = JSON.stringify(value);
    let shared = this.sharedClassifications.get(key);
    if (!shared) this.sharedClassifications.set(key, (shared = { value, entries: 0 }));
    shared.entries++;
    return shared.value;
  }

  private unshareClassifications(value: Event['classifications']): void {
    if (value.length === 0) return;
    const key = JSON.stringify(value);
    const shared = this.sharedClassifications.get(key);
    if (shared && --shared.entries === 0) this.sharedClassifications.delete(key);
  }

  private touchOrders(doc: number): void {
    for (const order of this.orders.values()) order.touch(doc);
  }

  remove(id: string): boolean {
    const entry = this.events.get(id);
    if (!entry) return false;
    this.writes++;
    this.events.delete(id);
    const doc = entry.doc;
    this.docs[doc] = undefined;
    this.flags[doc] = FLAG_HIDDEN;
    this.freeDocs.push(doc);
    // The keys it was posted under, from the packed event (the same resolved event upsert read).
    const keys = postingKeysOf(this.codec.unpack(entry.packed));
    for (const w of keys.nameWords) unpost(this.byWord, w, doc);
    for (const c of keys.classificationIds) unpost(this.byClassificationId, c, doc);
    for (const c of keys.classificationNames) unpost(this.byClassificationName, c, doc);
    for (const m of keys.marketKeys) unpost(this.byMarket, m, doc);
    this.unshareClassifications(entry.classifications);
    if (entry.venueId) {
      unpost(this.byVenue, entry.venueId, doc);
      const venue = this.venues.get(entry.venueId);
      venue?.events.delete(id);
      if (venue && venue.events.size === 0) this.dropVenue(venue);
    }
    for (const counter of entry.attractionCounters) if (!entry.hidden) counter.events--;
    for (const attractionId of entry.attractionIds) {
      unpost(this.byAttraction, attractionId, doc);
      const attraction = this.attractions.get(attractionId);
      attraction?.events.delete(id);
      if (attraction && attraction.events.size === 0) {
        this.attractions.delete(attractionId);
        this.attractionCounters.delete(attractionId);
        for (const w of attraction.nameWords) removeFrom(this.attractionByWord, w, attractionId);
      }
    }
    this.touchOrders(doc);
    this.counts.clear();
    this.classificationTree = undefined;
    return true;
  }

  /**
   * Whether the event `id` is known to be sold out (`availability-changed`), indexed or not yet: an
   * event indexed later, or a new state of it, carries it. An indexed event's packed state
   * (Event.availability, in both the decoded and the encoded answers) and its flag change at once.
   * Answers whether what the index serves changed.
   */
  setSoldOut(id: string, soldOut: boolean): boolean {
    if (this.soldOut.has(id) === soldOut) return false;
    if (soldOut) this.soldOut.add(id);
    else this.soldOut.delete(id);
    const entry = this.events.get(id);
    if (!entry) return false;
    const event: Event = {
      ...this.codec.unpack(entry.packed),
      availability: soldOut ? SOLD_OUT : undefined,
    };
    entry.packed = this.codec.pack(event, this.renderer?.eventOpening(event));
    this.flags[entry.doc] = soldOut
      ? this.flags[entry.doc]! | FLAG_SOLD_OUT
      : this.flags[entry.doc]! & ~FLAG_SOLD_OUT;
    this.counts.clear();
    return true;
  }

  /** What an inline place tells about a venue wins over a bare reference; the latest place wins. */
  private mergeVenue(venue: DiscoveryVenue, described: boolean, eventId: string): void {
    const known = this.venues.get(venue.id);
    if (known && known.described && !described) {
      known.events.add(eventId);
      return;
    }
    const events = known?.events ?? new Set<string>();
    if (known) this.dropVenue(known);
    events.add(eventId);
    const entry: VenueEntry = {
      // The id string the index already holds, so events keep one copy of it.
      venue: known ? { ...venue, id: known.venue.id } : venue,
      encoded: undefined,
      rendered: undefined,
      described,
      events,
      nameWords: [...new Set(localeValues(venue.names).flatMap(words))],
      cityIds: cityIds(venue.country?.countryCode ?? '', venue.cityNames),
    };
    this.venues.set(venue.id, entry);
    for (const w of entry.nameWords) addTo(this.venueByWord, w, venue.id);
    for (const c of entry.cityIds) addTo(this.venueByCity, String(c), venue.id);
    const point = toPoint(venue.location);
    if (point) this.venueGrid.add(venue.id, point);
  }

  private dropVenue(entry: VenueEntry): void {
    this.venues.delete(entry.venue.id);
    for (const w of entry.nameWords) removeFrom(this.venueByWord, w, entry.venue.id);
    for (const c of entry.cityIds) removeFrom(this.venueByCity, String(c), entry.venue.id);
    const point = toPoint(entry.venue.location);
    if (point) this.venueGrid.remove(entry.venue.id, point);
  }

  private mergeAttraction(attraction: DiscoveryAttraction, eventId: string): void {
    const known = this.attractions.get(attraction.id);
    if (known) {
      for (const w of known.nameWords) removeFrom(this.attractionByWord, w, attraction.id);
    }
    const events = known?.events ?? new Set<string>();
    events.add(eventId);
    const names =
      localeValues(attraction.names).length > 0 ? attraction.names : known?.attraction.names;
    const entry: AttractionEntry = {
      // The id string the index already holds, so events keep one copy of it.
      attraction: { ...attraction, id: known?.attraction.id ?? attraction.id, names },
      encoded: undefined,
      rendered: undefined,
      events,
      nameWords: [...new Set(localeValues(names).flatMap(words))],
    };
    this.attractions.set(attraction.id, entry);
    for (const w of entry.nameWords) addTo(this.attractionByWord, w, attraction.id);
  }

  private hit(entry: EventEntry, now: Date): EventHit {
    return { event: this.codec.unpack(entry.packed), ...this.embedded(entry, now) };
  }

  private encodedHit(entry: EventEntry, now: Date): EncodedEventHit {
    const codec = this.codec;
    const encoded = codec.encoded
      ? codec.encoded(entry.packed)
      : EventMessage.encode(codec.unpack(entry.packed)).finish();
    const venue = entry.venueId ? this.venues.get(entry.venueId) : undefined;
    const attractions: EncodedView[] = [];
    for (const id of entry.attractionIds) {
      const attraction = this.attractions.get(id);
      if (attraction) attractions.push(this.encodedAttraction(attraction, now));
    }
    return { encoded, venue: venue && this.encodedVenue(venue, now), attractions };
  }

  /**
   * `held` while it was made with the current upcoming-event count of `list`, else what `make`
   * makes for the count now: a venue's or attraction's encoding or document is made again only
   * when its count moved (or the venue or attraction changed: a new entry), not for every page.
   */
  private byCount(
    held: CountedBytes | undefined,
    list: PostingList | undefined,
    now: Date,
    make: (upcoming: number) => Uint8Array,
  ): CountedBytes {
    const upcoming = this.upcomingIn(list, now);
    return held?.upcoming === upcoming ? held : { upcoming, bytes: make(upcoming) };
  }

  /** A venue as DiscoveryVenue bytes with its upcoming-event count. */
  private encodedVenue(entry: VenueEntry, now: Date): EncodedView {
    const { venue } = entry;
    entry.encoded = this.byCount(entry.encoded, this.byVenue.get(venue.id), now, (upcomingEvents) =>
      DiscoveryVenue.encode({ ...venue, upcomingEvents }).finish(),
    );
    return { id: venue.id, encoded: entry.encoded.bytes };
  }

  /** An attraction as DiscoveryAttraction bytes with its upcoming-event count. */
  private encodedAttraction(entry: AttractionEntry, now: Date): EncodedView {
    const { attraction } = entry;
    const list = this.byAttraction.get(attraction.id);
    entry.encoded = this.byCount(entry.encoded, list, now, (upcomingEvents) =>
      DiscoveryAttraction.encode({ ...attraction, upcomingEvents }).finish(),
    );
    return { id: attraction.id, encoded: entry.encoded.bytes };
  }

  /** A venue's document with its upcoming-event count. */
  private venueDocument(entry: VenueEntry, now: Date, renderer: DocumentRenderer): Uint8Array {
    const { venue } = entry;
    entry.rendered = this.byCount(
      entry.rendered,
      this.byVenue.get(venue.id),
      now,
      (upcomingEvents) => renderer.venue({ ...venue, upcomingEvents }),
    );
    return entry.rendered.bytes;
  }

  /** An attraction's document with its upcoming-event count. */
  private attractionDocument(
    entry: AttractionEntry,
    now: Date,
    renderer: DocumentRenderer,
  ): Uint8Array {
    const { attraction } = entry;
    const list = this.byAttraction.get(attraction.id);
    entry.rendered = this.byCount(entry.rendered, list, now, (upcomingEvents) =>
      renderer.attraction({ ...attraction, upcomingEvents }),
    );
    return entry.rendered.bytes;
  }

  private embedded(entry: EventEntry, now: Date) {
    return {
      venue: entry.venueId ? this.venueView(entry.venueId, now) : undefined,
      attractions: entry.attractionIds
        .map((a) => this.attractionView(a, now))
        .filter((a): a is DiscoveryAttraction => a !== undefined),
    };
  }

  /**
   * Visible events of one posting list (a venue's, an attraction's) that have not started (or have
   * no start yet), from the columns: isPubliclyVisible's rule without reading an entry. Each page
   * asks it for every venue and attraction it shows, so a count is kept with the span of time it
   * holds for: until the next start, visibility opening or closing among the list's events, and
   * while no event was written (`writes`). Counting a long list for every hit had become a third of
   * catalog-indexer's CPU in the uncached search benchmark.
   */
  private upcomingIn(list: PostingList | undefined, now: Date): number {
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

  private venueView(id: string, now: Date): DiscoveryVenue | undefined {
    const entry = this.venues.get(id);
    return entry && { ...entry.venue, upcomingEvents: this.upcomingIn(this.byVenue.get(id), now) };
  }

  private attractionView(id: string, now: Date): DiscoveryAttraction | undefined {
    const entry = this.attractions.get(id);
    return (
      entry && {
        ...entry.attraction,
        upcomingEvents: this.upcomingIn(this.byAttraction.get(id), now),
      }
    );
  }

  /** One event by id, whatever its visibility (the caller decides), with its venue and attractions. */
  getEvent(id: string, now: Date): (EventHit & { visible: boolean }) | undefined {
    const entry = this.events.get(id);
    return entry && { ...this.hit(entry, now), visible: this.visibleAt(entry, now.getTime()) };
  }

  getVenue(id: string, now: Date): DiscoveryVenue | undefined {
    return this.venueView(id, now);
  }

  getAttraction(id: string, now: Date): DiscoveryAttraction | undefined {
    return this.attractionView(id, now);
  }

  /** Discovery v2 event search (every query parameter of `GET /discovery/v2/events`). */
  searchEvents(q: SearchEventsRequest, now: Date): Page<EventHit> {
    const { items, ...page } = this.findEvents(q, now);
    return { ...page, items: items.map((entry) => this.hit(entry, now)) };
  }

  /** The same search, each event as its protobuf encoding: the gRPC port forwards the bytes. */
  searchEventsEncoded(q: SearchEventsRequest, now: Date): Page<EncodedEventHit> {
    const { items, ...page } = this.findEvents(q, now);
    return { ...page, items: items.map((entry) => this.encodedHit(entry, now)) };
  }

  /**
   * The same search answered with each event's rendered document (DocumentRenderer); undefined when
   * the index has no renderer.
   */
  searchEventsDocuments(q: SearchEventsRequest, now: Date): Page<DocumentHit> | undefined {
    const renderer = this.renderer;
    if (!renderer) return undefined;
    const { items, ...page } = this.findEvents(q, now);
    return {
      ...page,
      // Every venue and attraction an event names has an entry while the event is indexed.
      items: items.map((entry) => ({
        opening: this.codec.document(entry.packed)!,
        venue:
          entry.venueId === undefined
            ? undefined
            : this.venueDocument(this.venues.get(entry.venueId)!, now, renderer),
        attractions: entry.attractionIds.map((id) =>
          this.attractionDocument(this.attractions.get(id)!, now, renderer),
        ),
      })),
    };
  }

  private findEvents(q: SearchEventsRequest, now: Date): Page<EventEntry> {
    const { offset, limit } = checkPage(q.page, MAX_EVENT_PAGE_SIZE);
    // Index-backed filters: each one a sorted list of document numbers; all of them must hold.
    const lists: Int32Array[] = [];
    const predicates: ((e: EventEntry) => boolean)[] = [];
    const docsOf = (map: Map<string, PostingList>, keys: Iterable<string>) => {
      const found: Int32Array[] = [];
      for (const key of keys) {
        const list = map.get(key);
        if (list) found.push(list.docs());
      }
      return unite(found);
    };

    const keywordWords = [...new Set(words(q.keyword))];
    for (const w of keywordWords) lists.push(this.byWord.get(w)?.docs() ?? NO_DOCS);
    if (q.attractionIds.length > 0) lists.push(docsOf(this.byAttraction, q.attractionIds));
    if (q.venueIds.length > 0) lists.push(docsOf(this.byVenue, q.venueIds));
    if (q.classificationIds.length > 0)
      lists.push(
        docsOf(
          this.byClassificationId,
          q.classificationIds.map((c) => c.toLowerCase()),
        ),
      );
    if (q.classificationNames.length > 0)
      lists.push(docsOf(this.byClassificationName, q.classificationNames.map(normalizedPhrase)));
    if (q.marketIds.length > 0)
      lists.push(
        docsOf(
          this.byMarket,
          q.marketIds.map((m) => `m${m}`),
        ),
      );
    if (q.dmaId) lists.push(this.byMarket.get(`d${Number(q.dmaId)}`)?.docs() ?? NO_DOCS);
    if (q.eventIds.length > 0) {
      const wanted = q.eventIds.map((id) => this.events.get(id)?.doc ?? -1).filter((d) => d >= 0);
      lists.push(Int32Array.from(new Set(wanted)).sort());
    }
    const anyWords = [...new Set(words(q.nameContains))];
    if (anyWords.length > 0) lists.push(docsOf(this.byWord, anyWords));
    if (q.cityIds.length > 0)
      lists.push(docsOf(this.byVenue, union(this.venueByCity, q.cityIds.map(String))));

    // A radius: the posting lists of the venues within it. An event has one venue, so these lists
    // are disjoint: alone, they are the candidates as they are, with no union to build.
    const center = q.latlong ? (toPoint(q.latlong) ?? q.latlong) : undefined;
    let nearby: Int32Array[] | undefined;
    if (center) {
      const km = radiusKm(q.radius, q.unit);
      const parts: Int32Array[] = [];
      this.venueGrid.within(center, km, (venueId) => {
        const list = this.byVenue.get(venueId);
        if (list) parts.push(list.docs());
      });
      nearby = parts;
    }

    const venueOf = (e: EventEntry) => (e.venueId ? this.venues.get(e.venueId)?.venue : undefined);
    if (q.postalCode) {
      const wanted = normalizedPhrase(q.postalCode);
      predicates.push((e) => normalizedPhrase(venueOf(e)?.postalCode ?? '') === wanted);
    }
    if (q.city) {
      const wanted = normalizedPhrase(q.city);
      predicates.push((e) =>
        localeValues(venueOf(e)?.cityNames).some((c) => normalizedPhrase(c) === wanted),
      );
    }
    if (q.countryCodes.length > 0) {
      const wanted = new Set(q.countryCodes.map((c) => c.toUpperCase()));
      predicates.push((e) => wanted.has(venueOf(e)?.country?.countryCode.toUpperCase() ?? ''));
    }
    if (q.stateCodes.length > 0) {
      const wanted = new Set(q.stateCodes.map((c) => c.toUpperCase()));
      predicates.push((e) => wanted.has(venueOf(e)?.state?.stateCode.toUpperCase() ?? ''));
    }
    if (q.sources.length > 0) {
      const wanted = new Set(q.sources.map(fold));
      predicates.push((e) => wanted.has(e.source));
    }
    // Date filters only keep events that have the date they filter on.
    const range = (
      from: Date | undefined,
      to: Date | undefined,
      value: (e: EventEntry) => number,
    ) => {
      if (!from && !to) return;
      const lo = from?.getTime() ?? -Infinity;
      const hi = to?.getTime() ?? Infinity;
      predicates.push((e) => {
        const v = value(e);
        return v >= lo && v < hi;
      });
    };
    // The start-date range is checked on the starts column in `matches` below (the hot path).
    const { onsale, offsale, prices } = this;
    range(q.onsaleStartDateTime, q.onsaleEndDateTime, (e) => onsale[e.doc]!);
    range(q.offsaleStartDateTime, q.offsaleEndDateTime, (e) => offsale[e.doc]!);
    if (q.promoterIds.length > 0) {
      const wanted = new Set(q.promoterIds);
      predicates.push((e) => wanted.has(e.promoterId));
    }
    // A price bound keeps events whose range overlaps it; events without prices fail it. Bounds
    // compare against prices excluding fees when asked to, else including them.
    // prices: [min, max, min incl. fees, max incl. fees] per document.
    const fees = q.priceExclFees ? 0 : 2;
    if (q.minPrice > 0) predicates.push((e) => prices[4 * e.doc + fees + 1]! >= q.minPrice);
    if (q.maxPrice > 0) predicates.push((e) => prices[4 * e.doc + fees]! <= q.maxPrice);
    if (q.excludePackages) predicates.push((e) => !e.package);
    const cancelled = (e: EventEntry) =>
      e.status === EventStatus.EVENT_STATUS_CANCELLED ||
      e.status === EventStatus.EVENT_STATUS_RESCHEDULED;
    if (q.includeCancelled !== Inclusion.INCLUSION_UNSPECIFIED)
      predicates.push((e) => inclusionAccepts(q.includeCancelled, cancelled(e)));
    if (q.includeRescheduled !== Inclusion.INCLUSION_UNSPECIFIED)
      predicates.push((e) =>
        inclusionAccepts(q.includeRescheduled, e.status === EventStatus.EVENT_STATUS_RESCHEDULED),
      );
    if (q.seatsAvailable) predicates.push((e) => e.status === EventStatus.EVENT_STATUS_ONSALE);
    if (q.excludeExternal) predicates.push((e) => !e.external);
    const nowMs = now.getTime();
    // Visibility and the inclusion flags as bit masks over the flags column (the same rule as
    // isPubliclyVisible and inclusionAccepts): a document passes with every `required` bit and no
    // `refused` one, inside its visibility window. Only the rarer filters read the entry.
    let required = 0;
    let refused = FLAG_HIDDEN;
    const inclusions = [
      [q.includeTba, FLAG_TBA],
      [q.includeTbd, FLAG_TBD],
      [q.includeTest, FLAG_TEST],
    ] as const;
    for (const [inclusion, bit] of inclusions) {
      if (inclusion === Inclusion.INCLUSION_ONLY) required |= bit;
      else if (inclusion !== Inclusion.INCLUSION_YES) refused |= bit;
    }
    // Tickets on sale now: on-sale status (a predicate above) and not known to be sold out (a bit).
    if (q.seatsAvailable) refused |= FLAG_SOLD_OUT;
    const { flags, visibleFrom, visibleUntil, starts } = this;
    const docs = this.docs;
    const lo = q.startDateTime?.getTime() ?? -Infinity;
    const hi = q.endDateTime?.getTime() ?? Infinity;
    const ranged = q.startDateTime !== undefined || q.endDateTime !== undefined;
    const matches = (d: number) => {
      const f = flags[d]!;
      if ((f & refused) !== 0 || (f & required) !== required) return false;
      if ((f & FLAG_WINDOWED) !== 0 && !(visibleFrom[d]! <= nowMs && nowMs < visibleUntil[d]!))
        return false;
      // Date filters only keep events that have the date they filter on (NaN fails both sides).
      if (ranged && !(starts[d]! >= lo && starts[d]! < hi)) return false;
      if (predicates.length === 0) return true;
      const e = docs[d]!;
      for (let i = 0; i < predicates.length; i++) if (!predicates[i]!(e)) return false;
      return true;
    };

    const relevance = q.sort === EventSort.EVENT_SORT_UNSPECIFIED && keywordWords.length > 0;
    const byDistance =
      q.sort === EventSort.EVENT_SORT_DISTANCE_ASC || q.sort === EventSort.EVENT_SORT_DISTANCE_DESC;
    if (byDistance && !center) throw new InvalidQueryError('sorting by distance needs latlong');
    // Unspecified and distance sorts break ties (and relevance ties) by date, as the date order does.
    const sortKey =
      q.sort === EventSort.EVENT_SORT_UNSPECIFIED || byDistance
        ? EventSort.EVENT_SORT_DATE_ASC
        : q.sort;
    let ordered: number[];
    let total = 0;
    // Candidates as document numbers, in chunks: the intersection of the index-backed filters, or
    // the disjoint lists of a radius alone.
    if (nearby && lists.length > 0) lists.push(unite(nearby));
    let candidates: Int32Array[] | undefined = lists.length > 0 ? [intersectAll(lists)] : nearby;
    const dateSorted =
      q.sort === EventSort.EVENT_SORT_UNSPECIFIED ||
      q.sort === EventSort.EVENT_SORT_DATE_ASC ||
      q.sort === EventSort.EVENT_SORT_DATE_DESC;
    if (!candidates && !dateSorted && ranged) {
      // A start-date range is a contiguous slice of the date order: those are the candidates.
      const byDate = this.order(EventSort.EVENT_SORT_DATE_ASC).docs;
      const from = firstIndex(byDate, (d) => !(starts[d]! < lo));
      const to = firstIndex(byDate, (d) => !(starts[d]! >= lo && starts[d]! < hi), from);
      candidates = [byDate.subarray(from, to)];
    }
    if (candidates && !byDistance) {
      // Candidate path: an index narrowed the search; count every match, then pick the first
      // offset + limit by their positions in the prebuilt order (top-ranks.ts): no comparisons,
      // never sorting the whole set. Relevance orders by name word count first, then the order.
      const order = this.order(sortKey);
      let n = 0;
      for (const chunk of candidates) n += chunk.length;
      if (this.matched.length < n)
        this.matched = new Int32Array(Math.max(n, 2 * this.matched.length));
      const matched = this.matched;
      for (const chunk of candidates) {
        for (let i = 0; i < chunk.length; i++) {
          const d = chunk[i]!;
          if (matches(d)) matched[total++] = d;
        }
      }
      const ranks = this.selector.select(
        matched,
        total,
        offset + limit,
        order.rank,
        order.docs.length,
        relevance ? this.wordCounts : undefined,
      );
      ordered = [];
      for (let i = offset; i < ranks.length; i++) ordered.push(order.docs[ranks[i]!]!);
    } else if (byDistance) {
      // By distance: count every match, keep the best offset + limit by distance, then the order.
      const { rank } = this.order(sortKey);
      const direction = q.sort === EventSort.EVENT_SORT_DISTANCE_ASC ? 1 : -1;
      const distances = new Map<number, number>();
      const distance = (d: number) => {
        let km = distances.get(d);
        if (km === undefined) {
          const point = toPoint(venueOf(docs[d]!)?.location);
          km = point ? distanceKm(center!, point) : Number.NaN;
          distances.set(d, km);
        }
        return km;
      };
      const compare = (a: number, b: number) =>
        compareDates(distance(a), distance(b), direction) || rank[a]! - rank[b]!;
      const best = new BestOf<number>(offset + limit, compare);
      if (candidates) {
        for (const chunk of candidates) {
          for (let i = 0; i < chunk.length; i++) {
            const d = chunk[i]!;
            if (matches(d)) {
              total++;
              best.offer(d);
            }
          }
        }
      } else {
        for (let d = 0; d < docs.length; d++) {
          if (docs[d] !== undefined && matches(d)) {
            total++;
            best.offer(d);
          }
        }
      }
      ordered = best.sorted().slice(offset);
    } else {
      // Nothing narrowed it: walk the prebuilt order once, count everything, keep one page. When
      // the order is by start date, a start-date range is one contiguous slice of it.
      const walk = this.order(sortKey).docs;
      let from = 0;
      let to = walk.length;
      if (dateSorted && ranged) {
        // Ascending: [ < lo | in range | >= hi or undated ]; descending: [ >= hi | in range | < lo | undated ].
        const before =
          q.sort === EventSort.EVENT_SORT_DATE_DESC
            ? (d: number) => starts[d]! >= hi
            : (d: number) => starts[d]! < lo;
        from = firstIndex(walk, (d) => !before(d));
        to = firstIndex(walk, (d) => !(starts[d]! >= lo && starts[d]! < hi), from);
      }
      ordered = [];
      // Unfiltered listings ("the most recent events") are the commonest query: their count depends
      // only on the inclusion flags and the clock, so it is kept for a second (cleared on any change)
      // and the walk stops once the page is full.
      const countKey =
        predicates.length === 0 && from === 0 && to === walk.length
          ? `${required}|${refused}|${Math.floor(nowMs / 1000)}`
          : undefined;
      const known = countKey === undefined ? undefined : this.counts.get(countKey);
      for (let i = from; i < to; i++) {
        const d = walk[i]!;
        if (!matches(d)) continue;
        if (total >= offset && ordered.length < limit) ordered.push(d);
        total++;
        if (known !== undefined && ordered.length === limit) break;
      }
      if (known !== undefined) total = known;
      else if (countKey !== undefined) {
        if (this.counts.size > 64) this.counts.clear();
        this.counts.set(countKey, total);
      }
    }
    return { items: ordered.map((d) => docs[d]!), total, offset, limit };
  }

  /** Every live event in one sort order (built once, then kept current: doc-order.ts). */
  private order(sort: EventSort): SortedDocs {
    let order = this.orders.get(sort);
    if (!order) {
      // Reads the columns through `this` at each call: they are replaced when they grow.
      const compare = comparatorFor(sort, {
        startMs: (e) => this.starts[e.doc]!,
        onsaleMs: (e) => this.onsale[e.doc]!,
      });
      const docs = this.docs;
      order = new DocOrder((a, b) => compare(docs[a]!, docs[b]!), !VOLATILE_SORTS.has(sort));
      this.orders.set(sort, order);
    }
    return order.current(this.docs.length, (d) => this.docs[d] !== undefined);
  }

  /** Segments → genres → sub-genres as the visible events use them, by name. */
  private classifications(now: Date): ClassificationSegment[] {
    const second = Math.floor(now.getTime() / 1000);
    if (this.classificationTree?.builtAtS === second) return this.classificationTree.segments;
    // A level without an id is keyed by its folded first name, so name-only levels merge.
    const keyOf = (level: ClassificationLevel) =>
      level.id || `#${normalizedPhrase(localeValues(level.names)[0] ?? '')}`;
    const segments = new Map<
      string,
      {
        segment: ClassificationLevel;
        genres: Map<
          string,
          { genre: ClassificationLevel; subGenres: Map<string, ClassificationLevel> }
        >;
        events: Set<string>;
      }
    >();
    for (const e of this.events.values()) {
      if (!this.visibleAt(e, now.getTime())) continue;
      for (const c of e.classifications) {
        if (!c.segment) continue;
        const segmentKey = keyOf(c.segment);
        let node = segments.get(segmentKey);
        if (!node)
          segments.set(
            segmentKey,
            (node = { segment: c.segment, genres: new Map(), events: new Set() }),
          );
        node.events.add(e.id);
        if (!c.genre) continue;
        const genreKey = keyOf(c.genre);
        let genre = node.genres.get(genreKey);
        if (!genre) node.genres.set(genreKey, (genre = { genre: c.genre, subGenres: new Map() }));
        if (c.subGenre) genre.subGenres.set(keyOf(c.subGenre), c.subGenre);
      }
    }
    const byName = (a: ClassificationLevel | undefined, b: ClassificationLevel | undefined) =>
      compareText(fold(localeValues(a?.names)[0] ?? ''), fold(localeValues(b?.names)[0] ?? ''));
    const tree = [...segments.values()]
      .map((node): ClassificationSegment => ({
        segment: node.segment,
        eventCount: node.events.size,
        genres: [...node.genres.values()]
          .map((g) => ({ genre: g.genre, subGenres: [...g.subGenres.values()].sort(byName) }))
          .sort((a, b) => byName(a.genre, b.genre)),
      }))
      .sort((a, b) => byName(a.segment, b.segment));
    this.classificationTree = { builtAtS: second, segments: tree };
    return tree;
  }

  /** Segments having a level whose name holds every keyword word (discovery v2 `/classifications`). */
  searchClassifications(q: SearchClassificationsRequest, now: Date): Page<ClassificationSegment> {
    const { offset, limit } = checkPage(q.page, MAX_EVENT_PAGE_SIZE);
    const wanted = [...new Set(words(q.keyword))];
    const nameWords = (level: ClassificationLevel | undefined) =>
      localeValues(level?.names).flatMap(words);
    const found = this.classifications(now).filter((s) => {
      if (wanted.length === 0) return true;
      const all = new Set([
        ...nameWords(s.segment),
        ...s.genres.flatMap((g) => [...nameWords(g.genre), ...g.subGenres.flatMap(nameWords)]),
      ]);
      return wanted.every((w) => all.has(w));
    });
    return { items: found.slice(offset, offset + limit), total: found.length, offset, limit };
  }

  /** The segment holding a segment, genre or sub-genre id, and the level the id names. */
  getClassification(
    id: string,
    now: Date,
  ): { segment: ClassificationSegment; level: 'segment' | 'genre' | 'subgenre' } | undefined {
    for (const segment of this.classifications(now)) {
      if (segment.segment?.id === id) return { segment, level: 'segment' };
      for (const g of segment.genres) {
        if (g.genre?.id === id) return { segment, level: 'genre' };
        if (g.subGenres.some((sub) => sub.id === id)) return { segment, level: 'subgenre' };
      }
    }
    return undefined;
  }

  private inCountries(eventIds: Iterable<string>, countries: ReadonlySet<string>): boolean {
    for (const id of eventIds) {
      const venueId = this.events.get(id)?.venueId;
      const code = venueId
        ? this.venues.get(venueId)?.venue.country?.countryCode.toUpperCase()
        : '';
      if (code && countries.has(code)) return true;
    }
    return false;
  }

  /**
   * Attractions sharing genres or sub-genres with one attraction, most shared classifications first,
   * then most upcoming events (international `/attractions/{id}/similar`).
   */
  similarAttractions(
    id: string,
    options: { hasEvents: boolean; countryCodes: readonly string[]; limit: number },
    now: Date,
  ): DiscoveryAttraction[] | undefined {
    const self = this.attractions.get(id);
    if (!self) return undefined;
    const keysOf = (a: DiscoveryAttraction) =>
      new Set(
        a.classifications.flatMap((c) =>
          [c.genre?.id, c.subGenre?.id].filter((k): k is string => Boolean(k)),
        ),
      );
    const mine = keysOf(self.attraction);
    const countries = new Set(options.countryCodes.map((c) => c.toUpperCase()));
    const scored: { attraction: DiscoveryAttraction; shared: number }[] = [];
    for (const [otherId, other] of this.attractions) {
      if (otherId === id) continue;
      let shared = 0;
      for (const key of keysOf(other.attraction)) if (mine.has(key)) shared++;
      if (shared === 0) continue;
      if (countries.size > 0 && !this.inCountries(other.events, countries)) continue;
      const upcomingEvents = this.upcomingIn(this.byAttraction.get(otherId), now);
      if (options.hasEvents && upcomingEvents === 0) continue;
      scored.push({ attraction: { ...other.attraction, upcomingEvents }, shared });
    }
    scored.sort(
      (a, b) =>
        b.shared - a.shared ||
        b.attraction.upcomingEvents - a.attraction.upcomingEvents ||
        byId(a.attraction, b.attraction),
    );
    return scored.slice(0, options.limit).map((s) => s.attraction);
  }

  searchVenues(
    q: SearchVenuesRequest,
    now: Date,
    maxSize = MAX_EVENT_PAGE_SIZE,
  ): Page<DiscoveryVenue> {
    const { offset, limit } = checkPage(q.page, maxSize);
    let ids: Iterable<string> = this.venues.keys();
    const keywordWords = [...new Set(words(q.keyword))];
    if (keywordWords.length > 0) {
      const sets = keywordWords
        .map((w) => this.venueByWord.get(w) ?? EMPTY)
        .sort((a, b) => a.size - b.size);
      ids = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
    }
    const center = q.latlong ? (toPoint(q.latlong) ?? q.latlong) : undefined;
    const km = radiusKm(q.radius, q.unit);
    const wantedIds = new Set(q.ids);
    const countries = new Set(q.countryCodes.map((c) => c.toUpperCase()));
    const states = new Set(q.stateCodes.map((c) => c.toUpperCase()));
    const markets = new Set(q.marketIds);
    const wantedCities = new Set(q.cityIds);
    const nameAny = q.nameAny.map(normalizedPhrase).filter((n) => n !== '');
    const found: DiscoveryVenue[] = [];
    for (const id of ids) {
      const entry = this.venues.get(id)!;
      const v = entry.venue;
      if (wantedIds.size > 0 && !wantedIds.has(id)) continue;
      if (countries.size > 0 && !countries.has(v.country?.countryCode.toUpperCase() ?? ''))
        continue;
      if (states.size > 0 && !states.has(v.state?.stateCode.toUpperCase() ?? '')) continue;
      if (
        q.city &&
        !localeValues(v.cityNames).some((c) => normalizedPhrase(c) === normalizedPhrase(q.city))
      )
        continue;
      if (q.postalCode && normalizedPhrase(v.postalCode) !== normalizedPhrase(q.postalCode))
        continue;
      if (markets.size > 0 && !v.marketIds.some((m) => markets.has(m))) continue;
      if (wantedCities.size > 0 && !entry.cityIds.some((c) => wantedCities.has(c))) continue;
      if (!inclusionAccepts(q.includeTest, v.test)) continue;
      if (nameAny.length > 0) {
        const name = localeValues(v.names).map(normalizedPhrase);
        if (!nameAny.some((part) => name.some((n) => n.includes(part)))) continue;
      }
      if (
        q.excludeExternal &&
        ![...entry.events].some((e) => this.events.get(e)?.external === false)
      )
        continue;
      if (center) {
        const point = toPoint(v.location);
        if (!point || distanceKm(center, point) > km) continue;
      }
      found.push({ ...v, upcomingEvents: this.upcomingIn(this.byVenue.get(id), now) });
    }
    const name = (v: DiscoveryVenue) => fold(pickText(v.names, firstLocale(v.names)));
    const city = (v: DiscoveryVenue) => fold(pickText(v.cityNames, firstLocale(v.cityNames)));
    const cmp: Record<string, (a: DiscoveryVenue, b: DiscoveryVenue) => number> = {
      [NameSort.NAME_SORT_NAME_DESC]: (a, b) => name(b).localeCompare(name(a)),
      [NameSort.NAME_SORT_CITY_ASC]: (a, b) =>
        city(a).localeCompare(city(b)) || name(a).localeCompare(name(b)),
      [NameSort.NAME_SORT_CITY_DESC]: (a, b) =>
        city(b).localeCompare(city(a)) || name(a).localeCompare(name(b)),
      [NameSort.NAME_SORT_POPULARITY_DESC]: (a, b) => b.upcomingEvents - a.upcomingEvents,
      [NameSort.NAME_SORT_POPULARITY_ASC]: (a, b) => a.upcomingEvents - b.upcomingEvents,
    };
    const primary = cmp[q.sort] ?? ((a, b) => name(a).localeCompare(name(b)));
    found.sort((a, b) => primary(a, b) || name(a).localeCompare(name(b)) || byId(a, b));
    return { items: found.slice(offset, offset + limit), total: found.length, offset, limit };
  }

  searchAttractions(
    q: SearchAttractionsRequest,
    now: Date,
    maxSize = MAX_EVENT_PAGE_SIZE,
  ): Page<DiscoveryAttraction> {
    const { offset, limit } = checkPage(q.page, maxSize);
    let ids: Iterable<string> = this.attractions.keys();
    const keywordWords = [...new Set(words(q.keyword))];
    if (keywordWords.length > 0) {
      const sets = keywordWords
        .map((w) => this.attractionByWord.get(w) ?? EMPTY)
        .sort((a, b) => a.size - b.size);
      ids = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
    }
    const wantedIds = new Set(q.ids);
    const classIds = new Set(q.classificationIds.map((c) => c.toLowerCase()));
    const classNames = new Set(q.classificationNames.map(normalizedPhrase));
    const nameContains = normalizedPhrase(q.nameContains);
    const fuzzy = words(q.fuzzy);
    const countries = new Set(q.countryCodes.map((c) => c.toUpperCase()));
    const found: DiscoveryAttraction[] = [];
    for (const id of ids) {
      const entry = this.attractions.get(id)!;
      const a = entry.attraction;
      if (wantedIds.size > 0 && !wantedIds.has(id)) continue;
      if (!inclusionAccepts(q.includeTest, a.test)) continue;
      const levels = a.classifications.flatMap((c) => [c.segment, c.genre, c.subGenre]);
      if (classIds.size > 0 && !levels.some((l) => l && classIds.has(l.id.toLowerCase()))) continue;
      if (
        classNames.size > 0 &&
        !levels.some(
          (l) => l && localeValues(l.names).some((n) => classNames.has(normalizedPhrase(n))),
        )
      )
        continue;
      if (
        nameContains &&
        !localeValues(a.names).some((n) => normalizedPhrase(n).includes(nameContains))
      )
        continue;
      if (fuzzy.length > 0 && !fuzzyMatches(fuzzy, entry.nameWords)) continue;
      if (countries.size > 0 && !this.inCountries(entry.events, countries)) continue;
      const upcomingEvents = this.upcomingIn(this.byAttraction.get(id), now);
      if (q.hasEvents && upcomingEvents === 0) continue;
      found.push({ ...a, upcomingEvents });
    }
    const name = (a: DiscoveryAttraction) => fold(pickText(a.names, firstLocale(a.names)));
    const cmp: Record<string, (a: DiscoveryAttraction, b: DiscoveryAttraction) => number> = {
      [NameSort.NAME_SORT_NAME_DESC]: (a, b) => name(b).localeCompare(name(a)),
      [NameSort.NAME_SORT_POPULARITY_DESC]: (a, b) => b.upcomingEvents - a.upcomingEvents,
      [NameSort.NAME_SORT_POPULARITY_ASC]: (a, b) => a.upcomingEvents - b.upcomingEvents,
    };
    const primary = cmp[q.sort] ?? ((a, b) => name(a).localeCompare(name(b)));
    found.sort((a, b) => primary(a, b) || name(a).localeCompare(name(b)) || byId(a, b));
    return { items: found.slice(offset, offset + limit), total: found.length, offset, limit };
  }
}
