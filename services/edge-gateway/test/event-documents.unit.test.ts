import { DiscoveryAttraction, DiscoveryVenue, Event, EventStatus } from '@marquee/proto/catalog/v1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventDocument, resolvedOf } from '@marquee/discovery-documents';
import { createEventDocuments } from '../src/ports/http/discovery/event-documents.js';
import { text } from './localized-text.js';

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
/** A search answer of these events with the given venues and attractions, encoded. */
const answerOf = (
  events: Event[],
  venues: DiscoveryVenue[] = [venue],
  attractions: DiscoveryAttraction[] = [attraction],
) => ({
  events: events.map(bytesOf),
  page: undefined,
  venues: venues.map((v) => DiscoveryVenue.encode(v).finish()),
  attractions: attractions.map((a) => DiscoveryAttraction.encode(a).finish()),
});

afterEach(() => vi.restoreAllMocks());

/** The event documents of a rendered page, as JSON texts (the page is `{"_embedded":{"events":[…]}}`). */
const eventsOf = (
  sut: ReturnType<typeof createEventDocuments>,
  answer: ReturnType<typeof answerOf>,
  locale: string | undefined,
): string[] => {
  const tail = { _links: { self: { href: '/discovery/v2/events.json' } }, page: { number: 0 } };
  const page = sut.page(answer, locale, tail).toString();
  const parsed = JSON.parse(page) as { _embedded: { events: unknown[] } };
  const events = parsed._embedded.events.map((e) => JSON.stringify(e));
  // The exact text: each document as JSON.stringify writes it, joined by commas, then the tail.
  expect(page).toBe(
    `{"_embedded":{"events":[${events.join(',')}]},"_links":${JSON.stringify(tail._links)},"page":${JSON.stringify(tail.page)}}`,
  );
  return events;
};

describe('event documents rendered once per event version', () => {
  it('writes what JSON.stringify of the event document writes, in every locale', () => {
    const sut = createEventDocuments();
    const second = Event.fromPartial({
      ...event,
      id: 'EVT2',
      attractions: [],
      location: undefined,
    });
    for (const locale of [undefined, 'fr-fr', 'de-de', '*']) {
      const expected = [event, second].map((e) =>
        JSON.stringify(eventDocument(e, resolved, locale)),
      );
      expect(eventsOf(sut, answerOf([event, second]), locale)).toEqual(expected);
      // Again, from what was rendered.
      expect(eventsOf(sut, answerOf([event, second]), locale)).toEqual(expected);
    }
  });

  it('decodes an event version once, and the links and embedded documents every time', () => {
    const sut = createEventDocuments();
    const decode = vi.spyOn(Event, 'decode');
    const decodeVenue = vi.spyOn(DiscoveryVenue, 'decode');
    eventsOf(sut, answerOf([event]), undefined);
    eventsOf(sut, answerOf([event]), undefined);
    expect(decode).toHaveBeenCalledTimes(1);
    expect(decodeVenue).toHaveBeenCalledTimes(1);
    const busierVenue = { ...venue, upcomingEvents: 9 };
    const busier = resolvedOf([busierVenue], []);

    const [again] = eventsOf(sut, answerOf([event], [busierVenue], []), undefined).map(
      (json) => JSON.parse(json) as ReturnType<typeof eventDocument>,
    );

    expect(decode).toHaveBeenCalledTimes(1);
    expect(decodeVenue).toHaveBeenCalledTimes(2);
    // The page's venue as it is now; the attraction this page did not carry is left out.
    expect(again!._embedded!.venues[0]!.upcomingEvents!._total).toBe(9);
    expect(again!._embedded!.attractions).toEqual([]);
    expect(again!._links!.attractions).toEqual([]);
    expect(again).toEqual(JSON.parse(JSON.stringify(eventDocument(event, busier, undefined))));
  });

  it('renders an event again at a new version, or when its encoding differs in length', () => {
    const cancelled = Event.fromPartial({
      ...event,
      version: 5,
      status: EventStatus.EVENT_STATUS_CANCELLED,
    });
    const renamed = Event.fromPartial({ ...event, version: 5, names: text('Autumn Concert') });
    // The same version and another length: not what the version contract allows, caught anyway.
    const longer = Event.fromPartial({ ...event, names: text('Spring Concerts') });

    for (const changed of [cancelled, renamed, longer]) {
      const sut = createEventDocuments();
      eventsOf(sut, answerOf([event]), undefined);
      expect(eventsOf(sut, answerOf([changed]), undefined)).toEqual([
        JSON.stringify(eventDocument(changed, resolved, undefined)),
      ]);
    }
  });

  it('keeps within its byte budget', () => {
    const sut = createEventDocuments({ maxBytes: 20_000 });
    for (let i = 0; i < 200; i++) {
      eventsOf(sut, answerOf([Event.fromPartial({ ...event, id: `EVT${i}` })]), undefined);
    }
    // About 1 kB of text each: the oldest were dropped.
    expect(sut.size).toBeGreaterThan(0);
    expect(sut.size).toBeLessThan(30);
  });

  it('joins the documents the catalog rendered into the same page', () => {
    const sut = createEventDocuments();
    const documents = [event, event].map((e) =>
      JSON.stringify(eventDocument(e, resolved, undefined)),
    );
    const tail = { _links: { self: { href: '/x' } }, page: { size: 2, number: 0 } };
    const page = sut.page(
      {
        events: [],
        page: undefined,
        venues: [],
        attractions: [],
        documents: Buffer.from(documents.join(',')),
      },
      undefined,
      tail,
    );
    expect(page.toString()).toBe(
      JSON.stringify({
        _embedded: { events: documents.map((d) => JSON.parse(d) as unknown) },
        ...tail,
      }),
    );
  });
});
