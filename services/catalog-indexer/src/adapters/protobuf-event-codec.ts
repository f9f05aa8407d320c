import { Event } from '@marquee/proto/catalog/v1';
import type { EventCodec } from '../domain/catalog-index.js';

/** Bytes before the event's encoding: its length, a little-endian uint32. */
const HEADER = 4;

/**
 * Events as their protobuf encoding while they sit in the search index: about a tenth of the heap of
 * the decoded object graph, and one decode per event a page returns. The event's rendered document
 * follows its encoding in the same allocation (`[length][Event][document as UTF-8]`): one more
 * buffer per event would be 100,000 more objects for every major collection to visit (and in
 * bench/discovery, a collection started every second once they were there).
 */
export const protobufEventCodec: EventCodec<Uint8Array> = {
  pack(event, document) {
    const encoded = Event.encode(event).finish();
    const documentBytes = document === undefined ? 0 : Buffer.byteLength(document);
    const packed = Buffer.allocUnsafeSlow(HEADER + encoded.length + documentBytes);
    packed.writeUInt32LE(encoded.length, 0);
    packed.set(encoded, HEADER);
    if (document !== undefined) packed.write(document, HEADER + encoded.length);
    return packed;
  },
  unpack: (packed) => Event.decode(encodedOf(packed)),
  document(packed) {
    const end = HEADER + lengthOf(packed);
    return end < packed.length ? packed.subarray(end) : undefined;
  },
  encoded: (packed) => encodedOf(packed),
};

const lengthOf = (packed: Uint8Array) =>
  (packed[0]! | (packed[1]! << 8) | (packed[2]! << 16) | (packed[3]! << 24)) >>> 0;

const encodedOf = (packed: Uint8Array) => packed.subarray(HEADER, HEADER + lengthOf(packed));
