// The public API's contract as the edge enforces and documents it: strict body types, numbers
// beyond what a field holds, 405 with Allow, 429 with Retry-After, and the OpenAPI document's
// statuses, headers and security (ports/http/openapi-contract.ts, families/register-family.ts).
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backends, RateLimitState } from '../src/app/backends.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { buildOpenApiDocument } from '../src/ports/http/openapi-document.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const adminToken = 'test-admin-token-0123456789';
const admin = { authorization: `Bearer ${adminToken}` };

let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

async function edge(backends: Backends): Promise<FastifyInstance> {
  sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, { adminToken, version: 'test', backends });
  await sut.ready();
  return sut;
}

const quota = (over: boolean, retryAfterMs?: number): RateLimitState => ({
  limit: 5,
  available: over ? 0 : 4,
  resetEpochMs: 1_900_000_000_000,
  over,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

/** An app whose key is valid (a distributor), with the given quota state. */
const keyed = (state: RateLimitState) => ({
  validateApiKey: async (key: string) => ({
    valid: key === 'key-1',
    appId: 'app-1',
    access: { commerceShopping: false, partnerDistribution: true },
  }),
  checkRateLimit: async () => state,
});

describe('request bodies are not coerced', () => {
  it('refuses "name": false for an app (400 in the admin body) and creates nothing', async () => {
    const created: unknown[] = [];
    const app = await edge(
      fakeBackends({
        developerAccess: {
          async createApp(input) {
            created.push(input);
            return { apiKey: 'k', clientId: 'c', clientSecret: 's' };
          },
        },
      }),
    );
    for (const name of [false, 12, null, ['my app']]) {
      const response = await app.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers: admin,
        payload: { name, redirectUris: ['https://app.example/callback'] },
      });
      expect(response.statusCode, JSON.stringify(name)).toBe(400);
      expect(response.json()).toEqual({
        error: { code: 'invalid_request', message: expect.stringContaining('name') },
      });
    }
    expect(created).toEqual([]);
    // The same body with a string name is an app: the refusal was the type, nothing else.
    const ok = await app.inject({
      method: 'POST',
      url: '/admin/v1/apps',
      headers: admin,
      payload: { name: 'false', redirectUris: ['https://app.example/callback'] },
    });
    expect(ok.statusCode).toBe(201);
    expect(created).toHaveLength(1);
  });

  it('still reads numbers and booleans of the query string as the schema types them', async () => {
    const asked: unknown[] = [];
    const app = await edge(
      fakeBackends({
        reconciliation: {
          async listCases(query) {
            asked.push(query);
            return { cases: [], page: { offset: query.offset, limit: query.limit, total: 0 } };
          },
        },
      }),
    );
    const response = await app.inject({
      url: '/admin/v1/reconciliation/cases?openOnly=true&offset=5&limit=10',
      headers: admin,
    });
    expect(response.statusCode).toBe(200);
    expect(asked).toEqual([{ openOnly: true, offset: 5, limit: 10 }]);
  });
});

describe('numbers beyond what a field can hold', () => {
  it('answers an expectedVersion past 2^53 with 400 in the admin body, never a 500', async () => {
    const updates: unknown[] = [];
    const app = await edge(
      fakeBackends({
        deals: {
          async updateDeal(id, change) {
            updates.push({ id, change });
            throw new Error('not reached');
          },
        },
      }),
    );
    for (const expectedVersion of ['22514456546999336960', '9007199254740992', '1e400']) {
      const response = await app.inject({
        method: 'PUT',
        url: '/admin/v1/deals/deal-1',
        headers: { ...admin, 'content-type': 'application/json' },
        payload: `{"dealName":"n","dealDescription":"d","exclusivity":"EXCLUSIVE","expectedVersion":${expectedVersion}}`,
      });
      expect(response.statusCode, expectedVersion).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    expect(updates).toEqual([]);
  });

  it('answers prices and image sizes past what the catalog holds with 400, never a 500', async () => {
    const published: unknown[] = [];
    const app = await edge(
      fakeBackends({
        developerAccess: keyed(quota(false)),
        publishing: {
          async publishEvent(input) {
            published.push(input);
            throw new Error('not reached');
          },
        },
      }),
    );
    for (const change of [
      { priceRanges: { currency: 'USD', min: 0, max: 1e300 } },
      { images: [{ url: 'https://img.example/a.png', width: 4_294_967_296, height: 1 }] },
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/publish/events?apikey=key-1',
        payload: { source: { id: 'src-1', name: 'source' }, ...change },
      });
      expect(response.statusCode, JSON.stringify(change)).toBe(400);
      expect(response.json().errors[0].code).toBe('INVALID_PROPERTY');
    }
    expect(published).toEqual([]);
  });

  it('refuses a body with a prototype-poisoning key at any depth (400)', async () => {
    const app = await edge(fakeBackends({ developerAccess: keyed(quota(false)) }));
    for (const payload of [
      '{"source":{"id":"s","name":"n"},"extra":{"__proto__":{"admin":true}}}',
      '{"source":{"id":"s","name":"n"},"extra":[{"constructor":{"prototype":{}}}]}',
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/publish/events?apikey=key-1',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      // fastify's JSON parser refuses it as it refuses a body that is not JSON.
      expect(response.json().errors[0]).toMatchObject({ code: 'MALFORMED_REQUEST' });
    }
  });

  it('answers an offset past int32 with 400, not a failed call', async () => {
    const app = await edge(fakeBackends({}));
    const response = await app.inject({
      url: '/admin/v1/reconciliation/cases?offset=10000000000000000000',
      headers: admin,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  });
});

describe('405 for a method a known path does not have', () => {
  it('answers every other method, QUERY and TRACE too, with 405, Allow and the family body', async () => {
    const app = await edge(fakeBackends({}));
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST', 'QUERY', 'TRACE', 'OPTIONS'] as const) {
      const response = await app.inject({ method, url: '/discovery/v2/events/abc' });
      expect(response.statusCode, method).toBe(405);
      expect(response.headers.allow, method).toBe('GET, HEAD');
      expect(response.json().errors[0], method).toMatchObject({
        code: 'method_not_allowed',
        status: '405',
      });
    }
    const deals = await app.inject({ method: 'QUERY', url: '/dc/content/v1/deals/events' });
    expect(deals.statusCode).toBe(405);
    expect(deals.headers.allow).toBe('GET, HEAD');
    expect(deals.json()).toEqual({ message: expect.any(String), statusCode: 405 });
  });

  it('lists every method of the path, before any credential is asked for', async () => {
    const app = await edge(fakeBackends({}));
    const response = await app.inject({ method: 'PATCH', url: '/admin/v1/deals/deal-1' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, PUT, DELETE');
    expect(response.json()).toEqual({
      error: { code: 'method_not_allowed', message: expect.any(String) },
    });
  });

  it('counts a method only where its route accepts the path (a cart id has no dot)', async () => {
    const app = await edge(fakeBackends({}));
    // DELETE /shopping/carts/{cartId} would match "1.json" as a cart id its pattern refuses.
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/commerce/v2/shopping/carts/1.json',
    });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
  });

  it('keeps 404 for an unknown path', async () => {
    const app = await edge(fakeBackends({}));
    const response = await app.inject({ method: 'QUERY', url: '/admin/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
  });
});

describe('429 says when to retry', () => {
  it('answers an app over its quota with Retry-After in whole seconds, in each family', async () => {
    const app = await edge(fakeBackends({ developerAccess: keyed(quota(true, 2_500)) }));
    for (const url of [
      '/discovery/v2/events?apikey=key-1',
      '/dc/content/v1/deals/events?apikey=key-1',
      '/partners/v1/events/ABCDEFGHIJKLMNO/availability?apikey=key-1',
      '/top-picks/v1/events/id/ABCDEFGHIJKLMNO?apikey=key-1',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(429);
      expect(response.headers['retry-after'], url).toBe('3');
    }
  });

  it('says 1 second when the refusal named no wait, and for a back end at its limit', async () => {
    const app = await edge(
      fakeBackends({
        developerAccess: keyed(quota(true)),
        partners: {
          async listPartners() {
            throw Object.assign(new Error('too many calls'), { kind: 'resource_exhausted' });
          },
        },
      }),
    );
    const quotaRefusal = await app.inject({ url: '/discovery/v2/events?apikey=key-1' });
    expect(quotaRefusal.statusCode).toBe(429);
    expect(quotaRefusal.headers['retry-after']).toBe('1');
    const backend = await app.inject({ url: '/admin/v1/partners', headers: admin });
    expect(backend.statusCode).toBe(429);
    expect(backend.headers['retry-after']).toBe('1');
    expect(backend.json()).toEqual({
      error: { code: 'resource_exhausted', message: 'too many calls' },
    });
  });
});

describe('the OpenAPI document', () => {
  type Operation = {
    security?: Array<Record<string, unknown>>;
    parameters?: Array<{ in: string; name: string }>;
    responses: Record<
      string,
      {
        description: string;
        headers?: Record<string, Record<string, unknown>>;
        content?: Record<string, { schema: Record<string, unknown> }>;
      }
    >;
  };
  type Document = {
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, Record<string, unknown>>>;
  };
  /** What a `$ref` of the document points to (`#/components/<kind>/<name>`), or the object. */
  const resolved = (object: Record<string, unknown> | undefined) => {
    const ref = object?.$ref;
    if (typeof ref !== 'string') return object;
    const [, , kind, name] = ref.split('/');
    return document!.components[kind!]![name!];
  };
  let document: Document | undefined;
  const operation = async (path: string, method: string): Promise<Operation> => {
    document ??= (await buildOpenApiDocument()) as unknown as Document;
    const found = document!.paths[path]?.[method];
    expect(found, `${method} ${path}`).toBeDefined();
    // The family framework's answers are shared responses (`components/responses`): resolved.
    const responses = Object.fromEntries(
      Object.entries(found!.responses).map(([status, response]) => [
        status,
        resolved(response) as Operation['responses'][string],
      ]),
    );
    return { ...found!, responses };
  };
  const statuses = async (path: string, method: string) =>
    Object.keys((await operation(path, method)).responses);

  it('lists every status a sample of routes can answer', async () => {
    expect(await statuses('/admin/v1/apps', 'post')).toEqual(
      ['201', '400', '401', '413', '415', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/admin/v1/deals/{id}', 'put')).toEqual(
      ['200', '400', '401', '404', '409', '413', '414', '415', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/discovery/v2/events', 'get')).toEqual(
      ['200', '400', '401', '429', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/discovery/v2/venues/{id}', 'get')).toEqual(
      ['200', '400', '401', '404', '414', '429', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/mfxapi/v2/events/{id}', 'get')).toEqual(
      ['200', '400', '401', '404', '414', '429', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/dc/content/v1/deals/events', 'get')).toEqual(
      ['200', '204', '400', '401', '406', '429', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/admin/v1/reconciliation/events/{eventId}/runs', 'post')).toEqual(
      ['200', '400', '401', '404', '413', '414', '415', '431', '500', '503', '504'].sort(),
    );
    expect(await statuses('/gate/v1/scans', 'post')).toEqual(
      ['200', '400', '401', '413', '415', '429', '431', '500', '503', '504'].sort(),
    );
  });

  it("gives each error its family's body", async () => {
    const schemaOf = async (path: string, method: string, status: string) =>
      resolved(
        (await operation(path, method)).responses[status]!.content!['application/json']!.schema,
      );
    expect(await schemaOf('/dc/content/v1/deals/events', 'get', '406')).toMatchObject({
      properties: { message: { type: 'string' }, statusCode: { type: 'integer' } },
    });
    expect(await schemaOf('/discovery/v2/events', 'get', '401')).toMatchObject({
      properties: { fault: { type: 'object' } },
    });
    expect(await schemaOf('/discovery/v2/events', 'get', '503')).toMatchObject({
      properties: { errors: { type: 'array' } },
    });
    expect(await schemaOf('/admin/v1/apps', 'post', '415')).toMatchObject({
      properties: { error: { properties: { code: {}, message: {} } } },
    });
  });

  it('says that 429 and 503 carry Retry-After', async () => {
    for (const [path, method] of [
      ['/discovery/v2/events', 'get'],
      ['/partners/v1/events/{event_id}/cart', 'post'],
      ['/admin/v1/partners', 'get'],
    ] as const) {
      const { responses } = await operation(path, method);
      for (const status of ['429', '503']) {
        if (!responses[status]) continue;
        expect(
          resolved(responses[status]!.headers?.['Retry-After']),
          `${method} ${path} ${status}`,
        ).toEqual(expect.objectContaining({ required: true }));
      }
      expect(responses['503'], `${method} ${path}`).toBeDefined();
    }
  });

  it('names how each route is guarded, and no credential as a parameter', async () => {
    expect((await operation('/discovery/v2/events', 'get')).security).toEqual([{ apiKey: [] }]);
    expect((await operation('/partners/v1/tracking', 'get')).security).toEqual([
      { trackingId: [] },
    ]);
    expect((await operation('/partners/v1/events/{event_id}/cart', 'post')).security).toEqual([
      { apiKey: [] },
      { apiKeyHeader: [] },
    ]);
    expect((await operation('/admin/v1/gates', 'get')).security).toEqual([{ adminToken: [] }]);
    expect((await operation('/gate/v1/scans', 'post')).security).toEqual([{ gateToken: [] }]);
    const { parameters = [] } = await operation('/discovery/v2/events', 'get');
    expect(parameters.map((p) => p.name)).not.toContain('apikey');
  });

  it('leaves the proxied OAuth pages out', async () => {
    document ??= (await buildOpenApiDocument()) as unknown as Document;
    expect(Object.keys(document!.paths).filter((path) => path.startsWith('/oauth'))).toEqual([]);
  });
});
