import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { SearchEventsResponse } from '@marquee/proto/catalog/v1';
import type { EncodedEventsPage } from '../app/discovery-catalog.js';

/** `SearchEventsResponse.events`. */
const EVENTS_FIELD = 1;

/**
 * Reads a `SearchEventsResponse` leaving each event as its bytes (views of `buffer`, no copy):
 * the other fields — the page, the venues and attractions, a few kB — are decoded as usual.
 * Protobuf allows fields in any order, so the rest is decoded from its own fields put together.
 */
export function decodeEncodedEventsPage(buffer: Uint8Array): EncodedEventsPage {
  const reader = new BinaryReader(buffer);
  const events: Uint8Array[] = [];
  const rest: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [field, wireType] = reader.tag();
    if (field === EVENTS_FIELD && wireType === WireType.LengthDelimited) {
      events.push(reader.bytes());
      continue;
    }
    reader.skip(wireType, field);
    rest.push(buffer.subarray(start, reader.pos));
  }
  // Its `events` is empty (they were left out) and replaced by the encoded ones.
  return { ...SearchEventsResponse.decode(Buffer.concat(rest)), events };
}
