import { AjvCompiler } from '@fastify/ajv-compiler';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { SearchEventsRequest } from '@marquee/proto/catalog/v1';
import {
  DiscoveryAttraction,
  DiscoveryVenue,
  EventSort,
  Event,
  EventStatus,
  Inclusion,
  PriceRangeType,
  type ClassificationSegment,
  type SearchEventsResponse,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { eventDocument, resolvedOf } from '@marquee/discovery-documents';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DiscoveryCatalog } from '../src/app/discovery-catalog.js';
import type { TSchema } from '@sinclair/typebox';
import * as documented from '../src/ports/http/discovery/discovery-v2-schemas.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { encodedAnswer } from './encoded-answers.js';
import { fakeBackends } from './fakes.js';
import { goodKeyAccess } from './edge-harness.js';
import { text } from './localized-text.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });

const venue: DiscoveryVenue = {
  id: 'ZVENUE1',
  names: text('Madison Square Garden', { 'fr-fr': 'Jardin' }),
  test: false,
  postalCode: '10001',
  timezone: 'America/New_York',
  marketIds: [35],
  country: { countryCode: 'US', names: text('United States Of America') },
  state: { stateCode: 'NY', names: text('New York') },
  cityNames: text('New York'),
  location: { latitude: 40.7505, longitude: -73.9934 },
  address: { line1: text('4 Pennsylvania Plaza'), line2: undefined },
  upcomingEvents: 3,
  cityId: 0,
};
const attraction: DiscoveryAttraction = {
  id: 'KATTR1',
  names: text('The Band'),
  test: false,
  url: 'https://example.com/band',
  images: [
    { url: 'https://img/band.jpg', width: 640, height: 360, ratio: '16_9', fallback: false },
  ],
  classifications: [],
  upcomingEvents: 1,
};
const event = Event.fromPartial({
  id: 'EVT000000000001',
  version: 2,
  active: true,
  url: 'https://example.com/e/1',
  names: text('Spring Concert', { 'fr-fr': 'Concert de printemps' }),
  infos: text('Bring earplugs'),
  pleaseNotes: text('No cameras'),
  attractions: [
    { ref: { $case: 'id', value: 'KATTR1' }, names: text('The Band'), resolvedId: 'KATTR1' },
  ],
  classifications: [
    {
      primary: true,
      segment: { id: 'KZ1', names: text('Music') },
      genre: { id: 'KG1', names: text('Rock') },
      subGenre: undefined,
    },
  ],
  dates: {
    start: {
      localDate: '2030-05-01',
      localTime: '19:30:00',
      dateTime: new Date('2030-05-01T23:30:00Z'),
    },
    access: { startDateTime: new Date('2030-05-01T22:30:00Z'), startApproximate: false },
    end: { dateTime: new Date('2030-05-02T02:00:00Z'), approximate: true },
    timezone: 'America/New_York',
  },
  images: [{ url: 'https://img/1.jpg', width: 1024, height: 576, ratio: '16_9', fallback: false }],
  location: {
    $case: 'venue',
    value: { ref: undefined, names: venue.names, resolvedId: 'ZVENUE1' },
  },
  priceRanges: [
    {
      type: 1 as never,
      min: { amountMinor: 2550, currency: 'USD' },
      max: { amountMinor: 9900, currency: 'USD' },
    },
  ],
  promoter: { id: 'P1' },
  sales: {
    publicSale: {
      startDateTime: new Date('2029-01-01T15:00:00Z'),
      endDateTime: new Date('2030-05-01T23:00:00Z'),
      startTbd: false,
    },
  },
  status: EventStatus.EVENT_STATUS_ONSALE,
  marketIds: [35],
});

const segment: ClassificationSegment = {
  segment: { id: 'KZ1', names: text('Music') },
  genres: [
    { genre: { id: 'KG1', names: text('Rock') }, subGenres: [{ id: 'KS1', names: text('Punk') }] },
  ],
  eventCount: 7,
};

/** The event with a seat map and a price range including fees. */
const seatmapEvent = Event.fromPartial({
  ...event,
  id: 'EVT000000000002',
  seatmap: { staticUrl: 'https://maps.example/msg.png' },
  priceRanges: [
    ...event.priceRanges,
    {
      type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES,
      min: { amountMinor: 3000, currency: 'USD' },
      max: { amountMinor: 11000, currency: 'USD' },
    },
  ],
});

let requests: SearchEventsRequest[] = [];
let total = 1;
const catalog: Partial<DiscoveryCatalog> = {
  // Not connected to a change stream: nothing is cached.
  version: () => undefined,
  async searchEventsEncoded(query) {
    requests.push(query);
    const answer: Omit<SearchEventsResponse, 'eventDocuments'> = {
      events: [event],
      page: { offset: query.page?.offset ?? 0, limit: query.page?.limit ?? 20, total },
      venues: [venue],
      attractions: [attraction],
    };
    return encodedAnswer(answer);
  },
  async getEvent(id) {
    if (id === seatmapEvent.id)
      return { event: seatmapEvent, venues: [venue], attractions: [attraction] };
    if (id !== event.id)
      throw Object.assign(new Error(`event ${id} not found`), { kind: 'not_found' });
    return { event, venues: [venue], attractions: [attraction] };
  },
  async getVenue(id) {
    if (id !== venue.id) throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return venue;
  },
  async getAttraction(id) {
    if (id !== attraction.id) throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return attraction;
  },
  async searchVenues() {
    return { venues: [venue], page: { offset: 0, limit: 20, total: 1 } };
  },
  async searchClassifications(query) {
    expect(query.keyword).toBe('rock');
    return { segments: [segment], page: { offset: 0, limit: 20, total: 1 } };
  },
  async getClassification(id) {
    const level = { KZ1: 'segment', KG1: 'genre', KS1: 'subgenre' }[id];
    if (!level) throw Object.assign(new Error('nope'), { kind: 'not_found' });
    return { segment, level };
  },
  async searchAttractions() {
    return { attractions: [attraction], page: { offset: 0, limit: 20, total: 1 } };
  },
};
const backends = fakeBackends({
  developerAccess: goodKeyAccess(),
  catalog,
});

let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
  requests = [];
  total = 1;
});

async function edge(): Promise<FastifyInstance> {
  sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends,
  });
  await sut.ready();
  return sut;
}

const search = async (query: string) => {
  const app = await edge();
  return app.inject({
    url: `/discovery/v2/events.json?apikey=good-key${query ? `&${query}` : ''}`,
  });
};

describe('Discovery v2 API key', () => {
  it.each([
    ['missing', '/discovery/v2/events.json'],
    ['unknown', '/discovery/v2/events.json?apikey=bad'],
    ['missing on details', '/discovery/v2/events/EVT000000000001'],
  ])('answers a %s key with 401 and the fault body', async (_case, url) => {
    const app = await edge();
    const response = await app.inject({ url });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } },
    });
  });

  it('answers with the Rate-Limit headers', async () => {
    const response = await search('');
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'rate-limit': '5000',
      'rate-limit-available': '4999',
      'rate-limit-over': '0',
    });
  });
});

describe('Discovery v2 event search parameters reach the catalog', () => {
  it.each<[string, Partial<SearchEventsRequest>]>([
    ['keyword=rock%20night', { keyword: 'rock night' }],
    ['attractionId=K1,K2', { attractionIds: ['K1', 'K2'] }],
    ['venueId=Z1', { venueIds: ['Z1'] }],
    ['postalCode=10001', { postalCode: '10001' }],
    [
      'latlong=40.75,-73.99&radius=10&unit=km',
      {
        latlong: { latitude: 40.75, longitude: -73.99 },
        radius: 10,
        unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS,
      },
    ],
    ['latlong=40.75,-73.99', { radius: 0, unit: DistanceUnit.DISTANCE_UNIT_MILES }],
    ['source=publisher-one,universe', { sources: ['publisher-one', 'universe'] }],
    ['locale=fr-fr', { locale: 'fr-fr' }],
    ['marketId=35,27', { marketIds: [35, 27] }],
    [
      'startDateTime=2030-01-01T00:00:00Z&endDateTime=2030-02-01T00:00:00Z',
      {
        startDateTime: new Date('2030-01-01T00:00:00Z'),
        endDateTime: new Date('2030-02-01T00:00:00Z'),
      },
    ],
    [
      'onsaleStartDateTime=2029-01-01T00:00:00Z&onsaleEndDateTime=2029-02-01T00:00:00Z',
      {
        onsaleStartDateTime: new Date('2029-01-01T00:00:00Z'),
        onsaleEndDateTime: new Date('2029-02-01T00:00:00Z'),
      },
    ],
    [
      'includeTBA=yes&includeTBD=only&includeTest=no',
      {
        includeTba: Inclusion.INCLUSION_YES,
        includeTbd: Inclusion.INCLUSION_ONLY,
        includeTest: Inclusion.INCLUSION_NO,
      },
    ],
    [
      '',
      {
        includeTba: Inclusion.INCLUSION_NO,
        includeTbd: Inclusion.INCLUSION_NO,
        includeTest: Inclusion.INCLUSION_NO,
        page: { offset: 0, limit: 20 },
      },
    ],
    ['size=50&page=3', { page: { offset: 150, limit: 50 } }],
    ['sort=eventDate,date.asc', { sort: EventSort.EVENT_SORT_DATE_ASC }],
    ['sort=eventDate,date.desc', { sort: EventSort.EVENT_SORT_DATE_DESC }],
    ['sort=name,date.asc', { sort: EventSort.EVENT_SORT_NAME_ASC }],
    ['sort=name,date.desc', { sort: EventSort.EVENT_SORT_NAME_DESC }],
    ['sort=', { sort: EventSort.EVENT_SORT_UNSPECIFIED }],
    ['city=New%20York', { city: 'New York' }],
    ['countryCode=US', { countryCodes: ['US'] }],
    ['stateCode=NY,NJ', { stateCodes: ['NY', 'NJ'] }],
    ['classificationName=Rock,Hip-Hop', { classificationNames: ['Rock', 'Hip-Hop'] }],
    ['classificationId=KZ1', { classificationIds: ['KZ1'] }],
    ['dmaId=501', { dmaId: '501' }],
  ])('%s', async (query, expected) => {
    const response = await search(query);
    expect(response.statusCode, response.body).toBe(200);
    expect(requests[0]).toMatchObject(expected);
  });
});

describe('Discovery v2 event search validation', () => {
  it.each([
    ['size=501', 'invalid_request'],
    ['size=0', 'invalid_request'],
    ['size=ten', 'invalid_request'],
    ['page=-1', 'invalid_request'],
    ['page=2&size=500', 'DIS1035'],
    ['page=50&size=20', 'DIS1035'],
    ['unit=furlongs&latlong=1,1', 'invalid_request'],
    ['radius=10', 'DIS1015'],
    ['latlong=91,0', 'invalid_request'],
    ['latlong=abc', 'invalid_request'],
    ['includeTBA=maybe', 'invalid_request'],
    ['includeTBD=true', 'invalid_request'],
    ['includeTest=1', 'invalid_request'],
    ['sort=price,asc', 'invalid_request'],
    ['startDateTime=2030-01-01', 'invalid_request'],
    ['startDateTime=2030-02-30T00:00:00Z', 'invalid_request'],
    ['endDateTime=2030-01-01T00:00:00%2B01:00', 'invalid_request'],
    ['startDateTime=2030-02-01T00:00:00Z&endDateTime=2030-01-01T00:00:00Z', 'DIS1015'],
    ['marketId=abc', 'invalid_request'],
    ['dmaId=x', 'invalid_request'],
    ['keywords=typo', 'invalid_request'],
    ['locale=not a locale', 'invalid_request'],
  ])('%s is refused with 400 %s in the errors[] body', async (query, code) => {
    const response = await search(query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      errors: [
        {
          code,
          detail: expect.any(String),
          status: '400',
          _links: { about: { href: `/discovery/v2/errors.html#${code}` } },
        },
      ],
    });
    expect(requests).toEqual([]);
  });
});

describe('Discovery v2 HAL documents', () => {
  it('renders the Discovery v2 event result with embedded venue and attraction, page and links', async () => {
    total = 45;
    const response = await search('keyword=spring&size=20&page=1');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.page).toEqual({ size: 20, totalElements: 45, totalPages: 3, number: 1 });
    expect(body._links).toEqual({
      self: {
        href: '/discovery/v2/events.json?keyword=spring&page=1&size=20{&sort}',
        templated: true,
      },
      next: {
        href: '/discovery/v2/events.json?keyword=spring&page=2&size=20{&sort}',
        templated: true,
      },
    });
    expect(body._embedded.events).toEqual([
      {
        name: 'Spring Concert',
        type: 'event',
        id: 'EVT000000000001',
        test: false,
        url: 'https://example.com/e/1',
        locale: 'en-us',
        info: 'Bring earplugs',
        pleaseNote: 'No cameras',
        images: [
          { ratio: '16_9', url: 'https://img/1.jpg', width: 1024, height: 576, fallback: false },
        ],
        sales: {
          public: {
            startDateTime: '2029-01-01T15:00:00.000Z',
            startTBD: false,
            endDateTime: '2030-05-01T23:00:00.000Z',
          },
        },
        dates: {
          start: {
            localDate: '2030-05-01',
            localTime: '19:30:00',
            dateTime: '2030-05-01T23:30:00.000Z',
            dateTBD: false,
            dateTBA: false,
            timeTBA: false,
            noSpecificTime: false,
          },
          access: {
            startDateTime: '2030-05-01T22:30:00.000Z',
            startApproximate: false,
            endApproximate: false,
          },
          end: { dateTime: '2030-05-02T02:00:00.000Z', approximate: true },
          timezone: 'America/New_York',
          status: { code: 'onsale' },
        },
        classifications: [
          {
            primary: true,
            segment: { id: 'KZ1', name: 'Music' },
            genre: { id: 'KG1', name: 'Rock' },
          },
        ],
        promoter: { id: 'P1' },
        priceRanges: [{ type: 'standard', currency: 'USD', min: 25.5, max: 99 }],
        _links: {
          self: { href: '/discovery/v2/events/EVT000000000001' },
          attractions: [{ href: '/discovery/v2/attractions/KATTR1' }],
          venues: [{ href: '/discovery/v2/venues/ZVENUE1' }],
        },
        _embedded: {
          venues: [
            {
              name: 'Madison Square Garden',
              type: 'venue',
              id: 'ZVENUE1',
              test: false,
              locale: 'en-us',
              postalCode: '10001',
              timezone: 'America/New_York',
              markets: [{ id: '35' }],
              country: { name: 'United States Of America', countryCode: 'US' },
              state: { name: 'New York', stateCode: 'NY' },
              city: { name: 'New York' },
              location: { latitude: '40.7505', longitude: '-73.9934' },
              address: { line1: '4 Pennsylvania Plaza' },
              upcomingEvents: { _total: 3 },
              _links: { self: { href: '/discovery/v2/venues/ZVENUE1' } },
            },
          ],
          attractions: [
            {
              name: 'The Band',
              type: 'attraction',
              id: 'KATTR1',
              test: false,
              locale: 'en-us',
              url: 'https://example.com/band',
              image: { url: 'https://img/band.jpg' },
              images: [
                {
                  ratio: '16_9',
                  url: 'https://img/band.jpg',
                  width: 640,
                  height: 360,
                  fallback: false,
                },
              ],
              classifications: [],
              upcomingEvents: { _total: 1 },
              _links: { self: { href: '/discovery/v2/attractions/KATTR1' } },
            },
          ],
        },
      },
    ]);
  });

  it('gives texts in the requested locale only, empty where that locale has none', async () => {
    const response = await search('locale=fr-fr');
    const [e] = response.json()._embedded.events;
    expect(e.name).toBe('Concert de printemps');
    expect(e.locale).toBe('fr-fr');
    expect(e.info).toBeUndefined();
    expect(e._embedded.venues[0].name).toBe('Jardin');
    expect(e._embedded.attractions[0].name).toBe('');
  });

  it('has no next link on the last page nor past the paging depth', async () => {
    total = 5000;
    const last = (await search('size=100&page=9')).json();
    expect(last._links.next).toBeUndefined();
    total = 20;
    expect((await search('')).json()._links.next).toBeUndefined();
  });

  it('keeps sort in the links and marks them not templated when the request sorted', async () => {
    total = 50;
    const body = (await search('sort=name,date.asc')).json();
    expect(body._links.next).toEqual({
      href: '/discovery/v2/events.json?sort=name%2Cdate.asc&page=1&size=20',
      templated: false,
    });
  });

  it('serves the same search on /events without the .json suffix', async () => {
    const app = await edge();
    const response = await app.inject({ url: '/discovery/v2/events?apikey=good-key' });
    expect(response.statusCode).toBe(200);
    expect(response.json()._embedded.events).toHaveLength(1);
  });
});

describe('Discovery v2 pages from the documents catalog-indexer rendered', () => {
  // A catalog that renders documents (catalog-indexer does, with @marquee/discovery-documents):
  // asked for them, it answers them; else it answers the encoded events.
  const asked: SearchEventsRequest[] = [];
  const rendering: Partial<DiscoveryCatalog> = {
    ...catalog,
    async searchEventsEncoded(query) {
      asked.push(query);
      const page = { offset: 0, limit: 20, total: 1 };
      if (query.documents) {
        const document = eventDocument(event, resolvedOf([venue], [attraction]), undefined);
        return {
          events: [],
          venues: [],
          attractions: [],
          page,
          documents: Buffer.from(JSON.stringify(document)),
        };
      }
      return {
        events: [Event.encode(event).finish()],
        venues: [DiscoveryVenue.encode(venue).finish()],
        attractions: [DiscoveryAttraction.encode(attraction).finish()],
        page,
      };
    },
  };
  const renderingEdge = async () => {
    sut = createHttpServer({ logger });
    await registerEdgeRoutes(sut, {
      adminToken: 'test-admin-token-0123456789',
      version: 'test',
      backends: fakeBackends({ developerAccess: backends.developerAccess, catalog: rendering }),
    });
    return sut;
  };

  it('asks for them without a locale and answers the page the edge would render', async () => {
    const rendered = await search('keyword=spring');
    await sut?.close();
    const app = await renderingEdge();
    const response = await app.inject({
      url: '/discovery/v2/events.json?apikey=good-key&keyword=spring',
    });
    expect(asked.at(-1)).toMatchObject({ keyword: 'spring', documents: true });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe(rendered.body);
    expect(response.json()._embedded.events[0].name).toBe('Spring Concert');
  });

  it('renders the events itself for a requested locale', async () => {
    const app = await renderingEdge();
    const response = await app.inject({
      url: '/discovery/v2/events.json?apikey=good-key&keyword=spring&locale=fr-fr',
    });
    expect(asked.at(-1)).toMatchObject({ keyword: 'spring', documents: false });
    expect(response.statusCode).toBe(200);
    expect(response.json()._embedded.events[0].name).toBe('Concert de printemps');
  });
});

describe('Discovery v2 details', () => {
  it('returns one event by id (with or without .json) and 404 DIS1004 for an unknown one', async () => {
    const app = await edge();
    const found = await app.inject({
      url: '/discovery/v2/events/EVT000000000001.json?apikey=good-key&locale=en-us',
    });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toMatchObject({
      id: 'EVT000000000001',
      name: 'Spring Concert',
      type: 'event',
    });
    const missing = await app.inject({ url: '/discovery/v2/events/NOPE?apikey=good-key' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0]).toMatchObject({ code: 'DIS1004', status: '404' });
  });

  it('renders the seat map and each price range with its type (standard, standard including fees)', async () => {
    const app = await edge();
    const body = (
      await app.inject({ url: '/discovery/v2/events/EVT000000000002?apikey=good-key' })
    ).json();
    expect(body.seatmap).toEqual({ staticUrl: 'https://maps.example/msg.png' });
    expect(body.priceRanges).toEqual([
      { type: 'standard', currency: 'USD', min: 25.5, max: 99 },
      { type: 'standard including fees', currency: 'USD', min: 30, max: 110 },
    ]);
    const plain = (
      await app.inject({ url: '/discovery/v2/events/EVT000000000001?apikey=good-key' })
    ).json();
    expect(plain).not.toHaveProperty('seatmap');
  });

  it('returns venues and attractions by id and in searches', async () => {
    const app = await edge();
    expect(
      (await app.inject({ url: '/discovery/v2/venues/ZVENUE1?apikey=good-key' })).json(),
    ).toMatchObject({ type: 'venue', id: 'ZVENUE1', city: { name: 'New York' } });
    expect(
      (await app.inject({ url: '/discovery/v2/attractions/KATTR1?apikey=good-key' })).json(),
    ).toMatchObject({ type: 'attraction', id: 'KATTR1' });
    expect(
      (await app.inject({ url: '/discovery/v2/venues/NOPE?apikey=good-key' })).statusCode,
    ).toBe(404);
    const venues = (
      await app.inject({ url: '/discovery/v2/venues.json?apikey=good-key&keyword=garden' })
    ).json();
    expect(venues._embedded.venues.map((v: { id: string }) => v.id)).toEqual(['ZVENUE1']);
    expect(venues.page).toEqual({ size: 20, totalElements: 1, totalPages: 1, number: 0 });
    const attractions = (
      await app.inject({ url: '/discovery/v2/attractions?apikey=good-key&keyword=band' })
    ).json();
    expect(attractions._embedded.attractions.map((a: { id: string }) => a.id)).toEqual(['KATTR1']);
  });
});

describe('Discovery v2 methods', () => {
  it('answers another method on a search path with 405 in the errors[] body', async () => {
    const app = await edge();
    const response = await app.inject({
      method: 'POST',
      url: '/discovery/v2/events.json?apikey=good-key',
    });
    expect(response.statusCode).toBe(405);
    expect(response.json().errors[0]).toMatchObject({ code: 'method_not_allowed', status: '405' });
  });
});

describe('Discovery v2 classifications', () => {
  it('searches classifications and reads a classification, segment, genre and sub-genre by id', async () => {
    const app = await edge();
    const list = (
      await app.inject({ url: '/discovery/v2/classifications.json?apikey=good-key&keyword=rock' })
    ).json();
    expect(list._embedded.classifications).toEqual([
      {
        _links: { self: { href: '/discovery/v2/classifications/KZ1' } },
        segment: {
          id: 'KZ1',
          name: 'Music',
          _links: { self: { href: '/discovery/v2/classifications/segments/KZ1' } },
          _embedded: {
            genres: [
              {
                id: 'KG1',
                name: 'Rock',
                _links: { self: { href: '/discovery/v2/classifications/genres/KG1' } },
                _embedded: {
                  subgenres: [
                    {
                      id: 'KS1',
                      name: 'Punk',
                      _links: { self: { href: '/discovery/v2/classifications/subgenres/KS1' } },
                    },
                  ],
                },
              },
            ],
          },
        },
        upcomingEvents: { _total: 7 },
      },
    ]);
    expect(list.page).toEqual({ size: 20, totalElements: 1, totalPages: 1, number: 0 });
    const get = async (path: string) =>
      app.inject({ url: `/discovery/v2/classifications/${path}?apikey=good-key` });
    expect((await get('KG1')).json().segment.id).toBe('KZ1');
    expect((await get('segments/KZ1')).json()).toMatchObject({ id: 'KZ1', name: 'Music' });
    expect((await get('genres/KG1')).json()).toMatchObject({
      id: 'KG1',
      name: 'Rock',
      _embedded: { subgenres: [{ id: 'KS1' }] },
    });
    expect((await get('subgenres/KS1')).json()).toMatchObject({ id: 'KS1', name: 'Punk' });
    expect((await get('genres/KZ1')).statusCode).toBe(404);
    const missing = await get('NOPE');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].code).toBe('DIS1004');
  });
});

describe('Discovery v2 when catalog-indexer fails', () => {
  it('answers 503 and 504 in the errors[] body, never a 500 or a stack', async () => {
    const failing = fakeBackends({
      developerAccess: {
        validateApiKey: async () => ({ valid: true, appId: 'a' }),
        checkRateLimit: async () => ({ limit: 1, available: 1, resetEpochMs: 0, over: false }),
      },
      catalog: {
        version: () => undefined,
        searchEventsEncoded: async () => {
          throw Object.assign(new Error('catalog-indexer unavailable'), { kind: 'unavailable' });
        },
        getEvent: async () => {
          throw Object.assign(new Error('deadline exceeded'), { kind: 'deadline_exceeded' });
        },
      },
    });
    sut = createHttpServer({ logger });
    await registerEdgeRoutes(sut, {
      adminToken: 'test-admin-token-0123456789',
      version: 'test',
      backends: failing,
    });
    const down = await sut.inject({ url: '/discovery/v2/events.json?apikey=k' });
    expect(down.statusCode).toBe(503);
    expect(down.json().errors[0]).toMatchObject({ status: '503' });
    expect(down.headers['retry-after']).toBe('1');
    const slow = await sut.inject({ url: '/discovery/v2/events/E1?apikey=k' });
    expect(slow.statusCode).toBe(504);
    expect(slow.body).not.toContain('at ');
  });

  it('passes unusual but valid keywords through unchanged', async () => {
    const response = await search(`keyword=${encodeURIComponent('Beyoncé & Jay-Z 東京')}`);
    expect(response.statusCode).toBe(200);
    expect(requests[0]!.keyword).toBe('Beyoncé & Jay-Z 東京');
  });
});

describe('Discovery v2 answers against their documented schemas', () => {
  it('answers every route as discovery-v2-schemas.ts documents it', async () => {
    // The validator the edge's routes use (fastify's ajv, with its formats).
    const compile = AjvCompiler()({}, { customOptions: { allErrors: true, strict: false } });
    const check = (schema: TSchema) =>
      compile({ schema, method: 'GET', url: '/', httpPart: 'body' }) as ((
        data: unknown,
      ) => boolean) & {
        errors?: unknown;
      };
    const app = await edge();
    const cases: Array<[string, TSchema]> = [
      [
        '/events.json',
        documented.DiscoveryPage('events', documented.DiscoveryEvent, 'DiscoveryEventPage'),
      ],
      ['/events/EVT000000000001', documented.DiscoveryEvent],
      ['/events/EVT000000000002', documented.DiscoveryEvent],
      [
        '/venues',
        documented.DiscoveryPage('venues', documented.DiscoveryVenue, 'DiscoveryVenuePage'),
      ],
      ['/venues/ZVENUE1', documented.DiscoveryVenue],
      [
        '/attractions',
        documented.DiscoveryPage(
          'attractions',
          documented.DiscoveryAttraction,
          'DiscoveryAttractionPage',
        ),
      ],
      ['/attractions/KATTR1', documented.DiscoveryAttraction],
      [
        '/classifications?keyword=rock',
        documented.DiscoveryPage(
          'classifications',
          documented.DiscoveryClassification,
          'DiscoveryClassificationPage',
        ),
      ],
      ['/classifications/KZ1', documented.DiscoveryClassification],
      ['/classifications/segments/KZ1', documented.DiscoverySegment],
      ['/classifications/genres/KG1', documented.DiscoveryGenre],
      ['/classifications/subgenres/KS1', documented.DiscoverySubGenre],
    ];
    for (const [path, schema] of cases) {
      const separator = path.includes('?') ? '&' : '?';
      const response = await app.inject({
        url: `/discovery/v2${path}${separator}apikey=good-key`,
      });
      expect(response.statusCode, path).toBe(200);
      const validate = check(schema);
      expect(validate(response.json()), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
