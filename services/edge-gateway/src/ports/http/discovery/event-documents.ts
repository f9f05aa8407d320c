import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import {
  encodedEventKey,
  encodedPlaceId,
  type EncodedEventsPage,
} from '@marquee/proto/catalog/v1/wire';
import { LRUCache } from 'lru-cache';
import {
  attractionDocument,
  eventHead,
  eventRefs,
  linksJson,
  Utf8Writer,
  venueDocument,
  type EventRefs,
} from '@marquee/discovery-documents';

export interface EventDocumentsOptions {
  /** Memory budget of the rendered event bodies (their JSON text), bytes. */
  maxBytes?: number;
  /** Memory budget of the rendered venue and attraction documents, bytes. */
  maxEmbeddedBytes?: number;
}

interface RenderedEvent {
  /** What it was rendered from: the event's version and the length of its encoding. */
  version: string;
  length: number;
  /**
   * The event's body as UTF-8 JSON, without its closing brace. Bytes outside the JavaScript heap:
   * a cache of strings would have the young generation's collector copy every newly rendered body
   * (bench/discovery with --trace-gc: 8-28 ms scavenges every few hundred ms while it filled).
   */
  head: Buffer;
  refs: EventRefs;
}

interface RenderedEmbedded {
  /** A copy of the encoding it was rendered from. */
  bytes: Buffer;
  json: string;
}

/** The `_links` and `page` members of a search page (HAL), after its `_embedded` events. */
export interface PageTail {
  _links: unknown;
  page: unknown;
}

/**
 * Discovery v2 event documents, each event version rendered once: a search page's events, venues
 * and attractions arrive encoded (DiscoveryCatalog.searchEventsEncoded), and what the edge rendered
 * before is neither decoded nor rendered again.
 *
 * - An event by id and locale, at the same version: an event's `version` names one state of it — it
 *   grows with every change, whatever the producer, and consumers drop anything not newer than what
 *   they hold (event.proto; catalog-indexer does) — and the length of the encoding is checked too.
 * - A venue or attraction by id and locale, with the same bytes (compared whole: they are small, and
 *   their upcoming-event counts change whenever the catalog does).
 *
 * A page then joins text: each event's body, its links, and the embedded documents of its venue and
 * attractions as this page's answer carries them. The result is, byte for byte, what
 * `JSON.stringify(eventDocument(...))` writes (tests check it). Searches that are not repeated
 * still mostly show events shown before (catalog-indexer README, "Benchmark").
 *
 * LRU over byte budgets (lru-cache).
 */
export function createEventDocuments(options: EventDocumentsOptions = {}) {
  const events = new LRUCache<string, RenderedEvent>({
    maxSize: options.maxBytes ?? 64 * 1024 * 1024,
    // The text, the key, and the entry's objects.
    sizeCalculation: (entry, key) => entry.head.length + 2 * key.length + 160,
  });
  const embedded = new LRUCache<string, RenderedEmbedded>({
    maxSize: options.maxEmbeddedBytes ?? 16 * 1024 * 1024,
    sizeCalculation: (entry, key) => entry.bytes.length + 2 * (entry.json.length + key.length) + 96,
  });

  /** The JSON of a venue or attraction document, and its id. */
  const embeddedJson = (
    kind: 'venue' | 'attraction',
    bytes: Uint8Array,
    locale: string | undefined,
  ): [id: string, json: string] => {
    const id = encodedPlaceId(bytes);
    const key = `${kind}\u0000${locale ?? ''}\u0000${id}`;
    const known = embedded.get(key);
    if (known !== undefined && Buffer.compare(known.bytes, bytes) === 0) return [id, known.json];
    const json = JSON.stringify(
      kind === 'venue'
        ? venueDocument(DiscoveryVenue.decode(bytes), locale)
        : attractionDocument(DiscoveryAttraction.decode(bytes), locale),
    );
    embedded.set(key, { bytes: Buffer.from(bytes), json });
    return [id, json];
  };

  const eventEntry = (bytes: Uint8Array, locale: string | undefined): RenderedEvent => {
    const { id, version } = encodedEventKey(bytes);
    const key = `${locale ?? ''}\u0000${id}`;
    let entry = events.get(key);
    if (entry === undefined || entry.version !== version || entry.length !== bytes.length) {
      const event = Event.decode(bytes);
      entry = {
        version,
        length: bytes.length,
        head: eventHead(event, locale),
        refs: eventRefs(event),
      };
      events.set(key, entry);
    }
    return entry;
  };

  /** The page's event documents, joined by commas: each event's body, links and embedded ones. */
  const writeEvents = (out: Utf8Writer, answer: EncodedEventsPage, locale: string | undefined) => {
    const venues = new Map(answer.venues.map((bytes) => embeddedJson('venue', bytes, locale)));
    const attractions = new Map(
      answer.attractions.map((bytes) => embeddedJson('attraction', bytes, locale)),
    );
    const venueJson = (id: string) => venues.get(id);
    const attractionJson = (id: string) => attractions.get(id);
    answer.events.forEach((bytes, n) => {
      const { head, refs } = eventEntry(bytes, locale);
      if (n > 0) out.text(',');
      out.bytes(head);
      out.text(',');
      out.text(linksJson(refs, venueJson, attractionJson, locale));
    });
  };

  return {
    /**
     * A search page as UTF-8 JSON, `{"_embedded":{"events":[…]},"_links":…,"page":…}`, in a Buffer
     * of exactly its size: the events are the documents the catalog rendered when it sent them
     * (`answer.documents`), else this edge's renderings of the encoded events in `locale`. The
     * page is joined from bytes here and nowhere else; it equals `JSON.stringify` of the page
     * object (tests check it).
     */
    page(answer: EncodedEventsPage, locale: string | undefined, tail: PageTail): Buffer {
      const out = new Utf8Writer();
      out.text('{"_embedded":{"events":[');
      if (answer.documents !== undefined) out.bytes(answer.documents);
      else writeEvents(out, answer, locale);
      out.text(']},');
      // `{"_links":…,"page":…}` without its opening brace: the rest of the page, closed.
      out.text(JSON.stringify({ _links: tail._links, page: tail.page }).slice(1));
      return out.finish();
    },
    get size(): number {
      return events.size;
    },
  };
}
