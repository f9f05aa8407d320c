import {
  CatalogIndex,
  type AttractionQuery,
  type ClassificationQuery,
  type DocumentHit,
  type DocumentRenderer,
  type EncodedEventHit,
  type EventCodec,
  type EventHit,
  type EventQuery,
  type FoundClassification,
  type Page,
  type SimilarAttractionsQuery,
  type VenueQuery,
} from '../domain/catalog-index.js';
import {
  applyAvailability,
  isSoldOut,
  type AvailabilityRecordRepository,
  type AvailabilityUpdate,
} from '../domain/availability.js';
import { CatalogNotFoundError, MismatchedEventError } from '../domain/errors.js';
import type { EventRecordRepository } from '../domain/event-record.js';
import type { Attraction, CatalogEvent, ClassificationSegment, Venue } from '../domain/model.js';

export type ChangeOutcome = 'applied' | 'stale' | 'deleted' | 'already-deleted';

/** What became of an `availability-changed` message. */
export type AvailabilityOutcome = 'applied' | 'stale';

export interface CatalogOptions {
  records: EventRecordRepository;
  /** Per-event availability (`availability-changed`), part of the read model too. */
  availability: AvailabilityRecordRepository;
  clock?: () => Date;
  /** Page size of the rebuild scan. */
  rebuildPageSize?: number;
  /**
   * How the index keeps events between queries and encodes its answers (the service's:
   * adapters/protobuf-event-codec.ts).
   */
  eventCodec: EventCodec;
  /** Renders each event's public document as it is indexed (searchEventsDocuments). */
  documents?: DocumentRenderer;
}

/**
 * The catalog use cases: apply `event-changed` to the read model (idempotent and order-safe per
 * event by its `version`; tombstones delete) and `availability-changed` (order-safe per event by
 * its `sequence`), rebuild the search index from the read model, and answer discovery queries from
 * the index.
 */
export class Catalog {
  readonly index: CatalogIndex;
  private readonly records: EventRecordRepository;
  private readonly availability: AvailabilityRecordRepository;
  private readonly clock: () => Date;
  private readonly rebuildPageSize: number;

  private sequenceValue = 0;
  private readonly listeners = new Set<(sequence: number) => void>();

  /** Changes applied to the index since this catalog started: what a cached answer is current at. */
  get sequence(): number {
    return this.sequenceValue;
  }

  /** Calls `listener` after each change of the index, with the new sequence; returns the unsubscribe. */
  onChange(listener: (sequence: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.sequenceValue += 1;
    for (const listener of this.listeners) listener(this.sequenceValue);
  }

  constructor(options: CatalogOptions) {
    this.records = options.records;
    this.availability = options.availability;
    this.clock = options.clock ?? (() => new Date());
    this.rebuildPageSize = options.rebuildPageSize ?? 1000;
    this.index = new CatalogIndex(options.eventCodec, options.documents);
  }

  /** Loads every live event of the read model into the index; returns how many. */
  async rebuild(): Promise<number> {
    // Availability first, so each event is indexed once with it.
    for await (const page of this.availability.scan(this.rebuildPageSize)) {
      for (const record of page) this.index.setSoldOut(record.eventId, isSoldOut(record));
    }
    for await (const page of this.records.scan(this.rebuildPageSize)) {
      for (const record of page) {
        if (!record.deleted && record.event) this.index.upsert(record.event);
        else this.index.remove(record.id);
      }
      this.changed();
    }
    return this.index.size;
  }

  /** One `event-changed` record: `event` is the whole new state, `null` a tombstone. */
  async applyEventChanged(key: string, event: CatalogEvent | null): Promise<ChangeOutcome> {
    const held = await this.records.get(key);
    if (event === null) {
      if (!held || held.deleted) return 'already-deleted';
      await this.records.put({
        id: key,
        eventVersion: held.eventVersion,
        deleted: true,
        event: undefined,
      });
      this.index.remove(key);
      this.changed();
      return 'deleted';
    }
    if (event.id !== key) {
      throw new MismatchedEventError(`record key ${key} does not match event id ${event.id}`);
    }
    // Only a newer state wins: redeliveries and reordered retries are dropped (docs/topics.md).
    if (held && event.version <= held.eventVersion) return 'stale';
    await this.records.put({ id: key, eventVersion: event.version, deleted: false, event });
    this.index.upsert(event);
    this.changed();
    return 'applied';
  }

  /**
   * One `availability-changed` message (key = event id). Applied only if its sequence is greater
   * than the last one applied for the event (`stale` otherwise: redeliveries and late retries),
   * whether or not the event is known yet: an event indexed later carries it. The record is written
   * before the index is touched (a crash in between is repaired by the rebuild); the index, and so
   * its change sequence, moves only when the event's sold-out state does.
   */
  async applyAvailabilityChanged(
    key: string,
    update: AvailabilityUpdate,
  ): Promise<AvailabilityOutcome> {
    if (update.eventId !== key) {
      throw new MismatchedEventError(
        `record key ${key} does not match availability event id ${update.eventId}`,
      );
    }
    const next = applyAvailability(await this.availability.get(key), update);
    if (!next || !(await this.availability.put(next))) return 'stale';
    if (this.index.setSoldOut(key, isSoldOut(next))) this.changed();
    return 'applied';
  }

  searchEvents(query: EventQuery): Page<EventHit> {
    return this.index.searchEvents(query, this.clock());
  }

  /** The same search with each event as the codec's encoding (what the gRPC port sends). */
  searchEventsEncoded(query: EventQuery): Page<EncodedEventHit> {
    return this.index.searchEventsEncoded(query, this.clock());
  }

  /**
   * The same search with each event as its rendered document (what the gRPC port sends when asked
   * for documents); undefined when the catalog renders none.
   */
  searchEventsDocuments(query: EventQuery): Page<DocumentHit> | undefined {
    return this.index.searchEventsDocuments(query, this.clock());
  }

  /** A publicly visible event (test events included: asking by id is asking for it). */
  getEvent(id: string): EventHit {
    const hit = this.index.getEvent(id, this.clock());
    if (!hit || !hit.visible) throw new CatalogNotFoundError(`event ${id} not found`);
    return { event: hit.event, venue: hit.venue, attractions: hit.attractions };
  }

  searchVenues(query: VenueQuery): Page<Venue> {
    return this.index.searchVenues(query, this.clock());
  }

  getVenue(id: string): Venue {
    const venue = this.index.getVenue(id, this.clock());
    if (!venue) throw new CatalogNotFoundError(`venue ${id} not found`);
    return venue;
  }

  searchAttractions(query: AttractionQuery): Page<Attraction> {
    return this.index.searchAttractions(query, this.clock());
  }

  similarAttractions(id: string, options: SimilarAttractionsQuery): Attraction[] {
    const found = this.index.similarAttractions(id, options, this.clock());
    if (!found) throw new CatalogNotFoundError(`attraction ${id} not found`);
    return found;
  }

  searchClassifications(query: ClassificationQuery): Page<ClassificationSegment> {
    return this.index.searchClassifications(query, this.clock());
  }

  getClassification(id: string): FoundClassification {
    const found = this.index.getClassification(id, this.clock());
    if (!found) throw new CatalogNotFoundError(`classification ${id} not found`);
    return found;
  }

  getAttraction(id: string): Attraction {
    const attraction = this.index.getAttraction(id, this.clock());
    if (!attraction) throw new CatalogNotFoundError(`attraction ${id} not found`);
    return attraction;
  }
}
