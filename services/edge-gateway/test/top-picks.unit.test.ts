import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TopPicksDocument, TopPicksQuery } from '../src/app/top-picks.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const KEY = 'good-key';
const EVENT = 'G5vYZ9abcdefghi';
const SID = 'S'.repeat(43);
const PATH = `/top-picks/v1/events/id/${EVENT}`;

const kinded = (kind: string, message: string, details?: object) =>
  Object.assign(new Error(message), { kind, ...(details ? { details } : {}) });

const document: TopPicksDocument = {
  fanSession: {
    resaleSid: {
      sessionId: SID,
      sessionStartTime: 1_900_000_000_000,
      sessionExpireTime: 1_900_003_600_000,
    },
  },
  messages: [],
  page: { number: 1, size: 10, totalElements: 2, totalPages: 1 },
  picks: [
    {
      type: 'seats',
      quality: 0.75,
      area: { id: 'FLOOR-LEFT', name: 'Floor left', description: '' },
      descriptions: ['Floor left'],
      section: 'LEFT',
      selection: 'standard',
      snapshotImageUrl: null,
      offers: ['STANDARD.PL-FLOOR'],
    },
    {
      type: 'seats',
      quality: 0.9,
      area: { id: 'FLOOR-CENTRE', name: 'Floor centre', description: '' },
      descriptions: ['Section CENTRE, Row A, Seats 9-10', 'Resale'],
      section: 'CENTRE',
      selection: 'resale',
      row: 'A',
      snapshotImageUrl: null,
      listingDetails: {
        location: 'Section CENTRE, Row A, Seats 9-10',
        estimatedDeliveryDate: '2030-01-01T00:00:00.000Z',
      },
      offers: [`${EVENT}.AAAAAAAAAAAAAAAAAAAAAA`],
      seats: ['9', '10'],
    },
  ],
  _embedded: {
    offer: [
      {
        offerId: 'STANDARD.PL-FLOOR',
        name: 'Standard',
        ticketTypeId: 'STANDARD',
        priceLevelId: 'PL-FLOOR',
        description: '',
        currency: 'EUR',
        faceValue: 80,
        totalPrice: 89.6,
        charges: [{ reason: 'face value', type: 'face_value', amount: 80, fee_type: 'per ticket' }],
        limit: { min: 1, max: 8 },
        promotions: [],
        protected: false,
        inventoryType: 'PRIMARY',
      },
    ],
  },
  eventDetails: {
    id: EVENT,
    granularPricing: true,
    secureTixEnabled: true,
    allInclusivePricing: false,
    venueMapUrl: null,
    venueMapWithLabelsUrl: null,
    listingsDisclaimer: '',
    transfer: { eligible: true, explanation: 'yes' },
    agreements: [],
    importantInformation: null,
  },
};

let queries: TopPicksQuery[];
let sut: FastifyInstance | undefined;
beforeEach(() => {
  queries = [];
});
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

async function edge(): Promise<FastifyInstance> {
  sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends: fakeBackends({
      developerAccess: {
        async validateApiKey(key) {
          return { valid: key === KEY, appId: key === KEY ? 'app-1' : '' };
        },
        async checkRateLimit(appId) {
          return { limit: 5, available: 4, resetEpochMs: 0, over: appId === 'over' };
        },
      },
      topPicks: {
        async getTopPicks(query) {
          queries.push(query);
          if (query.eventId === 'UNKNOWN00000000') throw kinded('not_found', 'event not sold');
          if (query.eventId === 'DOWN00000000000') throw kinded('unavailable', 'cart restarting');
          if (query.eventId === 'SLOW00000000000') throw kinded('deadline_exceeded', 'too slow');
          if (query.eventId === 'BUG000000000000') throw new Error('a bug with a stack');
          if (query.quantity > 8)
            throw kinded('invalid_argument', 'quantity must be 1 to 8', { reason: '10002' });
          const renewed = query.fanSessionId === 'expired';
          return {
            ...document,
            fanSession: {
              resaleSid: {
                ...document.fanSession.resaleSid,
                sessionId: query.fanSessionId || SID,
              },
            },
            messages: renewed ? ['SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED'] : [],
          };
        },
      },
    }),
  });
  await sut.ready();
  return sut;
}

const get = async (url: string, headers: Record<string, string> = {}) =>
  (await edge()).inject({ url, headers });

describe('GET /top-picks/v1/events/id/{event_id}', () => {
  it('answers the picks, with the session id in the header too', async () => {
    const response = await get(`${PATH}?apikey=${KEY}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(document);
    expect(response.headers['x-platform-session-sid']).toBe(SID);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['rate-limit']).toBe('5');
    expect(response.headers['rate-limit-available']).toBe('4');
    expect(response.headers['rate-limit-over']).toBe('0');
    expect(queries[0]).toEqual({
      appId: 'app-1',
      eventId: EVENT,
      fanSessionId: '',
      quantity: 2,
      ticketTypeId: '',
      priceLevelIds: [],
      areaIds: [],
      sections: [],
      priceMin: '',
      priceMax: '',
      includeResale: false,
      page: 1,
      size: 10,
    });
  });

  it('takes the key from x-api-key and the session from X-PLATFORM-SESSION-SID', async () => {
    const response = await get(PATH, { 'x-api-key': KEY, 'X-PLATFORM-SESSION-SID': 'expired' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-platform-session-sid']).toBe('expired');
    expect(response.json().messages).toEqual(['SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED']);
    expect(queries[0]!.fanSessionId).toBe('expired');
  });

  it('passes every parameter', async () => {
    const response = await get(
      `${PATH}?apikey=${KEY}&quantity=4&ticketTypeId=000123&priceLevels=PL-1,PL-2&priceLevels=PL-3` +
        '&areas=A1&sections=Left,%20Centre&prices=20,80.5&selection=standard,Resale&sort=quality&page=2&size=30',
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(queries[0]).toMatchObject({
      quantity: 4,
      ticketTypeId: '000123',
      priceLevelIds: ['PL-1', 'PL-2', 'PL-3'],
      areaIds: ['A1'],
      sections: ['Left', 'Centre'],
      priceMin: '20',
      priceMax: '80.5',
      includeResale: true,
      page: 2,
      size: 30,
    });
    await get(`${PATH}?apikey=${KEY}&selection=Any&prices=,50`);
    expect(queries[1]).toMatchObject({ includeResale: true, priceMin: '', priceMax: '50' });
  });

  it('answers 401 without a valid key, before calling the cart', async () => {
    for (const url of [PATH, `${PATH}?apikey=nope`]) {
      const response = await get(url);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: {
          message: expect.any(String),
          code: '10001',
          http_code: 401,
          severity: 'WARN',
        },
      });
    }
    expect(queries).toEqual([]);
  });

  it.each([
    ['size above 30', 'size=31'],
    ['size 0', 'size=0'],
    ['page 0', 'page=0'],
    ['quantity 0', 'quantity=0'],
    ['quantity not a number', 'quantity=two'],
    ['prices without a comma', 'prices=20'],
    ['negative prices', 'prices=-1,5'],
    ['an unknown selection', 'selection=vip'],
    ['an unknown sort', 'sort=price'],
    ['two sizes', 'size=5&size=6'],
  ])('answers 400 (10002) for %s', async (_name, query) => {
    const response = await get(`${PATH}?apikey=${KEY}&${query}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toMatchObject({ code: '10002', http_code: 400 });
    expect(queries).toEqual([]);
  });

  it('answers 400 for a malformed event id or session id', async () => {
    expect((await get(`/top-picks/v1/events/id/short?apikey=${KEY}`)).statusCode).toBe(400);
    const bad = await get(`${PATH}?apikey=${KEY}`, { 'x-platform-session-sid': 'not valid!' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('10002');
  });

  it("keeps the cart's meaning of its errors", async () => {
    const cases: Array<[string, number, string]> = [
      ['UNKNOWN00000000', 404, 'not_found'],
      ['DOWN00000000000', 503, 'unavailable'],
      ['SLOW00000000000', 504, 'deadline_exceeded'],
    ];
    for (const [event, status, code] of cases) {
      const response = await get(`/top-picks/v1/events/id/${event}?apikey=${KEY}`);
      expect(response.statusCode).toBe(status);
      expect(response.json().error).toMatchObject({ code, http_code: status });
    }
    const invalid = await get(`${PATH}?apikey=${KEY}&quantity=9`);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toMatchObject({
      code: '10002',
      message: 'quantity must be 1 to 8',
    });
    const down = await get(`/top-picks/v1/events/id/DOWN00000000000?apikey=${KEY}`);
    expect(down.headers['retry-after']).toBe('1');
  });

  it('never shows a stack trace', async () => {
    const response = await get(`/top-picks/v1/events/id/BUG000000000000?apikey=${KEY}`);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/stack|at Object/);
    expect(response.json().error).toMatchObject({ code: 'internal', severity: 'ERROR' });
  });

  it('answers 404 and 405 in the family body for other paths and methods', async () => {
    const missing = await get(`/top-picks/v1/nothing?apikey=${KEY}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.http_code).toBe(404);
    const post = await (await edge()).inject({ method: 'POST', url: `${PATH}?apikey=${KEY}` });
    expect(post.statusCode).toBe(405);
    expect(post.json().error.http_code).toBe(405);
  });

  it('never answers 500 to random query strings', async () => {
    const app = await edge();
    const keys = [
      'quantity',
      'size',
      'page',
      'prices',
      'selection',
      'sort',
      'areas',
      'sections',
      'priceLevels',
      'ticketTypeId',
      'x',
    ];
    const junk = [
      '',
      '-',
      '0',
      '31',
      '1e3',
      '%00',
      '%E2%82%AC',
      ',',
      ',,',
      'a,b',
      '9'.repeat(40),
      '[]',
      '{}',
      'null',
      '1.5',
    ];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let i = 0; i < 300; i++) {
      const parts = Array.from(
        { length: 1 + next(4) },
        () => `${keys[next(keys.length)]}=${junk[next(junk.length)]}`,
      );
      const response = await app.inject({ url: `${PATH}?apikey=${KEY}&${parts.join('&')}` });
      expect([200, 400], `${parts.join('&')}: ${response.body}`).toContain(response.statusCode);
      if (response.statusCode === 400) expect(response.json().error.code).toBe('10002');
    }
  });

  it('documents every status the route answers, and the session header', async () => {
    const app = await edge();
    const openapi = (await app.inject({ url: '/openapi.json' })).json();
    const route = openapi.paths['/top-picks/v1/events/id/{event_id}'].get;
    expect(Object.keys(route.responses).sort()).toEqual(
      ['200', '400', '401', '404', '405', '414', '429', '431', '500', '503', '504'].sort(),
    );
    expect(route.responses['200'].headers).toHaveProperty('x-platform-session-sid');
    const names = route.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'event_id',
        'quantity',
        'selection',
        'prices',
        'page',
        'size',
        'x-platform-session-sid',
      ]),
    );
  });
});
