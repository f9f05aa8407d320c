import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event,
  SearchEventsResponse,
} from '../src/catalog-v1.js';
import {
  decodeEventsPage,
  DISCOVERY_ATTRACTION_FIELDS,
  DISCOVERY_VENUE_FIELDS,
  documentsPageHead,
  encodedEventKey,
  encodedPlaceId,
  encodeEventsPage,
  EVENT_FIELDS,
  SEARCH_EVENTS_RESPONSE_FIELDS,
} from '../src/catalog-v1-wire.js';

const protoDir = new URL('../../../proto/marquee/catalog/v1/', import.meta.url);

/** `name → number` of the fields of one message of a .proto file (top-level fields only). */
function fieldsOf(file: string, message: string): Record<string, number> {
  const source = readFileSync(new URL(file, protoDir), 'utf8');
  const body = new RegExp(`\\nmessage ${message} \\{([\\s\\S]*?)\\n\\}`).exec(source)?.[1];
  if (body === undefined) throw new Error(`no message ${message} in ${file}`);
  const fields: Record<string, number> = {};
  for (const match of body.matchAll(/^ {2}(?:repeated |optional )?[\w.]+ (\w+) = (\d+);/gm)) {
    fields[match[1]!] = Number(match[2]);
  }
  return fields;
}

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

const venue = DiscoveryVenue.fromPartial({
  id: 'ZVENUE1',
  names: { values: { 'en-us': 'Hall' } },
  postalCode: '10001',
  upcomingEvents: 3,
});
const attraction = DiscoveryAttraction.fromPartial({
  id: 'KATTR1',
  names: { values: { 'en-us': 'The Band' } },
  upcomingEvents: 1,
});
const events = [
  Event.fromPartial({ id: 'EVT1', version: 4, names: { values: { 'en-us': 'Spring Concert' } } }),
  // Long enough that its length needs a two-byte varint.
  Event.fromPartial({
    id: 'EVT2',
    version: 2 ** 40 + 1,
    names: { values: { 'en-us': `Concert ${'long '.repeat(60)}` } },
  }),
];
const page = { offset: 20, limit: 20, total: 41 };
const bytesOf = (e: Event) => Event.encode(e).finish();

describe('catalog v1 wire codec: field numbers', () => {
  it('are those of service.proto and event.proto', () => {
    const response = fieldsOf('service.proto', 'SearchEventsResponse');
    expect(
      Object.fromEntries(Object.entries(response).map(([name, n]) => [camel(name), n])),
    ).toEqual(SEARCH_EVENTS_RESPONSE_FIELDS);
    const event = fieldsOf('event.proto', 'Event');
    expect({ id: event.id, version: event.version }).toEqual(EVENT_FIELDS);
    expect({ id: fieldsOf('service.proto', 'DiscoveryVenue').id }).toEqual(DISCOVERY_VENUE_FIELDS);
    expect({ id: fieldsOf('service.proto', 'DiscoveryAttraction').id }).toEqual(
      DISCOVERY_ATTRACTION_FIELDS,
    );
  });
});

describe('catalog v1 wire codec: writing', () => {
  it('writes what the generated code writes for the same response', () => {
    const wire = encodeEventsPage({
      events: events.map(bytesOf),
      page,
      venues: [DiscoveryVenue.encode(venue).finish()],
      attractions: [DiscoveryAttraction.encode(attraction).finish()],
    });
    const generated = SearchEventsResponse.encode({
      events,
      page,
      venues: [venue],
      attractions: [attraction],
      eventDocuments: Buffer.alloc(0),
    }).finish();
    expect(SearchEventsResponse.decode(wire)).toEqual(SearchEventsResponse.decode(generated));
    // Byte for byte: the generated code writes fields in number order, the codec the page first,
    // then every message field in number order.
    const empty = { events: [], venues: [], attractions: [], eventDocuments: Buffer.alloc(0) };
    const pageFirst = Buffer.concat([
      SearchEventsResponse.encode({ ...empty, page }).finish(),
      SearchEventsResponse.encode({
        ...empty,
        events,
        venues: [venue],
        attractions: [attraction],
      }).finish(),
    ]);
    expect(wire).toEqual(pageFirst);
    const withoutPage = encodeEventsPage({
      events: events.map(bytesOf),
      page: undefined,
      venues: [],
      attractions: [],
    });
    expect(withoutPage).toEqual(
      Buffer.from(SearchEventsResponse.encode({ ...empty, events }).finish()),
    );
  });

  it('writes a documents answer as the generated code does', () => {
    for (const documents of ['', '{"id":"EVT1"}', `{"name":"${'x'.repeat(300)}"}`]) {
      const bytes = Buffer.from(documents);
      const wire = Buffer.concat([documentsPageHead(page, bytes.length), bytes]);
      const generated = SearchEventsResponse.encode({
        events: [],
        page,
        venues: [],
        attractions: [],
        eventDocuments: bytes,
      }).finish();
      if (bytes.length > 0) expect(wire).toEqual(Buffer.from(generated));
      expect(SearchEventsResponse.decode(wire)).toEqual(SearchEventsResponse.decode(generated));
      // Read back: the documents present (even empty: the catalog answered with documents).
      expect(Buffer.from(decodeEventsPage(wire).documents!)).toEqual(bytes);
    }
  });
});

describe('catalog v1 wire codec: reading', () => {
  it('leaves each event, venue and attraction as its bytes, in any field order', () => {
    const generated = SearchEventsResponse.encode({
      events,
      page,
      venues: [venue],
      attractions: [attraction],
      eventDocuments: Buffer.alloc(0),
    }).finish();
    const ours = encodeEventsPage({
      events: events.map(bytesOf),
      page,
      venues: [DiscoveryVenue.encode(venue).finish()],
      attractions: [DiscoveryAttraction.encode(attraction).finish()],
    });
    for (const buffer of [generated, ours]) {
      const sut = decodeEventsPage(buffer);
      expect(sut.events.map((bytes) => Buffer.from(bytes))).toEqual(
        events.map((e) => Buffer.from(bytesOf(e))),
      );
      expect(sut.page).toEqual(page);
      expect(sut.venues.map((bytes) => DiscoveryVenue.decode(bytes))).toEqual([venue]);
      expect(sut.attractions.map((bytes) => DiscoveryAttraction.decode(bytes))).toEqual([
        attraction,
      ]);
      expect(sut.documents).toBeUndefined();
    }
  });

  it('reads an empty answer', () => {
    expect(decodeEventsPage(new Uint8Array(0))).toEqual({
      events: [],
      page: undefined,
      venues: [],
      attractions: [],
    });
  });

  it('reads the id and version of an encoded event, and the id of a venue or attraction', () => {
    expect(encodedEventKey(bytesOf(events[0]!))).toEqual({ id: 'EVT1', version: '4' });
    expect(encodedEventKey(bytesOf(events[1]!))).toEqual({
      id: 'EVT2',
      version: String(2 ** 40 + 1),
    });
    expect(encodedEventKey(bytesOf(Event.fromPartial({})))).toEqual({ id: '', version: '0' });
    expect(encodedPlaceId(DiscoveryVenue.encode(venue).finish())).toBe('ZVENUE1');
    expect(encodedPlaceId(DiscoveryAttraction.encode(attraction).finish())).toBe('KATTR1');
    expect(encodedPlaceId(new Uint8Array(0))).toBe('');
  });
});
