import type {
  Attraction,
  CatalogEvent,
  ClassificationSegment,
  EventAvailability,
  Venue,
} from './model.js';
import { resolveEvent } from './resolution.js';
import { ClassificationTree } from './search/classifications.js';
import { EventColumnStore, postingKeysOf, type EventEntry } from './search/column-store.js';
import { EventSearchExecutor } from './search/executors.js';
import { HitWriter, type DocumentRenderer, type EventCodec } from './search/hits.js';
import { Places } from './search/places.js';
import { planEventSearch } from './search/planner.js';
import {
  MAX_EVENT_PAGE_SIZE,
  type AttractionQuery,
  type ClassificationQuery,
  type DocumentHit,
  type EncodedEventHit,
  type EventHit,
  type EventQuery,
  type FoundClassification,
  type Page,
  type SimilarAttractionsQuery,
  type VenueQuery,
} from './search/query.js';

export type { DocumentRenderer, EventCodec } from './search/hits.js';
export * from './search/query.js';

/** What a sold-out event carries in its answers (`availability`); absent when not sold out. */
const SOLD_OUT: EventAvailability = { soldOut: true };

/**
 * The discovery search index: every event of the read model with inverted indexes on the words of
 * its name, its venue, attractions, classifications and markets, and a geo grid of venues. Lives in
 * memory (FerretDB has no text or geo indexes; architecture.md), rebuilt from the Mongo read model
 * at start and kept current by the `event-changed` consumer. Pure: no I/O, the clock is a parameter.
 *
 * A facade over its parts (search/): the column store (events, columns, posting lists, orders),
 * the places (venues and attractions), the planner (a query → a plan), the executors (a plan → a
 * page of entries), the hit writer (entries → answers) and the classification tree.
 */
export class CatalogIndex {
  private readonly store = new EventColumnStore();
  private readonly places = new Places(this.store);
  private readonly executor = new EventSearchExecutor(this.store, this.places);
  private readonly tree = new ClassificationTree(this.store);
  private readonly hits: HitWriter;
  /**
   * Ids of the events known to be sold out (`setSoldOut`), indexed or not yet: availability may
   * arrive before its event, and an event's new state keeps what is known of its availability.
   */
  private readonly soldOut = new Set<string>();

  constructor(
    private readonly codec: EventCodec,
    private readonly renderer?: DocumentRenderer,
  ) {
    this.hits = new HitWriter(this.store, this.places, codec, renderer);
  }

  get size(): number {
    return this.store.size;
  }

  /** Adds or replaces an event (the caller has checked that this state is newer). */
  upsert(input: CatalogEvent): void {
    this.remove(input.id);
    const { event, venue, venueDescribed, attractions } = resolveEvent(input);
    // The catalog's own knowledge of its availability, whatever the producer put there.
    event.availability = this.soldOut.has(event.id) ? SOLD_OUT : undefined;
    const places = this.places;
    if (venue) places.mergeVenue(venue, venueDescribed, event.id);
    for (const attraction of attractions) places.mergeAttraction(attraction, event.id);
    this.store.add(
      event,
      this.codec.pack(event, this.renderer?.eventOpening(event)),
      postingKeysOf(event),
      {
        venueId: venue && places.venueId(venue.id),
        attractionIds: attractions.map((a) => places.attractionId(a.id)),
        attractionCounters: attractions.map((a) => places.attractionCounter(a.id)),
      },
    );
    this.changed();
  }

  remove(id: string): boolean {
    const entry = this.store.entries.get(id);
    if (!entry) return false;
    // The keys it was posted under, from the packed event (the same resolved event upsert read).
    this.store.remove(entry, postingKeysOf(this.codec.unpack(entry.packed)));
    this.places.release(entry);
    this.changed();
    return true;
  }

  /**
   * Whether the event `id` is known to be sold out (`availability-changed`), indexed or not yet: an
   * event indexed later, or a new state of it, carries it. An indexed event's packed state
   * (`availability`, in the records and the encoded answers alike) and its flag change at once.
   * Answers whether what the index serves changed.
   */
  setSoldOut(id: string, soldOut: boolean): boolean {
    if (this.soldOut.has(id) === soldOut) return false;
    if (soldOut) this.soldOut.add(id);
    else this.soldOut.delete(id);
    const entry = this.store.entries.get(id);
    if (!entry) return false;
    const event: CatalogEvent = {
      ...this.codec.unpack(entry.packed),
      availability: soldOut ? SOLD_OUT : undefined,
    };
    entry.packed = this.codec.pack(event, this.renderer?.eventOpening(event));
    this.store.setSoldOut(entry, soldOut);
    this.executor.invalidate();
    return true;
  }

  private changed(): void {
    this.executor.invalidate();
    this.tree.invalidate();
  }

  /** One event by id, whatever its visibility (the caller decides), with its venue and attractions. */
  getEvent(id: string, now: Date): (EventHit & { visible: boolean }) | undefined {
    const entry = this.store.entries.get(id);
    return (
      entry && {
        ...this.hits.hit(entry, now),
        visible: this.store.visibleAt(entry, now.getTime()),
      }
    );
  }

  getVenue(id: string, now: Date): Venue | undefined {
    return this.places.venueView(id, now);
  }

  getAttraction(id: string, now: Date): Attraction | undefined {
    return this.places.attractionView(id, now);
  }

  /** Discovery v2 event search (every query parameter of `GET /discovery/v2/events`). */
  searchEvents(q: EventQuery, now: Date): Page<EventHit> {
    return this.mapPage(this.findEvents(q, now), (entry) => this.hits.hit(entry, now));
  }

  /** The same search, each event as the codec's encoding: the gRPC port forwards the bytes. */
  searchEventsEncoded(q: EventQuery, now: Date): Page<EncodedEventHit> {
    return this.mapPage(this.findEvents(q, now), (entry) => this.hits.encoded(entry, now));
  }

  /**
   * The same search answered with each event's rendered document (DocumentRenderer); undefined when
   * the index has no renderer.
   */
  searchEventsDocuments(q: EventQuery, now: Date): Page<DocumentHit> | undefined {
    if (!this.hits.renders) return undefined;
    return this.mapPage(this.findEvents(q, now), (entry) => this.hits.document(entry, now));
  }

  private findEvents(q: EventQuery, now: Date): Page<EventEntry> {
    return this.executor.run(planEventSearch(q), now);
  }

  private mapPage<T>(page: Page<EventEntry>, map: (entry: EventEntry) => T): Page<T> {
    return {
      total: page.total,
      offset: page.offset,
      limit: page.limit,
      items: page.items.map(map),
    };
  }

  searchClassifications(q: ClassificationQuery, now: Date): Page<ClassificationSegment> {
    return this.tree.search(q, now);
  }

  /** The segment holding a segment, genre or sub-genre id, and the level the id names. */
  getClassification(id: string, now: Date): FoundClassification | undefined {
    return this.tree.find(id, now);
  }

  /**
   * Attractions sharing genres or sub-genres with one attraction, most shared classifications first,
   * then most upcoming events (international `/attractions/{id}/similar`).
   */
  similarAttractions(
    id: string,
    options: SimilarAttractionsQuery,
    now: Date,
  ): Attraction[] | undefined {
    return this.places.similarAttractions(id, options, now);
  }

  searchVenues(q: VenueQuery, now: Date, maxSize = MAX_EVENT_PAGE_SIZE): Page<Venue> {
    return this.places.searchVenues(q, now, maxSize);
  }

  searchAttractions(
    q: AttractionQuery,
    now: Date,
    maxSize = MAX_EVENT_PAGE_SIZE,
  ): Page<Attraction> {
    return this.places.searchAttractions(q, now, maxSize);
  }
}
