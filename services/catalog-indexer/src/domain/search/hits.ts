import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event as EventMessage,
  type Event,
} from '@marquee/proto/catalog/v1';
import type { PostingList } from '../postings.js';
import type { EventColumnStore, EventEntry } from './column-store.js';
import type { AttractionEntry, CountedBytes, Places, VenueEntry } from './places.js';
import type { DocumentHit, EncodedEventHit, EncodedView, EventHit } from './query.js';

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

export const keepObjects: EventCodec<{ event: Event; document: Uint8Array | undefined }> = {
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
 * The three forms a search answers its entries in: decoded (EventHit), protobuf bytes
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
        .filter((a): a is DiscoveryAttraction => a !== undefined),
    };
  }

  encoded(entry: EventEntry, now: Date): EncodedEventHit {
    const codec = this.codec;
    const encoded = codec.encoded
      ? codec.encoded(entry.packed)
      : EventMessage.encode(codec.unpack(entry.packed)).finish();
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

  /** A venue as DiscoveryVenue bytes with its upcoming-event count. */
  private encodedVenue(entry: VenueEntry, now: Date): EncodedView {
    const { venue } = entry;
    const list = this.store.postings.venue.get(venue.id);
    entry.encoded = this.byCount(entry.encoded, list, now, (upcomingEvents) =>
      DiscoveryVenue.encode({ ...venue, upcomingEvents }).finish(),
    );
    return { id: venue.id, encoded: entry.encoded.bytes };
  }

  /** An attraction as DiscoveryAttraction bytes with its upcoming-event count. */
  private encodedAttraction(entry: AttractionEntry, now: Date): EncodedView {
    const { attraction } = entry;
    const list = this.store.postings.attraction.get(attraction.id);
    entry.encoded = this.byCount(entry.encoded, list, now, (upcomingEvents) =>
      DiscoveryAttraction.encode({ ...attraction, upcomingEvents }).finish(),
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
