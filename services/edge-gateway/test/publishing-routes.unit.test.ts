import { AppError } from '@marquee/platform/errors';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Publishing } from '../src/app/publishing.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });

type Call = { method: string; input: unknown };

/** The edge with a fake auth-gateway (key `key-1` → `app-1`) and the given publisher. */
async function edge(publishing: Partial<Publishing>, calls: Call[] = []) {
  const recording = Object.fromEntries(
    Object.entries(publishing).map(([method, fn]) => [
      method,
      async (input: unknown) => {
        calls.push({ method, input });
        return (fn as (i: unknown) => unknown)(input);
      },
    ]),
  );
  const sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends: fakeBackends({
      developerAccess: {
        async validateApiKey(key) {
          return key === 'key-1' ? { valid: true, appId: 'app-1' } : { valid: false, appId: '' };
        },
        async checkRateLimit() {
          return { limit: 5000, available: 4999, resetEpochMs: 0, over: false };
        },
      },
      publishing: recording,
    }),
  });
  await sut.ready();
  opened.push(sut);
  return sut;
}

const opened: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

const event = { source: { id: 'acme', name: 'Acme' }, venue: { id: 'KovZpZAEdFtJ' }, version: 1 };
const accepted = {
  status: 'Success' as const,
  message: '',
  id: 'Z7r9jZ1A7aFqK0v',
  missingProperties: {},
  unknownProperties: {},
};

const publishingError = (items: Array<Record<string, unknown>>) => ({
  errors: items.map((item) => ({ invalidProperties: {}, missingProperties: {}, ...item })),
});

/** The publishing body of a 400 naming these invalid properties. */
const invalidProperties = (properties: Record<string, unknown>) =>
  publishingError([
    {
      status: 'Rejected',
      code: 'INVALID_PROPERTY',
      detail: expect.any(String),
      invalidProperties: properties,
    },
  ]);

/** The edge's OpenAPI document, as far as these tests read it. */
const openApiDoc = async () =>
  (await (await edge({})).inject({ url: '/openapi.json' })).json() as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string }[];
          security?: Record<string, unknown>[];
          responses: Record<string, { description?: string }>;
        }
      >
    >;
  };

/** An edge whose publisher accepts every event (its calls in `calls`). */
const accepting = (calls?: Call[]) => edge({ publishEvent: async () => accepted }, calls);
/** An edge whose publisher lists no events (its calls in `calls`). */
const listingNone = (calls?: Call[]) =>
  edge({ listEvents: async () => ({ events: [], nextCursor: '' }) }, calls);

describe('POST /publish/{version}/events', () => {
  it('publishes for the app of the key and answers the generated id', async () => {
    const calls: Call[] = [];
    const sut = await accepting(calls);

    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: event,
    });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'Success',
      id: 'Z7r9jZ1A7aFqK0v',
      missingProperties: {},
      unknownProperties: {},
    });
    expect(calls).toEqual([{ method: 'publishEvent', input: { appId: 'app-1', event } }]);
  });

  it('serves the default version without the path segment', async () => {
    const sut = await accepting();
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/events?apikey=key-1',
      payload: event,
    });
    expect(response.statusCode).toBe(200);
  });

  it('passes SuccessWarning through with the message and the property objects', async () => {
    const sut = await edge({
      publishEvent: async () => ({
        status: 'SuccessWarning',
        message: 'Published with warnings: promo',
        id: 'Z7r9jZ1A7aFqK0v',
        missingProperties: { venue: 'a venue (or a place) is preferred' },
        unknownProperties: { promo: { code: 'X', nested: [1, 2] } },
      }),
    });
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: { source: { id: 'acme', name: 'Acme' }, promo: { code: 'X', nested: [1, 2] } },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'SuccessWarning',
      message: 'Published with warnings: promo',
      id: 'Z7r9jZ1A7aFqK0v',
      missingProperties: { venue: 'a venue (or a place) is preferred' },
      unknownProperties: { promo: { code: 'X', nested: [1, 2] } },
    });
  });

  it.each([
    ['without apikey', '/publish/v2/events'],
    ['with an unknown apikey', '/publish/v2/events?apikey=nope'],
  ])('answers 401 in the publishing body %s, before looking at the body', async (_label, url) => {
    const calls: Call[] = [];
    const sut = await accepting(calls);
    const response = await sut.inject({
      method: 'POST',
      url,
      payload: { active: 'not a boolean' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(
      publishingError([{ status: 'Error', code: 'UNAUTHORIZED', detail: expect.any(String) }]),
    );
    expect(calls).toEqual([]);
  });

  it('answers malformed JSON with 400 in the publishing body, never 500', async () => {
    const sut = await accepting();
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      headers: { 'content-type': 'application/json' },
      payload: '{"source": {"id": "acme",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      publishingError([
        { status: 'Rejected', code: 'MALFORMED_REQUEST', detail: expect.any(String) },
      ]),
    );
  });

  it('rejects a body that is not sent as JSON with 400 in the publishing body', async () => {
    const calls: Call[] = [];
    const sut = await accepting(calls);
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify(event),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0]).toMatchObject({
      status: 'Rejected',
      invalidProperties: { '(body)': expect.any(String) },
    });
    expect(calls).toEqual([]);
  });

  it.each([
    ['a JSON array', []],
    ['a JSON string', 'event'],
  ])('rejects %s as the body', async (_label, payload) => {
    const calls: Call[] = [];
    const sut = await accepting(calls);
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0]).toMatchObject({
      status: 'Rejected',
      code: 'INVALID_PROPERTY',
    });
    expect(calls).toEqual([]);
  });

  it('rejects wrong types without coercing them, naming each property', async () => {
    const calls: Call[] = [];
    const sut = await accepting(calls);
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: {
        ...event,
        version: '3',
        active: 'true',
        names: { 'en-US': 'Gala', 'fr-fr': 7 },
        images: [{ width: 'wide' }],
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      invalidProperties({
        version: expect.any(String),
        active: expect.any(String),
        'names.en-US': expect.stringContaining('xx-yy'),
        'names.fr-fr': expect.any(String),
        'images[0].width': expect.any(String),
      }),
    );
    expect(calls).toEqual([]);
  });

  it("renders publisher's rejection items as the 400 body", async () => {
    const items = [
      {
        status: 'Rejected',
        code: 'ID_NOT_ALLOWED',
        detail: 'The event id is generated by the service and must not be provided',
        invalidProperties: { id: 'must not be provided' },
        missingProperties: {},
      },
      {
        status: 'Rejected',
        code: 'INVALID_SOURCE',
        detail: 'source needs id and name',
        invalidProperties: {},
        missingProperties: { 'source.name': 'is required' },
      },
    ];
    const sut = await edge({
      publishEvent: async () => {
        throw new AppError('invalid_argument', 'rejected', { details: { errors: items } });
      },
    });
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: { ...event, id: 'mine', source: { id: 'acme' } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ errors: items });
  });

  it('answers an unknown version with 404 in the publishing body', async () => {
    const sut = await accepting();
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v9/events?apikey=key-1',
      payload: event,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().errors[0]).toMatchObject({ code: 'UNSUPPORTED_VERSION' });
  });

  it('answers 503 in the publishing body when publisher is down, without internals', async () => {
    const sut = await edge({
      publishEvent: async () => {
        throw new AppError('unavailable', 'connect ECONNREFUSED 127.0.0.1:50052');
      },
    });
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: event,
    });
    expect(response.statusCode).toBe(503);
    expect(response.json().errors[0]).toMatchObject({ status: 'Error' });
  });

  it('answers an unexpected failure with 500 and no stack', async () => {
    const sut = await edge({
      publishEvent: async () => {
        throw new Error('boom at /work/secret/file.ts:12');
      },
    });
    const response = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      payload: event,
    });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret');
    expect(response.json().errors[0]).toMatchObject({ status: 'Error' });
  });
});

describe('POST /publish/{version}/events with an Idempotency-Key', () => {
  const post = (sut: FastifyInstance, headers: Record<string, string>) =>
    sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=key-1',
      headers,
      payload: event,
    });

  it('passes the key to publisher with the app of the apikey', async () => {
    const calls: Call[] = [];
    const sut = await accepting(calls);

    const response = await post(sut, { 'idempotency-key': 'b3c1f0e2-7d4a-4c1e-9a52-1f0c2d3e4f50' });

    expect(response.statusCode).toBe(200);
    expect(calls).toEqual([
      {
        method: 'publishEvent',
        input: { appId: 'app-1', event, idempotencyKey: 'b3c1f0e2-7d4a-4c1e-9a52-1f0c2d3e4f50' },
      },
    ]);
  });

  it('answers a key reused with another body with 422 in the publishing body', async () => {
    const sut = await edge({
      publishEvent: async () => {
        throw new AppError(
          'failed_precondition',
          'this Idempotency-Key was used with a different request',
          { details: { reason: 'idempotency-key-reused' } },
        );
      },
    });

    const response = await post(sut, { 'idempotency-key': 'key-a' });

    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual(
      publishingError([
        { status: 'Rejected', code: 'IDEMPOTENCY_KEY_REUSED', detail: expect.any(String) },
      ]),
    );
  });

  it('answers a key whose first request still runs with 409 in the publishing body', async () => {
    const sut = await edge({
      publishEvent: async () => {
        throw new AppError('aborted', 'a request with this Idempotency-Key is still running', {
          details: { reason: 'idempotency-key-in-progress' },
        });
      },
    });

    const response = await post(sut, { 'idempotency-key': 'key-b' });

    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual(
      publishingError([
        { status: 'Error', code: 'IDEMPOTENCY_KEY_IN_PROGRESS', detail: expect.any(String) },
      ]),
    );
  });

  it.each([
    ['over 255 characters', 'k'.repeat(256)],
    ['with a control character', 'key\tone'],
  ])('rejects a key %s with 400 before calling publisher', async (_label, key) => {
    const calls: Call[] = [];
    const sut = await accepting(calls);

    const response = await post(sut, { 'idempotency-key': key });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(invalidProperties({ 'idempotency-key': expect.any(String) }));
    expect(calls).toEqual([]);
  });

  it('is documented in the OpenAPI document with its 409 and 422', async () => {
    const doc = await openApiDoc();
    for (const path of ['/publish/{version}/events', '/publish/events']) {
      const operation = doc.paths[path]!.post!;
      expect(operation.parameters).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'idempotency-key' }),
      );
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
    }
  });
});

describe('GET /publish/{version}/events', () => {
  const listed = {
    id: 'Z7r9jZ1A7aFqK0v',
    event: { ...event, promo: { code: 'X' } },
    createdAt: new Date('2026-03-01T10:00:00.000Z'),
    updatedAt: new Date('2026-03-02T11:00:00.000Z'),
  };

  it("lists the key's app's events with the paging it was asked for", async () => {
    const calls: Call[] = [];
    const sut = await edge(
      {
        listEvents: async () => ({ events: [listed], nextCursor: 'WzE3NzIzNTgwMDAwMDAsIlo3ciJd' }),
      },
      calls,
    );

    const response = await sut.inject({
      method: 'GET',
      url: '/publish/v2/events?apikey=key-1&size=1&cursor=WzE3NzIzNTgwMDAwMDAsIkFiYyJd',
    });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      events: [
        {
          id: 'Z7r9jZ1A7aFqK0v',
          createdAt: '2026-03-01T10:00:00.000Z',
          updatedAt: '2026-03-02T11:00:00.000Z',
          event: { ...event, promo: { code: 'X' } },
        },
      ],
      nextCursor: 'WzE3NzIzNTgwMDAwMDAsIlo3ciJd',
    });
    expect(calls).toEqual([
      {
        method: 'listEvents',
        input: { appId: 'app-1', size: 1, cursor: 'WzE3NzIzNTgwMDAwMDAsIkFiYyJd' },
      },
    ]);
  });

  it('leaves size and cursor to publisher when absent and ends without nextCursor', async () => {
    const calls: Call[] = [];
    const sut = await listingNone(calls);

    const response = await sut.inject({ method: 'GET', url: '/publish/events?apikey=key-1' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ events: [] });
    expect(calls).toEqual([{ method: 'listEvents', input: { appId: 'app-1' } }]);
  });

  it.each(['0', '101', 'ten', '1.5', '-3', ''])(
    'answers size=%s with 400 INVALID_PROPERTY before calling publisher',
    async (size) => {
      const calls: Call[] = [];
      const sut = await listingNone(calls);

      const response = await sut.inject({
        method: 'GET',
        url: `/publish/v2/events?apikey=key-1&size=${size}`,
      });

      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(invalidProperties({ size: expect.any(String) }));
      expect(calls).toEqual([]);
    },
  );

  it("renders publisher's INVALID_CURSOR as the 400 body", async () => {
    const item = {
      status: 'Rejected',
      code: 'INVALID_CURSOR',
      detail: 'Invalid cursor: is not a cursor this API answered',
      invalidProperties: { cursor: 'is not a cursor this API answered' },
      missingProperties: {},
    };
    const sut = await edge({
      listEvents: async () => {
        throw new AppError('invalid_argument', item.detail, { details: { errors: [item] } });
      },
    });

    const response = await sut.inject({
      method: 'GET',
      url: '/publish/v2/events?apikey=key-1&cursor=bogus',
    });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ errors: [item] });
  });

  it('answers 401 without apikey and 404 for an unknown version, in the publishing body', async () => {
    const calls: Call[] = [];
    const sut = await listingNone(calls);

    const noKey = await sut.inject({ method: 'GET', url: '/publish/v2/events' });
    const version = await sut.inject({ method: 'GET', url: '/publish/v9/events?apikey=key-1' });

    expect(noKey.statusCode).toBe(401);
    expect(noKey.json()).toMatchObject({ errors: [{ code: 'UNAUTHORIZED' }] });
    expect(version.statusCode).toBe(404);
    expect(version.json()).toMatchObject({ errors: [{ code: 'UNSUPPORTED_VERSION' }] });
    expect(calls).toEqual([]);
  });

  it('is documented in the OpenAPI document with its paging and its 400', async () => {
    const doc = await openApiDoc();
    for (const path of ['/publish/{version}/events', '/publish/events']) {
      const operation = doc.paths[path]!.get!;
      expect(operation.parameters?.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
        expect.arrayContaining(['size', 'cursor']),
      );
      // The key is the apikey security scheme, not a parameter of its own.
      expect(operation.security).toEqual([{ apiKey: [] }]);
      expect(Object.keys(operation.responses).sort()).toEqual(
        [
          '200',
          '400',
          '401',
          '404',
          '429',
          '431',
          '500',
          '503',
          '504',
          ...(path.includes('{version}') ? ['414'] : []),
        ].sort(),
      );
      expect(operation.responses['400']!.description).toContain('INVALID_CURSOR');
    }
  });
});

describe('PUT /publish/{version}/events/{id}', () => {
  it('replaces the event of the app and answers the publication result', async () => {
    const calls: Call[] = [];
    const sut = await edge({ updateEvent: async () => accepted }, calls);
    const response = await sut.inject({
      method: 'PUT',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1',
      payload: { ...event, version: 2 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'Success', id: 'Z7r9jZ1A7aFqK0v' });
    expect(calls).toEqual([
      {
        method: 'updateEvent',
        input: { appId: 'app-1', id: 'Z7r9jZ1A7aFqK0v', event: { ...event, version: 2 } },
      },
    ]);
  });

  it('answers a stale version with 409 and the STALE_VERSION item', async () => {
    const items = [
      {
        status: 'Rejected',
        code: 'STALE_VERSION',
        detail: 'Version 1 is stale',
        invalidProperties: { version: 'must be greater than 1' },
        missingProperties: {},
      },
    ];
    const sut = await edge({
      updateEvent: async () => {
        throw new AppError('aborted', 'stale', { details: { errors: items } });
      },
    });
    const response = await sut.inject({
      method: 'PUT',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1',
      payload: event,
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ errors: items });
  });

  it('answers 404 for an event of another app', async () => {
    const items = [
      {
        status: 'Error',
        code: 'EVENT_NOT_FOUND',
        detail: 'No event',
        invalidProperties: {},
        missingProperties: {},
      },
    ];
    const sut = await edge({
      updateEvent: async () => {
        throw new AppError('not_found', 'No event', { details: { errors: items } });
      },
    });
    const response = await sut.inject({
      method: 'PUT',
      url: '/publish/events/Z7r9jZ1A7aFqK0v?apikey=key-1',
      payload: { ...event, version: 2 },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ errors: items });
  });
});

describe('DELETE /publish/{version}/events/{id}', () => {
  it('deletes with the publisher version from the query and answers 204', async () => {
    const calls: Call[] = [];
    const sut = await edge({ deleteEvent: async () => undefined }, calls);
    const response = await sut.inject({
      method: 'DELETE',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1&version=4',
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(calls).toEqual([
      {
        method: 'deleteEvent',
        input: { appId: 'app-1', id: 'Z7r9jZ1A7aFqK0v', publisherVersion: 4 },
      },
    ]);
  });

  it('needs the apikey for updates and deletions too', async () => {
    const calls: Call[] = [];
    const sut = await edge(
      { updateEvent: async () => accepted, deleteEvent: async () => undefined },
      calls,
    );
    const put = await sut.inject({
      method: 'PUT',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v',
      payload: event,
    });
    const del = await sut.inject({
      method: 'DELETE',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=nope',
    });
    expect([put.statusCode, del.statusCode]).toEqual([401, 401]);
    expect(calls).toEqual([]);
  });

  it('rejects a version that is not a number', async () => {
    const calls: Call[] = [];
    const sut = await edge({ deleteEvent: async () => undefined }, calls);
    const response = await sut.inject({
      method: 'DELETE',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1&version=latest',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].invalidProperties).toEqual({ version: expect.any(String) });
    expect(calls).toEqual([]);
  });

  it('answers 405 in the publishing body for a method the path does not have', async () => {
    const sut = await edge({});
    const response = await sut.inject({
      method: 'PATCH',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1',
      payload: {},
    });
    expect(response.statusCode).toBe(405);
    expect(response.json().errors[0]).toMatchObject({ code: 'method_not_allowed' });
  });
});

describe('GET /publish/{version}/events/{id}', () => {
  it('answers the body the app published, with its id', async () => {
    const calls: Call[] = [];
    const stored = { ...event, promo: { 'a.b': [1] } };
    const sut = await edge({ getEvent: async () => stored }, calls);
    const response = await sut.inject({
      method: 'GET',
      url: '/publish/v2/events/Z7r9jZ1A7aFqK0v?apikey=key-1',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: 'Z7r9jZ1A7aFqK0v', ...stored });
    expect(calls).toEqual([
      { method: 'getEvent', input: { appId: 'app-1', id: 'Z7r9jZ1A7aFqK0v' } },
    ]);
  });
});

describe('the publishing family without a route', () => {
  it('answers an unknown path with 404 in the publishing body, even without apikey', async () => {
    const sut = await edge({});
    const response = await sut.inject({ method: 'POST', url: '/publish/v2/venues' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual(
      publishingError([{ status: 'Error', code: 'not_found', detail: expect.any(String) }]),
    );
  });
});
