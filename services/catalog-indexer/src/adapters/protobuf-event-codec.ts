import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import type { EventCodec } from '../domain/catalog-index.js';
import { attractionMessageOf, eventMessageOf, venueMessageOf } from './proto/catalog-messages.js';
import { catalogEventOf } from './proto/kafka-messages.js';
import { latin1Bytes, latin1String } from './latin1-bytes.js';

/** Bytes before the event's encoding: its length, a little-endian uint32. */
const HEADER = 4;

/**
 * Events as their protobuf encoding while they sit in the search index: about a tenth of the heap of
 * the decoded object graph, and one decode per event a page returns. The event's rendered document
 * follows its encoding in the same allocation (`[length][Event][document as UTF-8]`). The encoding
 * is the gRPC port's `Event` message of the record (adapters/proto/catalog-messages.ts), made once per
 * event version: what `SearchEvents` forwards as it is. Unpacking maps it back to the record as
 * the Kafka port does (adapters/proto/kafka-messages.ts). Venues and attractions are encoded the same way.
 *
 * Those bytes are kept as a Latin-1 string (latin1-bytes.ts): one heap object per event for the
 * garbage collector, where a `Buffer` was three. A page copies out the bytes of the events it returns
 * (`document`, `encoded`).
 */
export const protobufEventCodec: EventCodec<string> = {
  pack(event, document) {
    const encoded = Event.encode(eventMessageOf(event)).finish();
    const documentBytes = document === undefined ? 0 : Buffer.byteLength(document);
    const bytes = Buffer.allocUnsafe(HEADER + encoded.length + documentBytes);
    bytes.writeUInt32LE(encoded.length, 0);
    bytes.set(encoded, HEADER);
    if (document !== undefined) bytes.write(document, HEADER + encoded.length);
    return latin1String(bytes);
  },
  unpack: (packed) => catalogEventOf(Event.decode(encodedOf(packed))),
  document(packed) {
    const end = HEADER + lengthOf(packed);
    return end < packed.length ? latin1Bytes(packed.slice(end)) : undefined;
  },
  encoded: (packed) => encodedOf(packed),
  encodeVenue: (venue) => DiscoveryVenue.encode(venueMessageOf(venue)).finish(),
  encodeAttraction: (attraction) =>
    DiscoveryAttraction.encode(attractionMessageOf(attraction)).finish(),
};

const lengthOf = (packed: string) =>
  (packed.charCodeAt(0) |
    (packed.charCodeAt(1) << 8) |
    (packed.charCodeAt(2) << 16) |
    (packed.charCodeAt(3) << 24)) >>>
  0;

const encodedOf = (packed: string) => latin1Bytes(packed.slice(HEADER, HEADER + lengthOf(packed)));
