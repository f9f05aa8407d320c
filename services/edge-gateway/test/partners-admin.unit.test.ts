import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { NewPartner, PartnerAdmin, PartnerRecord } from '../src/app/partners.js';
import { ADMIN_TOKEN as adminToken, useEdge } from './edge-harness.js';

const startEdge = useEdge();

const partner: PartnerRecord = {
  id: 'p-1',
  name: 'Box office',
  baseUrl: 'https://partner.example/v1',
  authUrl: 'https://partner.example/oauth/token',
  clientId: 'marquee',
  venues: [{ venueId: 'V1', lastImportEvents: 3, lastImportAt: '2030-01-01T00:00:00.000Z' }],
  health: 'HEALTHY',
  createdAt: '2030-01-01T00:00:00.000Z',
};

async function edge(partners: Partial<PartnerAdmin>): Promise<FastifyInstance> {
  return startEdge({ partners });
}

const call = (
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  token: string | undefined = adminToken,
) =>
  app.inject({
    method,
    url,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });

const registration: NewPartner = {
  name: 'Box office',
  baseUrl: 'https://partner.example/v1',
  authUrl: 'https://partner.example/oauth/token',
  clientId: 'marquee',
  clientSecret: 's3cret',
  venues: ['V1', 'V2'],
};

describe('POST /admin/v1/partners', () => {
  it('registers the partner and answers 201 with its id', async () => {
    const received: NewPartner[] = [];
    const app = await edge({
      async registerPartner(input) {
        received.push(input);
        return { id: 'p-1' };
      },
    });
    const response = await call(app, 'POST', '/admin/v1/partners', registration);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ id: 'p-1' });
    expect(received).toEqual([registration]);
  });

  it('refuses an incomplete or unknown-field body with 400 and the admin error body', async () => {
    const app = await edge({});
    for (const body of [
      { ...registration, baseUrl: 'not a url' },
      { ...registration, venues: [] },
      { ...registration, extra: 1 },
      { name: 'x' },
    ]) {
      const response = await call(app, 'POST', '/admin/v1/partners', body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('answers 401 without the admin token and never reaches the connector', async () => {
    const app = await edge({});
    const response = await call(app, 'POST', '/admin/v1/partners', registration, '');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    expect((await call(app, 'GET', '/admin/v1/partners', undefined, 'wrong')).statusCode).toBe(401);
  });

  it("keeps the connector's refusal: INVALID_ARGUMENT 400, UNAVAILABLE 503 with Retry-After", async () => {
    let error = new AppError('invalid_argument', 'venue V9 is unknown to the partner');
    const app = await edge({
      async registerPartner() {
        throw error;
      },
    });
    const refused = await call(app, 'POST', '/admin/v1/partners', registration);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: { code: 'invalid_argument', message: 'venue V9 is unknown to the partner' },
    });
    error = new AppError('unavailable', 'connector down');
    const down = await call(app, 'POST', '/admin/v1/partners', registration);
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('1');
  });
});

describe('GET /admin/v1/partners', () => {
  it('lists partners without secrets', async () => {
    const app = await edge({ listPartners: async () => [partner] });
    const response = await call(app, 'GET', '/admin/v1/partners');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ partners: [partner] });
    expect(response.body).not.toContain('secret');
  });

  it('drops any field the contract does not list (a secret can never leak through)', async () => {
    const leaky = { ...partner, clientSecret: 'oops' } as PartnerRecord;
    const app = await edge({ getPartner: async () => leaky });
    const response = await call(app, 'GET', '/admin/v1/partners/p-1');
    expect(response.statusCode).toBe(200);
    expect(response.json()).not.toHaveProperty('clientSecret');
  });

  it('answers 404 for an unknown partner', async () => {
    const app = await edge({
      async getPartner(id) {
        throw new AppError('not_found', `no partner ${id}`);
      },
    });
    const response = await call(app, 'GET', '/admin/v1/partners/nope');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'no partner nope' } });
  });
});

describe('POST /admin/v1/partners/:id/imports', () => {
  it('starts an import of the given venues (202), or of every venue with an empty body', async () => {
    const asked: string[][] = [];
    const app = await edge({
      async startImport(_id, venues) {
        asked.push(venues);
        return { venues: venues.length > 0 ? venues : ['V1', 'V2'] };
      },
    });
    const some = await call(app, 'POST', '/admin/v1/partners/p-1/imports', { venues: ['V2'] });
    expect(some.statusCode).toBe(202);
    expect(some.json()).toEqual({ venues: ['V2'] });
    const all = await call(app, 'POST', '/admin/v1/partners/p-1/imports', {});
    expect(all.json()).toEqual({ venues: ['V1', 'V2'] });
    expect(asked).toEqual([['V2'], []]);
    for (const body of [{ venues: ['V2', 'V2'] }, { all: true }]) {
      const bad = await call(app, 'POST', '/admin/v1/partners/p-1/imports', body);
      expect(bad.statusCode).toBe(400);
    }
    expect(asked).toHaveLength(2);
  });
});

describe('GET /admin/v1/partners/queued-calls', () => {
  it('lists the retry queue, optionally for one partner', async () => {
    const asked: (string | undefined)[] = [];
    const app = await edge({
      async listQueuedCalls(partnerId) {
        asked.push(partnerId);
        return [
          {
            id: 'q-1',
            partnerId: 'p-1',
            operation: 'CANCEL_ORDER',
            inventoryOrderId: 'io-1',
            orderId: 'o-1',
            attempts: 3,
            lastError: 'HTTP 503',
          },
        ];
      },
    });
    const response = await call(app, 'GET', '/admin/v1/partners/queued-calls?partnerId=p-1');
    expect(response.statusCode).toBe(200);
    expect(response.json().calls).toHaveLength(1);
    expect(asked).toEqual(['p-1']);
  });
});
