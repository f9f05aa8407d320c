import type { Attraction, CatalogEvent, Venue } from '../model.js';
import type { PostingList } from '../postings.js';
import type { EventColumnStore, EventEntry } from './column-store.js';
import type { AttractionEntry, CountedBytes, Places, VenueEntry } from './places.js';
import type { DocumentHit, EncodedEventHit, EncodedView, EventHit } from './query.js';

/**
 * How the index keeps each event's full state between queries, and the encodings its answers
 * carry. The service's codec (adapters/protobuf-event-codec.ts) keeps each event as the bytes the
 * gRPC port forwards in a search answer, made once per event version, so a page neither maps nor
 * encodes its events, and 100,000 events do not make a heap of object graphs that the garbage
 * collector has to walk (README: memory). To the domain those bytes are opaque.
 */
export interface EventCodec<P = unknown> {
  /** The event, and its rendered document when the index has a renderer (DocumentRenderer). */
  pack(event: CatalogEvent, document: string | undefined): P;
  unpack(packed: P): CatalogEvent;
  /** The document packed with the event, as UTF-8 (undefined if none was). */
  document(packed: P): Uint8Array | undefined;
  /** The event's encoding as search answers carry it, held in the packed form (no encoding). */
  encoded(packed: P): Uint8Array;
  /** A venue's encoding as search answers carry it (made when its upcoming-event count moves). */
  encodeVenue(venue: Venue): Uint8Array;
  /** An attraction's encoding as search answers carry it (as `encodeVenue`). */
  encodeAttraction(attraction: Attraction): Uint8Array;
}

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
  eventOpening(event: CatalogEvent): string;
  /** A venue's document, as UTF-8. */
  venue(venue: Venue): Uint8Array;
  /** An attraction's document, as UTF-8. */
  attraction(attraction: Attraction): Uint8Array;
}

/**
 * The three forms a search answers its entries in: records (EventHit), the codec's encodings
 * (EncodedEventHit) and rendered documents (DocumentHit), each with its venue and attractions
 * as they stand now. A venue's or attraction's bytes and document are made again only when its
 * upcoming-event count moved (or it changed: a new entry), not for every page.
 */
export class HitWriter {
  constructor(
    private readonly store: EventColumnStore,
    private readonly places: Places,
    private readonly codec: EventCodec,
    private readonly renderer: DocumentRenderer | undefined,
  ) {}

  /** Whether this index renders documents. */
  get renders(): boolean {
    return this.renderer !== undefined;
  }

  hit(entry: EventEntry, now: Date): EventHit {
    const places = this.places;
    return {
      event: this.codec.unpack(entry.packed),
      venue: entry.venueId ? places.venueView(entry.venueId, now) : undefined,
      attractions: entry.attractionIds
        .map((a) => places.attractionView(a, now))
        .filter((a): a is Attraction => a !== undefined),
    };
  }

  encoded(entry: EventEntry, now: Date): EncodedEventHit {
    const encoded = this.codec.encoded(entry.packed);
    const venue = entry.venueId ? this.places.venues.get(entry.venueId) : undefined;
    const attractions: EncodedView[] = [];
    for (const id of entry.attractionIds) {
      const attraction = this.places.attractions.get(id);
      if (attraction) attractions.push(this.encodedAttraction(attraction, now));
    }
    return { encoded, venue: venue && this.encodedVenue(venue, now), attractions };
  }

  /** Needs a renderer (`renders`). */
  document(entry: EventEntry, now: Date): DocumentHit {
    const renderer = this.renderer!;
    const { venues, attractions } = this.places;
    // Every venue and attraction an event names has an entry while the event is indexed.
    return {
      opening: this.codec.document(entry.packed)!,
      venue:
        entry.venueId === undefined
          ? undefined
          : this.venueDocument(venues.get(entry.venueId)!, now, renderer),
      attractions: entry.attractionIds.map((id) =>
        this.attractionDocument(attractions.get(id)!, now, renderer),
      ),
    };
  }

  /** `held` while made with the current upcoming-event count of `list`, else made for it now. */
  private byCount(
    held: CountedBytes | undefined,
    list: PostingList | undefined,
    now: Date,
    make: (upcoming: number) => Uint8Array,
  ): CountedBytes {
    const upcoming = this.store.upcomingIn(list, now);
    return held?.upcoming === upcoming ? held : { upcoming, bytes: make(upcoming) };
  }

  /** A venue's encoding with its upcoming-event count. */
  private encodedVenue(entry: VenueEntry, now: Date): EncodedView {
    const { venue } = entry;
    const list = this.store.postings.venue.get(venue.id);
    entry.encoded = this.byCount(entry.encoded, list, now, (upcomingEvents) =>
      this.codec.encodeVenue({ ...venue, upcomingEvents }),
    );
    return { id: venue.id, encoded: entry.encoded.bytes };
  }

  /** An attraction's encoding with its upcoming-event count. */
  private encodedAttraction(entry: AttractionEntry, now: Date): EncodedView {
    const { attraction } = entry;
    const list = this.store.postings.attraction.get(attraction.id);
    entry.encoded = this.byCount(entry.encoded, list, now, (upcomingEvents) =>
      this.codec.encodeAttraction({ ...attraction, upcomingEvents }),
    );
    return { id: attraction.id, encoded: entry.encoded.bytes };
  }

  /** A venue's document with its upcoming-event count. */
  private venueDocument(entry: VenueEntry, now: Date, renderer: DocumentRenderer): Uint8Array {
    const { venue } = entry;
    const list = this.store.postings.venue.get(venue.id);
    entry.rendered = this.byCount(entry.rendered, list, now, (upcomingEvents) =>
      renderer.venue({ ...venue, upcomingEvents }),
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
    const list = this.store.postings.attraction.get(attraction.id);
    entry.rendered = this.byCount(entry.rendered, list, now, (upcomingEvents) =>
      renderer.attraction({ ...attraction, upcomingEvents }),
    );
    return entry.rendered.bytes;
  }
}
