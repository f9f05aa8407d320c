import { AjvCompiler } from '@fastify/ajv-compiler';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import {
  Event,
  EventSort,
  EventStatus,
  Inclusion,
  NameSort,
  PriceRangeType,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type SearchAttractionsRequest,
  type SearchEventsRequest,
  type SearchVenuesRequest,
  type SimilarAttractionsRequest,
} from '@marquee/proto/catalog/v1';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DiscoveryCatalog } from '../src/app/discovery-catalog.js';
import type { TSchema } from '@sinclair/typebox';
import * as documented from '../src/ports/http/discovery/international-schemas.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';
import { text } from './localized-text.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });

const venue: DiscoveryVenue = {
  id: 'ZBERLIN',
  names: text('Columbiahalle', { 'de-de': 'Columbiahalle Berlin' }),
  test: false,
  postalCode: '10965',
  timezone: 'Europe/Berlin',
  marketIds: [210],
  country: { countryCode: 'DE', names: text('Germany') },
  state: undefined,
  cityNames: text('Berlin'),
  location: { latitude: 52.4848, longitude: 13.3907 },
  address: { line1: text('Columbiadamm 13-21'), line2: undefined },
  upcomingEvents: 2,
  cityId: 281474976710655,
};
const attraction: DiscoveryAttraction = {
  id: 'KBAND',
  names: text('Die Band'),
  test: false,
  url: '',
  images: [],
  classifications: [],
  upcomingEvents: 4,
};
const event = Event.fromPartial({
  id: 'INTL00000000001',
  version: 1,
  active: true,
  url: 'https://example.com/e',
  names: text('Summer Show', { 'de-de': 'Sommershow' }),
  dates: {
    start: {
      localDate: '2030-07-01',
      localTime: '20:00:00',
      dateTime: new Date('2030-07-01T18:00:00Z'),
    },
    access: { startDateTime: new Date('2030-07-01T17:00:00Z') },
    timezone: 'Europe/Berlin',
  },
  sales: {
    publicSale: {
      startDateTime: new Date('2030-01-01T09:00:00Z'),
      endDateTime: new Date('2030-07-01T16:00:00Z'),
    },
  },
  classifications: [
    {
      primary: true,
      segment: { id: 'KZ1', names: text('Music') },
      genre: { id: 'KG1', names: text('Rock') },
      subGenre: { id: 'KS1', names: text('Punk') },
    },
  ],
  attractions: [
    { ref: { $case: 'id', value: 'KBAND' }, names: text('Die Band'), resolvedId: 'KBAND' },
  ],
  location: {
    $case: 'venue',
    value: { ref: undefined, names: venue.names, resolvedId: 'ZBERLIN' },
  },
  priceRanges: [
    {
      type: 1 as never,
      min: { amountMinor: 3000, currency: 'EUR' },
      max: { amountMinor: 8000, currency: 'EUR' },
    },
  ],
  images: [{ url: 'https://img/e.jpg', width: 640, height: 360, ratio: '16_9', fallback: false }],
  status: EventStatus.EVENT_STATUS_ONSALE,
  ticketing: {
    manifestId: 'M1',
    maximumTicketsQuantity: 8,
    currency: 'EUR',
    priceLevels: [{ id: '11', names: text('Stehplatz', {}), descriptions: undefined }],
    priceTypes: [],
    pricePeriods: [
      {
        id: 'P',
        prices: [
          { priceLevelId: '11', priceTypeId: 'A', amount: { amountMinor: 4500, currency: 'EUR' } },
          { priceLevelId: '11', priceTypeId: 'C', amount: { amountMinor: 3000, currency: 'EUR' } },
        ],
      },
    ],
  },
});

/**
 * A published event (not sold through the platform: no ticketing) as a package with a seat map and
 * prices including fees given by its publisher.
 */
const feeEvent = Event.fromPartial({
  ...event,
  ticketing: undefined,
  id: 'INTL00000000002',
  package: true,
  seatmap: { staticUrl: 'https://maps.example/columbiahalle.png' },
  priceRanges: [
    ...event.priceRanges,
    {
      type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES,
      min: { amountMinor: 3450, currency: 'EUR' },
      max: { amountMinor: 9000, currency: 'EUR' },
    },
  ],
});

/** The same event as the catalog answers it once partner availability says it is sold out. */
const soldOutEvent = Event.fromPartial({
  ...event,
  id: 'INTL00000000003',
  availability: { soldOut: true },
});

const seen = {
  events: [] as SearchEventsRequest[],
  venues: [] as SearchVenuesRequest[],
  attractions: [] as SearchAttractionsRequest[],
  similar: [] as SimilarAttractionsRequest[],
};
const catalog: Partial<DiscoveryCatalog> = {
  async searchEvents(query) {
    seen.events.push(query);
    return {
      events: query.eventIds.includes(soldOutEvent.id) ? [soldOutEvent] : [event],
      page: { offset: 0, limit: 10, total: 31 },
      venues: [venue],
      attractions: [attraction],
    };
  },
  async getEvent(id) {
    if (id === feeEvent.id) return { event: feeEvent, venues: [venue], attractions: [attraction] };
    if (id === soldOutEvent.id)
      return { event: soldOutEvent, venues: [venue], attractions: [attraction] };
    if (id !== event.id) throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return { event, venues: [venue], attractions: [attraction] };
  },
  async searchVenues(query) {
    seen.venues.push(query);
    return { venues: [venue], page: { offset: 0, limit: 10, total: 1 } };
  },
  async getVenue(id) {
    if (id !== venue.id) throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return venue;
  },
  async searchAttractions(query) {
    seen.attractions.push(query);
    return { attractions: [attraction], page: { offset: 0, limit: 10, total: 1 } };
  },
  async similarAttractions(query) {
    seen.similar.push(query);
    if (query.id !== 'KBAND') throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return [attraction];
  },
};
const backends = fakeBackends({
  developerAccess: {
    async validateApiKey(key) {
      return key === 'k' ? { valid: true, appId: 'a' } : { valid: false, appId: '' };
    },
    async checkRateLimit() {
      return { limit: 10, available: 9, resetEpochMs: 0, over: false };
    },
  },
  catalog,
});

let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
  seen.events = [];
  seen.venues = [];
  seen.attractions = [];
  seen.similar = [];
});

async function get(path: string) {
  if (!sut) {
    sut = createHttpServer({ logger });
    await registerEdgeRoutes(sut, {
      adminToken: 'test-admin-token-0123456789',
      version: 'test',
      backends,
    });
    await sut.ready();
  }
  return sut.inject({ url: `/mfxapi/v2${path}${path.includes('?') ? '&' : '?'}apikey=k` });
}

describe('international discovery: key and errors', () => {
  it('refuses a request without a valid apikey with 401 in the family body', async () => {
    sut = createHttpServer({ logger });
    await registerEdgeRoutes(sut, {
      adminToken: 'test-admin-token-0123456789',
      version: 'test',
      backends,
    });
    const response = await sut.inject({ url: '/mfxapi/v2/events' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      errors: [{ code: 'unauthorized', message: expect.any(String), status: 401 }],
    });
  });

  it.each([
    '/events?rows=251',
    '/events?rows=0',
    '/events?start=-1',
    '/events?domain=atlantis',
    '/events?lat=52.5',
    '/events?radius=10',
    '/events?sort_by=proximity',
    '/events?sort_by=price',
    '/events?order=up',
    '/events?eventdate_from=2030-01-01',
    '/events?eventdate_from=2030-02-31T00:00:00Z',
    '/events?min_price=50&max_price=10',
    '/events?cancelled=perhaps',
    '/events?city_ids=1234567890123456',
    '/events?city_ids=berlin',
    '/venues?domain=germany&city_ids=1,',
    '/events?country_ids=DE',
    '/events?unknown=1',
    '/venues',
    '/venues?domain=germany&lat=1',
    '/events/INTL00000000001/areas',
    '/venues/ZBERLIN',
  ])('%s is refused with 400', async (path) => {
    const response = await get(path);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().errors[0]).toMatchObject({ status: 400, message: expect.any(String) });
  });
});

describe('international discovery: event search parameters reach the catalog', () => {
  it.each<[string, Partial<SearchEventsRequest>]>([
    ['domain=germany&domain=spain', { countryCodes: ['DE', 'ES'] }],
    ['country_ids=276,752', { countryCodes: ['DE', 'SE'] }],
    ['event_ids=A,B', { eventIds: ['A', 'B'] }],
    ['attraction_ids=K1', { attractionIds: ['K1'] }],
    ['promoter_codes=P1,P2', { promoterIds: ['P1', 'P2'] }],
    ['category_ids=KG1&subcategory_ids=KS1', { classificationIds: ['KG1', 'KS1'] }],
    ['venue_ids=Z1', { venueIds: ['Z1'] }],
    ['city_ids=281474976710655,42', { cityIds: [281474976710655, 42] }],
    ['', { cityIds: [], priceExclFees: false, excludePackages: false }],
    ['event_name=summer', { nameContains: 'summer' }],
    ['postal_code=10965', { postalCode: '10965' }],
    ['lat=52.5&long=13.4&radius=5', { latlong: { latitude: 52.5, longitude: 13.4 }, radius: 5 }],
    [
      'eventdate_from=2030-01-01T00:00:00Z&eventdate_to=2030-02-01T00:00:00Z',
      {
        startDateTime: new Date('2030-01-01T00:00:00Z'),
        endDateTime: new Date('2030-02-01T00:00:00Z'),
      },
    ],
    [
      'onsaledate_from=2029-01-01T00:00:00Z&onsaledate_to=2029-02-01T00:00:00Z',
      {
        onsaleStartDateTime: new Date('2029-01-01T00:00:00Z'),
        onsaleEndDateTime: new Date('2029-02-01T00:00:00Z'),
      },
    ],
    [
      'offsaledate_from=2030-01-01T00:00:00Z&offsaledate_to=2030-03-01T00:00:00Z',
      {
        offsaleStartDateTime: new Date('2030-01-01T00:00:00Z'),
        offsaleEndDateTime: new Date('2030-03-01T00:00:00Z'),
      },
    ],
    [
      'min_price=10&max_price=90&price_excl_fees=true',
      { minPrice: 10, maxPrice: 90, priceExclFees: true },
    ],
    ['min_price=10&price_excl_fees=false', { minPrice: 10, priceExclFees: false }],
    ['seats_available=true', { seatsAvailable: true }],
    ['cancelled=true', { includeCancelled: Inclusion.INCLUSION_ONLY }],
    ['cancelled=false', { includeCancelled: Inclusion.INCLUSION_NO }],
    ['rescheduled=true', { includeRescheduled: Inclusion.INCLUSION_ONLY }],
    ['exclude_external=true', { excludeExternal: true }],
    ['exlude_external=true', { excludeExternal: true }],
    ['is_not_package=true', { excludePackages: true }],
    ['is_not_package=false', { excludePackages: false }],
    ['', { sort: EventSort.EVENT_SORT_DATE_ASC, page: { offset: 0, limit: 10 }, countryCodes: [] }],
    ['sort_by=eventdate&order=desc', { sort: EventSort.EVENT_SORT_DATE_DESC }],
    ['sort_by=eventname', { sort: EventSort.EVENT_SORT_NAME_ASC }],
    ['sort_by=eventname&order=desc', { sort: EventSort.EVENT_SORT_NAME_DESC }],
    ['sort_by=onsaledate', { sort: EventSort.EVENT_SORT_ONSALE_ASC }],
    ['sort_by=proximity&lat=52&long=13', { sort: EventSort.EVENT_SORT_DISTANCE_ASC }],
    // As for attractions, `asc` (the default) ranks the most popular first.
    ['sort_by=popularity', { sort: EventSort.EVENT_SORT_POPULARITY_DESC }],
    ['sort_by=popularity&order=desc', { sort: EventSort.EVENT_SORT_POPULARITY_ASC }],
    ['rows=250&start=500', { page: { offset: 500, limit: 250 } }],
  ])('%s', async (query, expected) => {
    const response = await get(`/events${query ? `?${query}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(seen.events[0]).toMatchObject(expected);
  });
});

describe('international discovery: documents', () => {
  it('answers an event search with events and pagination', async () => {
    const body = (await get('/events?start=10&rows=5&lang=de-de')).json();
    expect(body.pagination).toEqual({ start: 10, rows: 5, total: 31 });
    expect(body.events[0]).toEqual({
      id: 'INTL00000000001',
      domain_id: 276,
      name: 'Sommershow',
      url: 'https://example.com/e',
      eventdate: { format: 'datetime', value: '2030-07-01T18:00:00Z' },
      timezone: 'Europe/Berlin',
      localeventdate: '2030-07-01T20:00:00',
      onsale: '2030-01-01T09:00:00Z',
      offsale: '2030-07-01T16:00:00Z',
      dooropening: '2030-07-01T17:00:00Z',
      properties: {
        cancelled: false,
        rescheduled: false,
        seats_avail: true,
        sold_out: false,
        package: false,
      },
      venue: {
        id: 'ZBERLIN',
        name: 'Columbiahalle Berlin',
        location: {
          address: {
            address: 'Columbiadamm 13-21',
            postal_code: '10965',
            city: 'Berlin',
            city_id: 281474976710655,
            country: 'DE',
            long: 13.3907,
            lat: 52.4848,
          },
        },
      },
      categories: [{ id: 'KG1', name: 'Rock', subcategories: [{ id: 'KS1', name: 'Punk' }] }],
      attractions: [{ id: 'KBAND', name: 'Die Band', url: '/mfxapi/v2/attractions/KBAND' }],
      // Sold through the platform: including the fees the cart charges per ticket (10 %, at least
      // 1.50, and 20 % tax on it): 30 → 33.60, 80 → 89.60.
      price_ranges: {
        excluding_ticket_fees: { min: 30, max: 80 },
        including_ticket_fees: { min: 33.6, max: 89.6 },
      },
      currency: 'EUR',
      images: { '16_9': { url: 'https://img/e.jpg', width: 640, height: 360 } },
    });
  });

  it('gives the areas of an event with price levels and ranges', async () => {
    const response = await get('/events/INTL00000000001/areas?domain=germany');
    expect(response.json()).toEqual({
      event: {
        id: 'INTL00000000001',
        currency: 'EUR',
        areas: [
          {
            code: '11',
            name: 'Stehplatz',
            price_level_ids: [11],
            // Face values 30 and 45 with the cart's per-ticket fees: 33.60 and 50.40.
            price_ranges: {
              excluding_ticket_fees: { min: 30, max: 45 },
              including_ticket_fees: { min: 33.6, max: 50.4 },
            },
          },
        ],
      },
    });
    expect((await get('/events/INTL00000000001/areas?domain=spain')).statusCode).toBe(404);
    expect((await get('/events/NOPE/areas?domain=germany')).statusCode).toBe(404);
  });

  it('gives the seat map document of an event: its static image, none when it has no seat map', async () => {
    expect((await get('/events/INTL00000000001/seatmap')).json()).toEqual({
      event: { id: 'INTL00000000001', seatmap: { static: { images: [] } } },
    });
    expect((await get('/events/INTL00000000002/seatmap?domain=germany')).json()).toEqual({
      event: {
        id: 'INTL00000000002',
        seatmap: { static: { images: [{ url: 'https://maps.example/columbiahalle.png' }] } },
      },
    });
  });

  it("shows a published event's prices including fees as its publisher gives them", async () => {
    const details = (await get('/events/INTL00000000002')).json();
    expect(details.price_ranges).toEqual({
      excluding_ticket_fees: { min: 30, max: 80 },
      including_ticket_fees: { min: 34.5, max: 90 },
    });
    expect(details.properties.package).toBe(true);
    // Not sold through the platform: no areas.
    expect((await get('/events/INTL00000000002/areas?domain=germany')).json().event.areas).toEqual(
      [],
    );
  });

  it('answers sold_out and no seats_avail for an event the catalog knows is sold out', async () => {
    const properties = {
      cancelled: false,
      rescheduled: false,
      seats_avail: false,
      sold_out: true,
      package: false,
    };
    const search = (await get(`/events?event_ids=${soldOutEvent.id}`)).json();
    expect(search.events.map((e: { id: string }) => e.id)).toEqual([soldOutEvent.id]);
    expect(search.events[0].properties).toEqual(properties);
    expect((await get(`/events/${soldOutEvent.id}`)).json().properties).toEqual(properties);
    // Without availability from the catalog, the status alone decides (on sale: seats).
    expect((await get(`/events/${event.id}`)).json().properties).toMatchObject({
      seats_avail: true,
      sold_out: false,
    });
  });

  it('lists similar attractions with event counts, passing has_events, domain and rows', async () => {
    const response = await get('/attractions/KBAND/similar?has_events=true&domain=germany&rows=3');
    expect(response.json()).toEqual({
      attractions: [
        { id: 'KBAND', name: 'Die Band', url: '/mfxapi/v2/attractions/KBAND', event_count: 4 },
      ],
    });
    expect(seen.similar[0]).toEqual({
      id: 'KBAND',
      hasEvents: true,
      countryCodes: ['DE'],
      limit: 3,
    });
    expect((await get('/attractions/NOPE/similar')).statusCode).toBe(404);
  });

  it('searches attractions with every parameter', async () => {
    const response = await get(
      '/attractions?domain=germany&attraction_name=band&attraction_ids=KBAND&has_events=true&query=bnd&category_ids=KG1&subcategory_ids=KS1&sort_by=popularity&rows=5&start=5',
    );
    expect(response.json()).toEqual({
      attractions: [
        { id: 'KBAND', name: 'Die Band', url: '/mfxapi/v2/attractions/KBAND', event_count: 4 },
      ],
      pagination: { start: 5, rows: 5, total: 1 },
    });
    expect(seen.attractions[0]).toMatchObject({
      countryCodes: ['DE'],
      nameContains: 'band',
      ids: ['KBAND'],
      hasEvents: true,
      fuzzy: 'bnd',
      classificationIds: ['KG1', 'KS1'],
      sort: NameSort.NAME_SORT_POPULARITY_DESC,
      page: { offset: 5, limit: 5 },
    });
    await get('/attractions?order=desc');
    expect(seen.attractions[1]).toMatchObject({
      sort: NameSort.NAME_SORT_NAME_DESC,
      page: { offset: 0, limit: 10 },
    });
  });

  it('searches venues with every parameter and reads one venue in its domain', async () => {
    const response = await get(
      '/venues?domain=germany&domain=austria&venue_name=columbia,astra&venue_ids=ZBERLIN&city_ids=281474976710655,7&postal_code=10965&lat=52.5&long=13.4&radius=10&exclude_external=true&sort_by=cityname&order=desc',
    );
    expect(response.json()).toEqual({
      venues: [
        {
          id: 'ZBERLIN',
          name: 'Columbiahalle',
          code: 'ZBERLIN',
          url: '/mfxapi/v2/venues/ZBERLIN',
          location: {
            address: {
              address: 'Columbiadamm 13-21',
              postal_code: '10965',
              city: 'Berlin',
              city_id: 281474976710655,
              country: 'DE',
              long: 13.3907,
              lat: 52.4848,
            },
          },
        },
      ],
      pagination: { start: 0, rows: 10, total: 1 },
    });
    expect(seen.venues[0]).toMatchObject({
      countryCodes: ['DE', 'AT'],
      nameAny: ['columbia', 'astra'],
      ids: ['ZBERLIN'],
      cityIds: [281474976710655, 7],
      postalCode: '10965',
      latlong: { latitude: 52.5, longitude: 13.4 },
      radius: 10,
      excludeExternal: true,
      sort: NameSort.NAME_SORT_CITY_DESC,
    });
    expect((await get('/venues/ZBERLIN?domain=germany')).json()).toMatchObject({
      id: 'ZBERLIN',
      name: 'Columbiahalle',
    });
    expect((await get('/venues/ZBERLIN?domain=spain')).statusCode).toBe(404);
  });
});

describe('international discovery answers against their documented schemas', () => {
  it('answers every route as international-schemas.ts documents it', async () => {
    // The validator the edge's routes use (fastify's ajv, with its formats).
    const compile = AjvCompiler()({}, { customOptions: { allErrors: true, strict: false } });
    const cases: Array<[string, TSchema]> = [
      ['/events?domain=germany', documented.IntlPage('events', documented.IntlEvent, 'P')],
      [`/events/${event.id}`, documented.IntlEvent],
      [`/events/${soldOutEvent.id}`, documented.IntlEvent],
      ['/events/INTL00000000002', documented.IntlEvent],
      ['/events/INTL00000000001/areas?domain=germany', documented.IntlAreas],
      ['/events/INTL00000000002/seatmap?domain=germany', documented.IntlSeatmap],
      [
        '/attractions?domain=germany',
        documented.IntlPage('attractions', documented.IntlAttraction, 'P'),
      ],
      ['/attractions/KBAND/similar?domain=germany', documented.IntlSimilarAttractions],
      ['/venues?domain=germany', documented.IntlPage('venues', documented.IntlVenue, 'P')],
      ['/venues/ZBERLIN?domain=germany', documented.IntlVenue],
    ];
    for (const [path, schema] of cases) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(200);
      const validate = compile({ schema, method: 'GET', url: '/', httpPart: 'body' }) as ((
        data: unknown,
      ) => boolean) & { errors?: unknown };
      expect(validate(response.json()), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
