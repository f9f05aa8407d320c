import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import { LRUCache } from 'lru-cache';
import type { EncodedEventsPage } from '../../../app/discovery-catalog.js';
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

/** `id` is field 1 of Event, DiscoveryVenue and DiscoveryAttraction; `Event.version` field 3. */
const ID_FIELD = 1;
const EVENT_VERSION_FIELD = 3;

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
    const id = encodedId(bytes);
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

  return {
    /**
     * A search page as UTF-8 JSON: `{"_embedded":{"events":[…]}` and then `rest`, the page's other
     * members and its closing brace (`,"_links":…,"page":…}`), in a Buffer of exactly its size.
     */
    page(answer: EncodedEventsPage, locale: string | undefined, rest: string): Buffer {
      const venues = new Map(answer.venues.map((bytes) => embeddedJson('venue', bytes, locale)));
      const attractions = new Map(
        answer.attractions.map((bytes) => embeddedJson('attraction', bytes, locale)),
      );
      const venueJson = (id: string) => venues.get(id);
      const attractionJson = (id: string) => attractions.get(id);
      const out = new Utf8Writer();
      out.text('{"_embedded":{"events":[');
      answer.events.forEach((bytes, n) => {
        const { head, refs } = eventEntry(bytes, locale);
        if (n > 0) out.text(',');
        out.bytes(head);
        out.text(',');
        out.text(linksJson(refs, venueJson, attractionJson, locale));
      });
      out.text(']}');
      out.text(rest);
      return out.finish();
    },
    get size(): number {
      return events.size;
    },
  };
}

/** The `id` and `version` of an encoded `Event`, read without decoding the rest. */
export function encodedEventKey(bytes: Uint8Array): { id: string; version: string } {
  const reader = new BinaryReader(bytes);
  let id = '';
  let version = '0';
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === ID_FIELD && wireType === WireType.LengthDelimited) id = reader.string();
    else if (field === EVENT_VERSION_FIELD && wireType === WireType.Varint) {
      version = String(reader.int64());
      // Fields are written in number order: the id came first.
      break;
    } else reader.skip(wireType, field);
  }
  return { id, version };
}

/** The `id` (field 1) of an encoded message, read without decoding the rest ('' without one). */
function encodedId(bytes: Uint8Array): string {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === ID_FIELD && wireType === WireType.LengthDelimited) return reader.string();
    reader.skip(wireType, field);
  }
  return '';
}
