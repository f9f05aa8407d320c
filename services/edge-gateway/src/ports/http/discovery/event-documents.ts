import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { Event } from '@marquee/proto/catalog/v1';
import { LRUCache } from 'lru-cache';
import {
  eventBody,
  eventLinks,
  eventRefs,
  type EventRefs,
  type Resolved,
} from './discovery-v2-hal.js';

export interface EventDocumentsOptions {
  /** Memory budget of the rendered event bodies (their JSON text), bytes. */
  maxBytes?: number;
}

interface Rendered {
  /** What it was rendered from: a hash and the length of the event's encoding. */
  hash: number;
  length: number;
  /** The event's body as JSON, without its closing brace. */
  head: string;
  refs: EventRefs;
}

/** `Event.id`: field 1. */
const EVENT_ID_FIELD = 1;

/**
 * Discovery v2 event documents, each event version rendered once: a search page's events arrive
 * encoded (DiscoveryCatalog.searchEventsEncoded), and an event whose encoding the edge rendered
 * before (by id and locale, checked against a 53-bit hash and the length of its bytes: any change
 * of the event is a new encoding) is neither decoded nor rendered again. Only the end of the
 * document, the links and the embedded venues and attractions of the page, is rendered per page.
 * Searches that are not repeated still mostly show events shown before: in the discovery bench
 * this took the edge's share of an uncached search from decoding and rendering every event of
 * every page to a lookup (catalog-indexer README, "Benchmark").
 *
 * LRU over a byte budget (lru-cache); the text is what `JSON.stringify` of `eventDocument` gives.
 */
export function createEventDocuments(options: EventDocumentsOptions = {}) {
  const rendered = new LRUCache<string, Rendered>({
    maxSize: options.maxBytes ?? 64 * 1024 * 1024,
    // UTF-16 text, the key, and the entry's objects.
    sizeCalculation: (entry, key) => 2 * (entry.head.length + key.length) + 128,
  });
  return {
    /** The JSON of one event's document, as `JSON.stringify(eventDocument(...))` writes it. */
    json(bytes: Uint8Array, resolved: Resolved, locale: string | undefined): string {
      const key = `${locale ?? ''}\u0000${encodedEventId(bytes)}`;
      const hash = contentHash(bytes);
      let entry = rendered.get(key);
      if (entry === undefined || entry.hash !== hash || entry.length !== bytes.length) {
        const event = Event.decode(bytes);
        entry = {
          hash,
          length: bytes.length,
          head: JSON.stringify(eventBody(event, locale)).slice(0, -1),
          refs: eventRefs(event),
        };
        rendered.set(key, entry);
      }
      // `{"_links":…,"_embedded":…}` joined to the body: the same text as one object's.
      return `${entry.head},${JSON.stringify(eventLinks(entry.refs, resolved, locale)).slice(1)}`;
    },
    get size(): number {
      return rendered.size;
    },
  };
}

/** The `id` of an encoded `Event`, read without decoding the rest ('' when it has none). */
export function encodedEventId(bytes: Uint8Array): string {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === EVENT_ID_FIELD && wireType === WireType.LengthDelimited) return reader.string();
    reader.skip(wireType, field);
  }
  return '';
}

/** cyrb53 (a public-domain 53-bit string hash) over bytes: tells two encodings of one event apart. */
export function contentHash(bytes: Uint8Array): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    h1 = Math.imul(h1 ^ b, 2654435761);
    h2 = Math.imul(h2 ^ b, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
