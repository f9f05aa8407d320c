import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DealRecord, DealSearchQuery, DealSearchResult } from '../src/app/deals.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const adminToken = 'test-admin-token-0123456789';
const KEY = 'good-key';

const oneEvent: DealSearchResult = {
  hits: 1,
  totalHits: 7,
  events: [
    {
      eventId: 'G5vYZ9abcdefghi',
      eventName: 'Summer Jam',
      eventDate: '2030-06-02T00:00:00.000Z',
      onsaleOnDate: '2030-02-01T15:00:00.000Z',
      eventDetailsLink: 'https://tickets.example.com/e/1',
      minPrice: 25.5,
      maxPrice: 99,
      currency: 'USD',
      deals: [{ dealName: 'Two for one', dealDescription: 'BOGO', dealOfferCode: 'TWO' }],
      attractions: [{ attractionId: 123456789, attractionName: 'The Band' }],
      venue: { venueId: 42, venueName: 'Arena', venueLatitude: 40.75, venueLongitude: -73.99 },
      categorization: {
        majorGenres: [{ name: 'Rock', id: 7 }],
        minorGenres: [{ name: 'Indie', id: 8 }],
      },
    },
  ],
};

const aDeal: DealRecord = {
  id: 'Dabc',
  eventId: 'E1',
  dealName: 'Two for one',
  dealDescription: 'BOGO',
  exclusivity: 'EXCLUSIVE',
  state: 'ACTIVE',
  version: 1,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
};

let queries: DealSearchQuery[];
let answer: DealSearchResult;
let calls: Array<[string, unknown[]]>;
let sut: FastifyInstance | undefined;

const kinded = (kind: string, message: string) => Object.assign(new Error(message), { kind });

beforeEach(() => {
  queries = [];
  calls = [];
  answer = oneEvent;
});
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

async function edge(): Promise<FastifyInstance> {
  const backends = fakeBackends({
    developerAccess: {
      async validateApiKey(key) {
        return { valid: key === KEY, appId: key === KEY ? 'app-1' : '' };
      },
      async checkRateLimit() {
        return { limit: 5000, available: 4999, resetEpochMs: 0, over: false };
      },
    },
    deals: {
      async searchDeals(query) {
        queries.push(query);
        if (query.marketIds.includes(999))
          throw kinded('invalid_argument', 'marketIds: 999 is not a market id');
        return answer;
      },
      async createDeal(input) {
        calls.push(['create', [input]]);
        if (input.eventId === 'unknown') throw kinded('not_found', 'event unknown is not known');
        return { ...aDeal, eventId: input.eventId };
      },
      async updateDeal(id, change) {
        calls.push(['update', [id, change]]);
        if (id === 'ended') throw kinded('failed_precondition', 'deal ended has ended');
        return { ...aDeal, id, version: 2, dealName: change.dealName };
      },
      async endDeal(id) {
        calls.push(['end', [id]]);
        if (id === 'missing') throw kinded('not_found', 'deal missing is not known');
        return { ...aDeal, id, state: 'ENDED' };
      },
      async getDeal(id) {
        return { ...aDeal, id };
      },
    },
  });
  sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, { adminToken, version: 'test', backends });
  await sut.ready();
  return sut;
}

const get = async (query: string, path = '/dc/content/v1/deals/events') =>
  (await edge()).inject({ url: `${path}?apikey=${KEY}${query ? `&${query}` : ''}` });

/** The query the deals service received for `query`. */
async function searched(query: string, path?: string): Promise<DealSearchQuery> {
  const response = await get(query, path);
  expect(response.statusCode, response.body).toBe(200);
  return queries.at(-1)!;
}

async function expect406(query: string, message: RegExp) {
  const response = await get(query);
  expect(response.statusCode, response.body).toBe(406);
  expect(response.json()).toEqual({ message: expect.stringMatching(message), statusCode: 406 });
}

describe('GET /dc/content/v1/deals/events', () => {
  it('answers 200 with the deals API result, exactly', async () => {
    const response = await get('');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.json()).toEqual(oneEvent);
  });

  it('applies every default of the deals API', async () => {
    expect(await searched('')).toEqual({
      exclusivities: ['EXCLUSIVE', 'NONEXCLUSIVE'],
      marketIds: [],
      country: 'US',
      startRow: 0,
      rows: 25,
      qa: false,
    });
  });

  it('401 {message, statusCode} without an apikey or with an unknown one', async () => {
    for (const url of [
      '/dc/content/v1/deals/events',
      '/dc/content/v1/deals/events?apikey=nope',
      '/dc/content-qa/v1/deals/D1/events',
    ]) {
      const response = await (await edge()).inject({ url });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ message: expect.any(String), statusCode: 401 });
    }
    expect(queries).toEqual([]);
  });

  it('passes exclusivities as a list (comma-separated or repeated, any case)', async () => {
    expect((await searched('exclusivities=EXCLUSIVE')).exclusivities).toEqual(['EXCLUSIVE']);
    expect((await searched('exclusivities=nonexclusive')).exclusivities).toEqual(['NONEXCLUSIVE']);
    expect((await searched('exclusivities=EXCLUSIVE,NONEXCLUSIVE')).exclusivities).toEqual([
      'EXCLUSIVE',
      'NONEXCLUSIVE',
    ]);
    expect(
      (await searched('exclusivities=EXCLUSIVE&exclusivities=NONEXCLUSIVE')).exclusivities,
    ).toEqual(['EXCLUSIVE', 'NONEXCLUSIVE']);
  });

  it('passes marketIds, startRow, rows, country, city and state', async () => {
    expect(
      await searched(
        'marketIds=35,3&marketIds=27&startRow=50&rows=500&country=gb&city=London&state=ENG',
      ),
    ).toMatchObject({
      marketIds: [35, 3, 27],
      startRow: 50,
      rows: 500,
      country: 'GB',
      city: 'London',
      state: 'ENG',
    });
  });

  it('passes latitude/longitude with radius 10 kilometers by default, or the given radius and unit', async () => {
    expect((await searched('latitude=40.75&longitude=-73.99')).near).toEqual({
      latitude: 40.75,
      longitude: -73.99,
      radius: 10,
      unit: 'kilometers',
    });
    expect(
      (await searched('latitude=40.75&longitude=-73.99&radius=25&radiusUnit=miles')).near,
    ).toEqual({
      latitude: 40.75,
      longitude: -73.99,
      radius: 25,
      unit: 'miles',
    });
    expect(
      (await searched('latitude=0&longitude=0&radius=2.5&radiusUnit=kilometers')).near,
    ).toMatchObject({ radius: 2.5, unit: 'kilometers' });
  });

  it('takes a single-valued parameter whole, commas included', async () => {
    expect((await searched('city=Washington%2C%20D.C.')).city).toBe('Washington, D.C.');
  });

  it('passes majorGenreId, minorGenreId, venueId and attractionId as numbers', async () => {
    expect(
      await searched('majorGenreId=7&minorGenreId=8&venueId=42&attractionId=123456789'),
    ).toMatchObject({
      majorGenreId: 7,
      minorGenreId: 8,
      venueId: 42,
      attractionId: 123456789,
    });
  });

  it('passes timeRangeStart and timeRangeEnd as instants (UTC when no zone is given)', async () => {
    const query = await searched(
      'timeRangeStart=2030-07-01T00:00:00Z&timeRangeEnd=2030-08-01T02:00:00%2B02:00',
    );
    expect(query.timeRangeStart).toEqual(new Date('2030-07-01T00:00:00Z'));
    expect(query.timeRangeEnd).toEqual(new Date('2030-08-01T00:00:00Z'));
    expect((await searched('timeRangeStart=2030-07-01T10:30')).timeRangeStart).toEqual(
      new Date('2030-07-01T10:30:00Z'),
    );
    expect((await searched('timeRangeStart=2030-07-01')).timeRangeStart).toEqual(
      new Date('2030-07-01T00:00:00Z'),
    );
  });

  it.each([
    ['rows=501', /rows/],
    ['rows=0', /rows/],
    ['rows=ten', /rows/],
    ['startRow=-1', /startRow/],
    ['exclusivities=SOMETIMES', /exclusivities/],
    ['marketIds=abc', /marketIds/],
    ['latitude=40.7', /latitude and longitude/],
    ['longitude=-73.9', /latitude and longitude/],
    ['latitude=91&longitude=0', /latitude/],
    ['latitude=1&longitude=0&radius=-5', /radius/],
    ['latitude=1&longitude=0&radiusUnit=feet', /radiusUnit/],
    ['country=USA', /country/],
    ['majorGenreId=rock', /majorGenreId/],
    ['minorGenreId=0', /minorGenreId/],
    ['venueId=1.5', /venueId/],
    ['attractionId=-2', /attractionId/],
    ['timeRangeStart=yesterday', /timeRangeStart/],
    ['timeRangeEnd=2030-13-45T00:00:00Z', /timeRangeEnd/],
    ['timeRangeStart=2030-02-01&timeRangeEnd=2030-01-01', /timeRangeStart/],
    ['rows=10&rows=20', /rows/],
  ])('406 {message, statusCode} for %s', async (query, message) => {
    await expect406(query, message);
    expect(queries).toEqual([]);
  });

  it('406 when the deals service refuses a market id outside the market table', async () => {
    await expect406('marketIds=999', /999/);
  });

  it('204 with no body when the page holds no event', async () => {
    answer = { hits: 0, totalHits: 0, events: [] };
    const response = await get('');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
  });

  it('405 {message, statusCode} for another method, 404 for an unknown path', async () => {
    const app = await edge();
    const post = await app.inject({
      method: 'POST',
      url: `/dc/content/v1/deals/events?apikey=${KEY}`,
    });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toEqual({ message: expect.any(String), statusCode: 405 });
    const unknown = await app.inject({ url: `/dc/content/v1/deals/nothing/here?apikey=${KEY}` });
    const unknownWithoutKey = await app.inject({ url: '/dc/content-qa/v1/nothing' });
    expect(unknownWithoutKey.statusCode).toBe(404);
    expect(unknownWithoutKey.json()).toEqual({ message: expect.any(String), statusCode: 404 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: expect.any(String), statusCode: 404 });
  });

  it('serves the QA data set under /dc/content-qa/v1', async () => {
    expect((await searched('', '/dc/content-qa/v1/deals/events')).qa).toBe(true);
    expect((await searched('', '/dc/content/v1/deals/events')).qa).toBe(false);
  });
});

describe('GET /dc/content/v1/deals/{deal}/events', () => {
  it('restricts the search to the deal, with the same parameters and result format', async () => {
    const response = await get(
      'rows=5&exclusivities=EXCLUSIVE',
      '/dc/content/v1/deals/Dabc123/events',
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(oneEvent);
    expect(queries.at(-1)).toMatchObject({
      dealId: 'Dabc123',
      rows: 5,
      exclusivities: ['EXCLUSIVE'],
      qa: false,
    });
    expect((await searched('', '/dc/content-qa/v1/deals/Dabc123/events')).qa).toBe(true);
  });

  it('406 for a deal id that cannot be one; 204 for an unknown deal', async () => {
    expect((await get('', '/dc/content/v1/deals/bad%20id!/events')).statusCode).toBe(406);
    answer = { hits: 0, totalHits: 0, events: [] };
    expect((await get('', '/dc/content/v1/deals/Dnothing/events')).statusCode).toBe(204);
  });
});

describe('admin deals', () => {
  const admin = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    token = adminToken,
  ) =>
    (await edge()).inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
  const body = {
    eventId: 'E1',
    dealName: 'Two for one',
    dealDescription: 'BOGO',
    dealOfferCode: 'TWO',
    exclusivity: 'EXCLUSIVE',
  };

  it('POST /admin/v1/deals → 201 {id}', async () => {
    const response = await admin('POST', '/admin/v1/deals', body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ id: 'Dabc' });
    expect(calls).toEqual([['create', [body]]]);
  });

  it('POST refuses a bad body (400), a wrong token (401) and an unknown event (404)', async () => {
    expect(
      (await admin('POST', '/admin/v1/deals', { ...body, exclusivity: 'MAYBE' })).statusCode,
    ).toBe(400);
    expect((await admin('POST', '/admin/v1/deals', { ...body, extra: 1 })).statusCode).toBe(400);
    const { dealName: _n, ...noName } = body;
    expect((await admin('POST', '/admin/v1/deals', noName)).statusCode).toBe(400);
    expect(
      (await admin('POST', '/admin/v1/deals', body, 'wrong-token-0123456789')).statusCode,
    ).toBe(401);
    const unknown = await admin('POST', '/admin/v1/deals', { ...body, eventId: 'unknown' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('unknown') },
    });
  });

  it('PUT changes a deal (200 with the deal), 409 when it has ended', async () => {
    const change = {
      dealName: 'Half',
      dealDescription: '50%',
      exclusivity: 'NONEXCLUSIVE',
      expectedVersion: 1,
    };
    const response = await admin('PUT', '/admin/v1/deals/Dabc', change);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: 'Dabc', dealName: 'Half', version: 2 });
    expect(calls.at(-1)).toEqual(['update', ['Dabc', change]]);
    expect((await admin('PUT', '/admin/v1/deals/ended', change)).statusCode).toBe(409);
  });

  it('DELETE ends a deal (204), 404 when unknown; GET reads it', async () => {
    expect((await admin('DELETE', '/admin/v1/deals/Dabc')).statusCode).toBe(204);
    expect(calls.at(-1)).toEqual(['end', ['Dabc']]);
    expect((await admin('DELETE', '/admin/v1/deals/missing')).statusCode).toBe(404);
    const read = await admin('GET', '/admin/v1/deals/Dabc');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ ...aDeal });
  });
});
