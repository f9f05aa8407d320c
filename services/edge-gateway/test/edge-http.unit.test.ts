import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { deals, discovery, partnerCart } from '../src/ports/http/families/catalog.js';
import { registerFamily } from '../src/ports/http/families/register-family.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const adminToken = 'test-admin-token-0123456789';
const apps: Array<{ name: string; redirectUris: string[] }> = [];

const backends = fakeBackends({
  developerAccess: {
    async createApp(input) {
      apps.push(input);
      return { apiKey: 'key-1', clientId: 'client-1', clientSecret: 'secret-1' };
    },
    async createFan(input) {
      if (input.email === 'taken@example.com') {
        throw Object.assign(new Error('a fan with this e-mail exists'), { kind: 'already_exists' });
      }
      return { id: 'fan-1' };
    },
  },
});

let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
  apps.length = 0;
});

async function edge(): Promise<FastifyInstance> {
  sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, { adminToken, version: 'test', backends });
  await sut.ready();
  return sut;
}

describe('API family error bodies', () => {
  it('answers an unknown discovery path with the discovery 404 body', async () => {
    const app = await edge();
    const response = await app.inject({ url: '/discovery/v2/nothing.json' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      errors: [
        {
          code: 'DIS1004',
          detail: expect.stringContaining('/discovery/v2/nothing.json'),
          status: '404',
          _links: { about: { href: '/discovery/v2/errors.html#DIS1004' } },
        },
      ],
    });
  });

  it('answers an unknown deals path (production and QA prefix) with {message, statusCode}', async () => {
    const app = await edge();
    for (const prefix of ['/dc/content/v1', '/dc/content-qa/v1']) {
      const response = await app.inject({ url: `${prefix}/unknown` });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ message: expect.any(String), statusCode: 404 });
    }
  });

  it('answers partner paths with the partner error object', async () => {
    const app = await edge();
    const response = await app.inject({ url: '/partners/v1/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: { message: expect.any(String), code: 'not_found', http_code: 404, severity: 'WARN' },
    });
  });

  it('gives 405 with Allow for a known path asked with another method, 406 for bad deals parameters', async () => {
    sut = createHttpServer({ logger });
    await registerFamily(sut, deals, (scope) => {
      scope.get(
        '/deals/events',
        {
          schema: {
            querystring: {
              type: 'object',
              properties: { rows: { type: 'integer', maximum: 500 } },
            },
          },
        },
        async () => ({ hits: 0 }),
      );
    });
    await sut.ready();
    const wrongMethod = await sut.inject({ method: 'DELETE', url: '/dc/content/v1/deals/events' });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toContain('GET');
    expect(wrongMethod.json()).toEqual({
      message: expect.stringContaining('DELETE'),
      statusCode: 405,
    });
    const tooMany = await sut.inject({ url: '/dc/content/v1/deals/events?rows=501' });
    expect(tooMany.statusCode).toBe(406);
    expect(tooMany.json()).toEqual({ message: expect.stringContaining('500'), statusCode: 406 });
    expect((await sut.inject({ url: '/dc/content-qa/v1/deals/events?rows=5' })).json()).toEqual({
      hits: 0,
    });
  });

  it('maps a backend error kind to its status and hides internal errors', async () => {
    sut = createHttpServer({ logger });
    await registerFamily(sut, discovery, (scope) => {
      scope.get('/gone', async () => {
        throw Object.assign(new Error('event 42 not found'), { kind: 'not_found' });
      });
      scope.get('/boom', async () => {
        throw new Error('connection string mongodb://user:pw@db leaked?');
      });
    });
    await sut.ready();
    const gone = await sut.inject({ url: '/discovery/v2/gone' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errors[0].detail).toBe('event 42 not found');
    const boom = await sut.inject({ url: '/discovery/v2/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain('mongodb://');
    expect(boom.json().errors[0]).toMatchObject({ code: 'internal', status: '500' });
  });

  it('uses the family 401 body for a missing key', () => {
    expect(discovery.errorBody(discovery.unauthorized)).toEqual({
      fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } },
    });
    expect(partnerCart.errorBody(partnerCart.unauthorized)).toMatchObject({
      error: { http_code: 401 },
    });
  });
});

describe('admin API', () => {
  const post = (app: FastifyInstance, url: string, body: unknown, token?: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: body as object,
    });

  it('refuses a missing or wrong token with 401 and WWW-Authenticate, before reading the body', async () => {
    const app = await edge();
    for (const token of [undefined, 'wrong-token', `${adminToken}x`]) {
      const response = await post(
        app,
        '/admin/v1/apps',
        { name: 'x', redirectUris: ['https://a.example/cb'] },
        token,
      );
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.json()).toEqual({
        error: { code: 'unauthenticated', message: expect.any(String) },
      });
    }
    expect(apps).toHaveLength(0);
  });

  it('creates an app with the token and returns the credentials with 201', async () => {
    const app = await edge();
    const response = await post(
      app,
      '/admin/v1/apps',
      { name: 'My app', redirectUris: ['https://a.example/cb'] },
      adminToken,
    );
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      apiKey: 'key-1',
      clientId: 'client-1',
      clientSecret: 'secret-1',
    });
    expect(apps).toEqual([{ name: 'My app', redirectUris: ['https://a.example/cb'] }]);
  });

  it('rejects invalid bodies with 400 in the admin body, and maps already_exists to 409', async () => {
    const app = await edge();
    const badUri = await post(
      app,
      '/admin/v1/apps',
      { name: 'x', redirectUris: ['not a uri'] },
      adminToken,
    );
    expect(badUri.statusCode).toBe(400);
    expect(badUri.json()).toMatchObject({ error: { code: 'invalid_request' } });
    const extra = await post(
      app,
      '/admin/v1/fans',
      { email: 'a@example.com', password: 'longenough', x: 1 },
      adminToken,
    );
    expect(extra.statusCode).toBe(400);
    const taken = await post(
      app,
      '/admin/v1/fans',
      { email: 'taken@example.com', password: 'longenough' },
      adminToken,
    );
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({
      error: { code: 'already_exists', message: 'a fan with this e-mail exists' },
    });
  });

  it('documents every admin route in the generated OpenAPI document', async () => {
    const app = await edge();
    const document = (await app.inject({ url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/admin/v1/apps', '/admin/v1/fans']),
    );
    expect(document.paths['/admin/v1/apps'].post.responses).toHaveProperty('201');
    expect((await app.inject({ url: '/docs' })).statusCode).toBeLessThan(400);
  });
});
