import {
  Event,
  EventStatus,
  SearchEventsResponse,
  type DiscoveryAttraction,
  type DiscoveryVenue,
} from '@marquee/proto/catalog/v1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeEncodedEventsPage } from '../src/adapters/encoded-events-page.js';
import { eventDocument, resolvedOf } from '../src/ports/http/discovery/discovery-v2-hal.js';
import {
  contentHash,
  createEventDocuments,
  encodedEventId,
} from '../src/ports/http/discovery/event-documents.js';

const text = (en: string, others: Record<string, string> = {}) => ({
  values: { 'en-us': en, ...others },
});

const venue: DiscoveryVenue = {
  id: 'ZVENUE1',
  names: text('Hall', { 'fr-fr': 'Salle' }),
  test: false,
  postalCode: '10001',
  timezone: 'Europe/Paris',
  marketIds: [35],
  country: { countryCode: 'FR', names: text('France') },
  state: undefined,
  cityNames: text('Paris'),
  location: { latitude: 48.85, longitude: 2.35 },
  address: { line1: text('1 Rue'), line2: undefined },
  upcomingEvents: 3,
  cityId: 0,
};
const attraction: DiscoveryAttraction = {
  id: 'KATTR1',
  names: text('The Band'),
  test: false,
  url: 'https://example.com/band',
  images: [{ url: 'https://img/b.jpg', width: 640, height: 360, ratio: '16_9', fallback: false }],
  classifications: [],
  upcomingEvents: 1,
};
const event = Event.fromPartial({
  id: 'EVT1',
  version: 4,
  active: true,
  url: 'https://example.com/e/1',
  names: text('Spring Concert', { 'fr-fr': 'Concert de printemps' }),
  infos: text('Bring earplugs'),
  attractions: [{ ref: { $case: 'id', value: 'KATTR1' }, resolvedId: 'KATTR1' }],
  classifications: [{ primary: true, genre: { id: 'KG1', names: text('Rock') } }],
  dates: {
    start: { localDate: '2030-05-01', dateTime: new Date('2030-05-01T19:00:00Z') },
    timezone: 'Europe/Paris',
  },
  location: { $case: 'venue', value: { resolvedId: 'ZVENUE1' } },
  priceRanges: [{ type: 1 as never, min: { amountMinor: 2550, currency: 'EUR' } }],
  status: EventStatus.EVENT_STATUS_ONSALE,
});
const resolved = resolvedOf([venue], [attraction]);
const bytesOf = (e: Event) => Event.encode(e).finish();

afterEach(() => vi.restoreAllMocks());

describe('event documents rendered once per event version', () => {
  it('writes what JSON.stringify of the event document writes, in every locale', () => {
    const sut = createEventDocuments();
    for (const locale of [undefined, 'fr-fr', 'de-de', '*']) {
      const expected = JSON.stringify(eventDocument(event, resolved, locale));
      expect(sut.json(bytesOf(event), resolved, locale)).toBe(expected);
      // Again, from what was rendered.
      expect(sut.json(bytesOf(event), resolved, locale)).toBe(expected);
    }
  });

  it('decodes an event version once, and the links and embedded documents every time', () => {
    const sut = createEventDocuments();
    const decode = vi.spyOn(Event, 'decode');
    sut.json(bytesOf(event), resolved, undefined);
    const busier = resolvedOf([{ ...venue, upcomingEvents: 9 }], []);

    const again = JSON.parse(sut.json(bytesOf(event), busier, undefined));

    expect(decode).toHaveBeenCalledTimes(1);
    // The page's venue as it is now; the attraction this page did not carry is left out.
    expect(again._embedded.venues[0].upcomingEvents._total).toBe(9);
    expect(again._embedded.attractions).toEqual([]);
    expect(again._links.attractions).toEqual([]);
    expect(again).toEqual(JSON.parse(JSON.stringify(eventDocument(event, busier, undefined))));
  });

  it('renders a changed event again, even at the same version', () => {
    const sut = createEventDocuments();
    sut.json(bytesOf(event), resolved, undefined);
    const renamed = Event.fromPartial({ ...event, names: text('Autumn Concert') });
    const cancelled = Event.fromPartial({
      ...event,
      version: 5,
      status: EventStatus.EVENT_STATUS_CANCELLED,
    });

    for (const changed of [renamed, cancelled]) {
      expect(sut.json(bytesOf(changed), resolved, undefined)).toBe(
        JSON.stringify(eventDocument(changed, resolved, undefined)),
      );
    }
  });

  it('keeps within its byte budget', () => {
    const sut = createEventDocuments({ maxBytes: 20_000 });
    for (let i = 0; i < 200; i++) {
      sut.json(bytesOf(Event.fromPartial({ ...event, id: `EVT${i}` })), resolved, undefined);
    }
    // About 1 kB of text each: the oldest were dropped.
    expect(sut.size).toBeGreaterThan(0);
    expect(sut.size).toBeLessThan(30);
  });

  it('reads the id of an encoded event, and tells encodings apart by hash', () => {
    expect(encodedEventId(bytesOf(event))).toBe('EVT1');
    expect(encodedEventId(bytesOf(Event.fromPartial({})))).toBe('');
    const other = bytesOf(Event.fromPartial({ ...event, version: 5 }));
    expect(contentHash(other)).not.toBe(contentHash(bytesOf(event)));
    expect(contentHash(bytesOf(event))).toBe(contentHash(bytesOf(event)));
    expect(Number.isSafeInteger(contentHash(other))).toBe(true);
  });
});

describe('search answers with the events left encoded', () => {
  const page = { offset: 20, limit: 20, total: 41 };
  const second = Event.fromPartial({ ...event, id: 'EVT2' });

  it('leaves each event as its bytes and decodes the rest, in any field order', () => {
    const whole = SearchEventsResponse.encode({
      events: [event, second],
      page,
      venues: [venue],
      attractions: [attraction],
    }).finish();
    // catalog-indexer writes the page, venues and attractions first, then the events.
    const eventsLast = Buffer.concat([
      SearchEventsResponse.encode({
        events: [],
        page,
        venues: [venue],
        attractions: [attraction],
      }).finish(),
      SearchEventsResponse.encode({
        events: [event, second],
        venues: [],
        attractions: [],
      }).finish(),
    ]);

    for (const buffer of [whole, eventsLast]) {
      const sut = decodeEncodedEventsPage(buffer);

      expect(sut.events.map((bytes) => Buffer.from(bytes))).toEqual([
        Buffer.from(bytesOf(event)),
        Buffer.from(bytesOf(second)),
      ]);
      expect(sut.page).toEqual(page);
      expect(sut.venues).toEqual([venue]);
      expect(sut.attractions).toEqual([attraction]);
    }
  });

  it('reads an empty answer', () => {
    const sut = decodeEncodedEventsPage(new Uint8Array(0));
    expect(sut).toEqual({ events: [], page: undefined, venues: [], attractions: [] });
  });
});
