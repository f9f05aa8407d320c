import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { PageInfo } from '@marquee/proto/common/v1';
import type { EncodedEventsPage } from '../app/discovery-catalog.js';

/** Fields of `SearchEventsResponse`. */
const EVENTS = 1;
const PAGE = 2;
const VENUES = 3;
const ATTRACTIONS = 4;
const EVENT_DOCUMENTS = 5;

/**
 * Reads a `SearchEventsResponse` leaving each event, venue and attraction as its bytes (views of
 * `buffer`, no copy); only the page position is decoded. The event documents, when the catalog
 * sent them, are a view of `buffer` too. Fields may come in any order (protobuf), and a field this
 * edge does not know yet is skipped.
 */
export function decodeEncodedEventsPage(buffer: Uint8Array): EncodedEventsPage {
  const reader = new BinaryReader(buffer);
  const answer: EncodedEventsPage = { events: [], page: undefined, venues: [], attractions: [] };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited) {
      reader.skip(wireType, field);
      continue;
    }
    if (field === EVENTS) answer.events.push(reader.bytes());
    else if (field === VENUES) answer.venues.push(reader.bytes());
    else if (field === ATTRACTIONS) answer.attractions.push(reader.bytes());
    // A message field met twice merges (protobuf); the page is written once.
    else if (field === PAGE) answer.page = PageInfo.decode(reader.bytes());
    // Present, even empty, when the catalog answered with documents (an empty page has none).
    else if (field === EVENT_DOCUMENTS) answer.documents = reader.bytes();
    else reader.skip(wireType, field);
  }
  return answer;
}
