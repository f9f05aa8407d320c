import type { FastifyInstance } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import type {
  NewResaleListing,
  ResaleListingQuery,
  ResaleListingRecord,
} from '../src/app/top-picks.js';
import { ADMIN_TOKEN as adminToken, useEdge } from './edge-harness.js';

const LISTING = 'G5vYZ9abcdefghi.AAAAAAAAAAAAAAAAAAAAAA';
const kinded = (kind: string, message: string) => Object.assign(new Error(message), { kind });

const listing: ResaleListingRecord = {
  id: LISTING,
  eventId: 'G5vYZ9abcdefghi',
  orderId: 'ord-1',
  ticketIds: ['T1', 'T2'],
  price: { amount: 4500, currency: 'EUR' },
  faceValue: { amount: 8000, currency: 'EUR' },
  areaId: 'FLOOR-LEFT',
  section: 'LEFT',
  row: 'A',
  seats: ['1', '2'],
  generalAdmission: false,
  priceLevelId: 'PL-FLOOR',
  priceTypeId: 'STANDARD',
  state: 'LISTED',
  sellerNotes: 'Great view',
  sellerAppId: 'app-1',
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
};

let created: NewResaleListing[];
let listed: ResaleListingQuery[];
const startEdge = useEdge();
beforeEach(() => {
  created = [];
  listed = [];
});

async function edge(): Promise<FastifyInstance> {
  return startEdge({
    topPicks: {
      async createListing(input) {
        created.push(input);
        if (input.orderId === 'missing') throw kinded('not_found', 'order missing not found');
        if (input.orderId === 'cancelled')
          throw kinded('failed_precondition', 'order cancelled is not confirmed');
        return listing;
      },
      async listListings(query) {
        listed.push(query);
        return {
          listings: [listing],
          page: { offset: query.offset, limit: query.limit, total: 1 },
        };
      },
      async getListing(id) {
        if (id !== LISTING) throw kinded('not_found', `resale listing ${id} not found`);
        return listing;
      },
      async withdrawListing(id) {
        if (id === 'held.x') throw kinded('failed_precondition', 'listing is held by a cart');
        if (id !== LISTING) throw kinded('not_found', `resale listing ${id} not found`);
        return { ...listing, state: 'WITHDRAWN' };
      },
    },
  });
}

const call = async (
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: object,
  token = adminToken,
) =>
  (await edge()).inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body ? { payload: body } : {}),
  });

const good = {
  orderId: 'ord-1',
  ticketIds: ['T1', 'T2'],
  price: { amount: 4500, currency: 'EUR' },
};

describe('admin resale listings', () => {
  it('creates a listing: 201 with the listing', async () => {
    const response = await call('POST', '/admin/v1/resale-listings', {
      ...good,
      sellerNotes: 'Great view',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual(listing);
    expect(created).toEqual([{ ...good, sellerNotes: 'Great view' }]);
  });

  it.each([
    ['no tickets', { ...good, ticketIds: [] }],
    ['a repeated ticket', { ...good, ticketIds: ['T1', 'T1'] }],
    ['a decimal amount', { ...good, price: { amount: 45.5, currency: 'EUR' } }],
    ['a zero amount', { ...good, price: { amount: 0, currency: 'EUR' } }],
    ['a bad currency', { ...good, price: { amount: 1, currency: 'EURO' } }],
    ['no order', { ticketIds: ['T1'], price: good.price }],
    ['an unknown field', { ...good, owner: 'me' }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await call('POST', '/admin/v1/resale-listings', body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(created).toEqual([]);
  });

  it('answers 404 for an unknown order and 409 for one that cannot be listed', async () => {
    const missing = await call('POST', '/admin/v1/resale-listings', {
      ...good,
      orderId: 'missing',
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'not_found', message: 'order missing not found' },
    });
    const cancelled = await call('POST', '/admin/v1/resale-listings', {
      ...good,
      orderId: 'cancelled',
    });
    expect(cancelled.statusCode).toBe(409);
  });

  it("lists an event's listings with paging", async () => {
    const response = await call(
      'GET',
      '/admin/v1/resale-listings?eventId=G5vYZ9abcdefghi&activeOnly=true&limit=5',
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      listings: [listing],
      page: { offset: 0, limit: 5, total: 1 },
    });
    expect(listed).toEqual([{ eventId: 'G5vYZ9abcdefghi', activeOnly: true, offset: 0, limit: 5 }]);
    for (const bad of [
      '',
      '?eventId=',
      '?eventId=x&limit=501',
      '?eventId=x&offset=-1',
      '?eventId=a.b',
    ]) {
      expect((await call('GET', `/admin/v1/resale-listings${bad}`)).statusCode).toBe(400);
    }
  });

  it('reads and withdraws a listing', async () => {
    expect((await call('GET', `/admin/v1/resale-listings/${LISTING}`)).json()).toEqual(listing);
    expect((await call('GET', '/admin/v1/resale-listings/nope.x')).statusCode).toBe(404);
    const withdrawn = await call('DELETE', `/admin/v1/resale-listings/${LISTING}`);
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json().state).toBe('WITHDRAWN');
    expect((await call('DELETE', '/admin/v1/resale-listings/held.x')).statusCode).toBe(409);
    expect((await call('DELETE', '/admin/v1/resale-listings/nope.x')).statusCode).toBe(404);
    expect((await call('DELETE', '/admin/v1/resale-listings/bad%20id')).statusCode).toBe(400);
  });

  it('needs the admin token', async () => {
    for (const [method, url] of [
      ['POST', '/admin/v1/resale-listings'],
      ['GET', '/admin/v1/resale-listings?eventId=x'],
      ['GET', `/admin/v1/resale-listings/${LISTING}`],
      ['DELETE', `/admin/v1/resale-listings/${LISTING}`],
    ] as const) {
      const response = await call(method, url, method === 'POST' ? good : undefined, '');
      expect(response.statusCode).toBe(401);
    }
    expect(created).toEqual([]);
  });

  it('documents every status of every route', async () => {
    const openapi = (await (await edge()).inject({ url: '/openapi.json' })).json();
    const statuses = (path: string, method: string) =>
      Object.keys(openapi.paths[path][method].responses).sort();
    // 400, 401, 431, 500, 503, 504 on every admin operation; 414 with a path parameter; 413 and 415
    // with a body (openapi-contract.ts); the rest is the route's own.
    const common = ['400', '401', '431', '500', '503', '504'];
    expect(statuses('/admin/v1/resale-listings', 'post')).toEqual(
      [...common, '201', '404', '409', '413', '415'].sort(),
    );
    expect(statuses('/admin/v1/resale-listings', 'get')).toEqual([...common, '200'].sort());
    expect(statuses('/admin/v1/resale-listings/{id}', 'get')).toEqual(
      [...common, '200', '404', '414'].sort(),
    );
    expect(statuses('/admin/v1/resale-listings/{id}', 'delete')).toEqual(
      [...common, '200', '404', '409', '413', '414', '415'].sort(),
    );
  });
});
