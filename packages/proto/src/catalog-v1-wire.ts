// Hand-written, not generated: the wire form of SearchEventsResponse with its events, venues and
// attractions left as bytes. catalog-indexer writes it from encodings it keeps; the edge reads it
// without decoding what it has rendered before. test/catalog-v1-wire.unit.test.ts checks the field
// numbers against proto/marquee/catalog/v1/*.proto and the bytes against the generated code.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { PageInfo } from './gen/marquee/common/v1/paging.js';

/** Field numbers of marquee.catalog.v1.SearchEventsResponse. */
export const SEARCH_EVENTS_RESPONSE_FIELDS = {
  events: 1,
  page: 2,
  venues: 3,
  attractions: 4,
  eventDocuments: 5,
} as const;

/** Field numbers of marquee.catalog.v1.Event that are read without decoding the event. */
export const EVENT_FIELDS = { id: 1, version: 3 } as const;

/** `id` of marquee.catalog.v1.DiscoveryVenue and DiscoveryAttraction. */
export const DISCOVERY_VENUE_FIELDS = { id: 1 } as const;
export const DISCOVERY_ATTRACTION_FIELDS = { id: 1 } as const;

/**
 * A SearchEventsResponse with its events, venues and attractions in their protobuf encodings
 * (`Event`, `DiscoveryVenue`, `DiscoveryAttraction`).
 */
export interface EncodedEventsPage {
  events: Uint8Array[];
  page: PageInfo | undefined;
  venues: Uint8Array[];
  attractions: Uint8Array[];
  /**
   * Present (even empty) when the catalog answered with the page's Discovery v2 event documents
   * (`event_documents`: UTF-8 JSON joined by commas); the other lists are then empty.
   */
  documents?: Uint8Array;
}

const lengthDelimited = (field: number) => (field << 3) | WireType.LengthDelimited;

/** The page field alone (what ts-proto writes for `page`; nothing when there is none). */
function pageField(page: PageInfo | undefined): Uint8Array {
  if (page === undefined) return new Uint8Array(0);
  const body = PageInfo.encode(page).finish();
  const out = new Uint8Array(1 + varintSize(body.length) + body.length);
  const at = writeKey(out, 0, lengthDelimited(SEARCH_EVENTS_RESPONSE_FIELDS.page), body.length);
  out.set(body, at);
  return out;
}

/**
 * A SearchEventsResponse of encodings kept as they are: the page, then each message as its field.
 * Protobuf parsers accept fields in any order and append repeated ones, so this decodes exactly
 * like `SearchEventsResponse.encode` of the decoded messages, without encoding them for each page.
 * Empty `documents` are not written (proto3 leaves an empty bytes field out).
 */
export function encodeEventsPage(value: Omit<EncodedEventsPage, 'documents'>): Buffer {
  const head = pageField(value.page);
  const parts: [number, Uint8Array[]][] = [
    [lengthDelimited(SEARCH_EVENTS_RESPONSE_FIELDS.events), value.events],
    [lengthDelimited(SEARCH_EVENTS_RESPONSE_FIELDS.venues), value.venues],
    [lengthDelimited(SEARCH_EVENTS_RESPONSE_FIELDS.attractions), value.attractions],
  ];
  let size = head.length;
  for (const [, messages] of parts) {
    for (const message of messages) size += 1 + varintSize(message.length) + message.length;
  }
  const out = Buffer.allocUnsafe(size);
  out.set(head, 0);
  let at = head.length;
  for (const [key, messages] of parts) {
    for (const message of messages) {
      at = writeKey(out, at, key, message.length);
      out.set(message, at);
      at += message.length;
    }
  }
  return out;
}

/**
 * The start of a SearchEventsResponse with `page` and an `event_documents` field of `length`
 * bytes, up to where those bytes go: the caller appends them (one buffer for the whole answer).
 */
export function documentsPageHead(page: PageInfo | undefined, length: number): Buffer {
  const head = pageField(page);
  const out = Buffer.allocUnsafe(head.length + 1 + varintSize(length));
  out.set(head, 0);
  writeKey(out, head.length, lengthDelimited(SEARCH_EVENTS_RESPONSE_FIELDS.eventDocuments), length);
  return out;
}

/**
 * Reads a SearchEventsResponse leaving each event, venue and attraction as its bytes (views of
 * `buffer`, no copy); only the page is decoded. The event documents, when sent, are a view of
 * `buffer` too. Fields may come in any order, and a field this reader does not know is skipped.
 */
export function decodeEventsPage(buffer: Uint8Array): EncodedEventsPage {
  const reader = new BinaryReader(buffer);
  const answer: EncodedEventsPage = { events: [], page: undefined, venues: [], attractions: [] };
  const F = SEARCH_EVENTS_RESPONSE_FIELDS;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited) {
      reader.skip(wireType, field);
      continue;
    }
    if (field === F.events) answer.events.push(reader.bytes());
    else if (field === F.venues) answer.venues.push(reader.bytes());
    else if (field === F.attractions) answer.attractions.push(reader.bytes());
    // A message field met twice merges (protobuf); the page is written once.
    else if (field === F.page) answer.page = PageInfo.decode(reader.bytes());
    else if (field === F.eventDocuments) answer.documents = reader.bytes();
    else reader.skip(wireType, field);
  }
  return answer;
}

/** The `id` and `version` of an encoded `Event`, read without decoding the rest. */
export function encodedEventKey(bytes: Uint8Array): { id: string; version: string } {
  const reader = new BinaryReader(bytes);
  let id = '';
  let version = '0';
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === EVENT_FIELDS.id && wireType === WireType.LengthDelimited) id = reader.string();
    else if (field === EVENT_FIELDS.version && wireType === WireType.Varint) {
      version = String(reader.int64());
      // Fields are written in number order: the id came first.
      break;
    } else reader.skip(wireType, field);
  }
  return { id, version };
}

/**
 * The `id` of an encoded DiscoveryVenue or DiscoveryAttraction (both field 1), read without
 * decoding the rest ('' without one).
 */
export function encodedPlaceId(bytes: Uint8Array): string {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === DISCOVERY_VENUE_FIELDS.id && wireType === WireType.LengthDelimited)
      return reader.string();
    reader.skip(wireType, field);
  }
  return '';
}

/** Writes a one-byte field key and a length (varint) at `at`; returns where the bytes go. */
function writeKey(out: Uint8Array, at: number, key: number, length: number): number {
  out[at++] = key;
  while (length > 0x7f) {
    out[at++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  out[at++] = length;
  return at;
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value >>>= 7;
    size++;
  }
  return size;
}
