import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/index.js';
import {
  createHttpServer,
  listenHttp,
  setFrameworkErrorHandler,
  type CreateHttpServerOptions,
} from '../../src/http/index.js';
import { createLogger, currentCorrelationId } from '../../src/logger/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
import { logLines } from '../support/log-lines.js';

function testLogger() {
  const { stream, lines } = logLines();
  return { logger: createLogger({ service: 'test', destination: stream }), lines };
}

let sut: ReturnType<typeof createHttpServer> | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

function build(options: Partial<CreateHttpServerOptions> = {}) {
  const { logger, lines } = testLogger();
  sut = createHttpServer({ logger, ...options });
  return { app: sut, lines };
}

describe('probes', () => {
  it('GET /healthz answers ok without asking the dependencies', async () => {
    let asked = false;
    const { app } = build({ readiness: () => ((asked = true), { mongo: false }) });

    const response = await app.inject({ method: 'GET', url: '/healthz' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(asked).toBe(false);
  });

  it('GET /readyz is 200 when every dependency is ready', async () => {
    const { app } = build({ readiness: async () => ({ kafka: true, mongo: true }) });

    const response = await app.inject({ method: 'GET', url: '/readyz' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { kafka: true, mongo: true } });
  });

  it('GET /readyz is 503 and names the dependency that is not', async () => {
    const { app } = build({ readiness: () => ({ kafka: true, mongo: false }) });

    const response = await app.inject({ method: 'GET', url: '/readyz' });

    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'not_ready', checks: { kafka: true, mongo: false } });
  });

  it('GET /readyz is 503 when the check throws or hangs', async () => {
    const failing = build({ readiness: () => Promise.reject(new Error('boom')) }).app;
    expect((await failing.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await failing.close();

    const { app } = build({
      readiness: () => new Promise(() => undefined),
      readinessTimeoutMs: 50,
    });
    await app.ready(); // plugin loading is not what the clock below measures
    const started = Date.now();
    const response = await app.inject({ method: 'GET', url: '/readyz' });

    expect(response.statusCode).toBe(503);
    // Answered at the readiness timeout instead of hanging with the check (loose: loaded machines).
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('X-Correlation-Id', () => {
  function withEcho() {
    const built = build();
    built.app.post('/echo', async (request) => {
      // After body parsing: the context must survive the socket events that delivered the body.
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { seen: currentCorrelationId(), body: request.body };
    });
    return built;
  }

  it('is echoed and active in the handler when valid', async () => {
    const { app } = withEcho();

    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'x-correlation-id': 'partner-req-42' },
      payload: { a: 1 },
    });

    expect(response.headers['x-correlation-id']).toBe('partner-req-42');
    expect(response.json()).toEqual({ seen: 'partner-req-42', body: { a: 1 } });
  });

  it('is generated when absent', async () => {
    const { app } = withEcho();

    const response = await app.inject({ method: 'POST', url: '/echo', payload: {} });

    const id = response.headers['x-correlation-id'];
    expect(id).toMatch(UUID);
    expect(response.json()).toMatchObject({ seen: id });
  });

  it.each([
    ['longer than 128 characters', 'x'.repeat(129)],
    ['with non-printable characters', 'abc\u0007def'],
  ])('is replaced when %s', async (_label, value) => {
    const { app } = withEcho();

    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'x-correlation-id': value },
      payload: {},
    });

    expect(response.headers['x-correlation-id']).toMatch(UUID);
  });

  it('is echoed on errors and on unknown routes too', async () => {
    const { app } = build();
    app.get('/fail', async () => {
      throw new Error('boom');
    });

    const failed = await app.inject({
      method: 'GET',
      url: '/fail',
      headers: { 'x-correlation-id': 'c-1' },
    });
    const missing = await app.inject({
      method: 'GET',
      url: '/nope',
      headers: { 'x-correlation-id': 'c-2' },
    });

    expect(failed.headers['x-correlation-id']).toBe('c-1');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-correlation-id']).toBe('c-2');
  });
});

describe('default error handler', () => {
  it('answers 500 with a generic message and no stack, and logs the error in full', async () => {
    const { app, lines } = build();
    app.get('/fail', async () => {
      throw new Error('connection string mongodb://admin:hunter2@db leaked');
    });

    const response = await app.inject({
      method: 'GET',
      url: '/fail',
      headers: { 'x-correlation-id': 'c-9' },
    });

    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      error: { kind: 'internal', message: 'internal error', correlationId: 'c-9' },
    });
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('at ');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        err: expect.objectContaining({ stack: expect.stringContaining('hunter2') }),
      }),
    );
  });

  it('maps an application error to its status with its message', async () => {
    const { app } = build();
    app.get('/event', async () => {
      throw new AppError('not_found', 'event e-1 not found');
    });

    const response = await app.inject({ method: 'GET', url: '/event' });

    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      error: { kind: 'not_found', message: 'event e-1 not found' },
    });
  });

  it('hides the message of an application error that is a server fault', async () => {
    const { app } = build();
    app.get('/down', async () => {
      throw new AppError('unavailable', 'partner p-1 at 10.0.0.7 refused');
    });

    const response = await app.inject({ method: 'GET', url: '/down' });

    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({
      error: { kind: 'unavailable', message: 'service unavailable' },
    });
  });

  it('answers schema validation failures with 400 invalid_argument', async () => {
    const { app } = build();
    app.post(
      '/things',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
      async () => ({ ok: true }),
    );

    const response = await app.inject({ method: 'POST', url: '/things', payload: {} });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { kind: 'invalid_argument' } });
  });

  it('keeps fastify client errors (malformed JSON, body too large) as 4xx', async () => {
    const { app } = build({ bodyLimit: 16 });
    app.post('/things', async () => ({ ok: true }));

    const malformed = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    const tooLarge = await app.inject({
      method: 'POST',
      url: '/things',
      payload: { name: 'x'.repeat(100) },
    });

    expect(malformed.statusCode).toBe(400);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toMatchObject({ error: { kind: 'resource_exhausted' } });
  });
});

describe('router errors (before any route or scope is chosen)', () => {
  const long = 'c'.repeat(200);

  it('answers a path segment over the router limit with 414 in the server default body', async () => {
    const { app } = build();
    app.get('/carts/:id', async () => ({ ok: true }));

    const response = await app.inject({
      method: 'GET',
      url: `/carts/${long}`,
      headers: { 'x-correlation-id': 'too-long-1' },
    });

    expect(response.statusCode).toBe(414);
    expect(response.headers['x-correlation-id']).toBe('too-long-1');
    expect(response.json()).toEqual({
      error: {
        kind: 'invalid_argument',
        message: 'A path segment is longer than 100 characters',
        correlationId: 'too-long-1',
      },
    });
    expect(response.body).not.toContain(long);
    expect(response.body).not.toContain('FST_');
  });

  it('lets the scope of a prefix answer them in its own body; other paths keep the default', async () => {
    const { app } = build();
    await app.register(
      async (scope) => {
        setFrameworkErrorHandler(scope, (error, _request, reply) =>
          reply.status(error.statusCode).send({ family: 'shop', status: error.statusCode }),
        );
        scope.get('/carts/:id', async () => ({ ok: true }));
      },
      { prefix: '/shop/v1' },
    );
    await app.register(
      async (scope) => {
        scope.get('/carts/:id', async () => ({ ok: true }));
      },
      { prefix: '/shop/v10' },
    );

    const own = await app.inject({ method: 'GET', url: `/shop/v1/carts/${long}?x=1` });
    const bad = await app.inject({ method: 'GET', url: '/shop/v1/carts/%E0%A4%A' });
    const other = await app.inject({ method: 'GET', url: `/shop/v10/carts/${long}` });

    expect(own.statusCode).toBe(414);
    expect(own.json()).toEqual({ family: 'shop', status: 414 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ family: 'shop', status: 400 });
    expect(other.statusCode).toBe(414);
    expect(other.json().error.kind).toBe('invalid_argument');
  });
});

describe('request logging', () => {
  it('masks credentials in the logged URL', async () => {
    const { app, lines } = build();
    app.get('/discovery/v2/events', async () => ({ events: [] }));

    await app.inject({
      method: 'GET',
      url: '/discovery/v2/events?size=1&apikey=s3cr3t-key&page=0',
    });

    const logged = JSON.stringify(lines);
    expect(logged).toContain('apikey=[REDACTED]');
    expect(logged).toContain('size=1');
    expect(logged).not.toContain('s3cr3t-key');
  });
});

describe('request logging of credentials in the path', () => {
  it('masks the access token of /oauth/info/<access_token>', async () => {
    const { app, lines } = build();
    app.get('/oauth/info/:token', async () => ({}));
    await app.inject({ method: 'GET', url: '/oauth/info/t0ken-secret-value' });
    const logged = JSON.stringify(lines);
    expect(logged).toContain('/oauth/info/[REDACTED]');
    expect(logged).not.toContain('t0ken-secret-value');
  });
});

describe('listenHttp', () => {
  it('binds 127.0.0.1 on an ephemeral port and serves with timeouts set', async () => {
    const { app } = build({ requestTimeoutMs: 20_000, keepAliveTimeoutMs: 61_000 });

    const port = await listenHttp(app, { host: '127.0.0.1', port: 0 });
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);

    expect(port).toBeGreaterThan(0);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-correlation-id')).toMatch(UUID);
    expect(app.server.requestTimeout).toBe(20_000);
    expect(app.server.keepAliveTimeout).toBe(61_000);
    expect(app.server.headersTimeout).toBeLessThanOrEqual(20_000);
  });

  it('keeps the correlation id across a body streamed over a real socket', async () => {
    const { app } = build();
    app.post('/echo', async () => ({ seen: currentCorrelationId() }));
    const port = await listenHttp(app, { host: '127.0.0.1', port: 0 });

    const response = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'over-the-wire' },
      body: JSON.stringify({ payload: 'x'.repeat(200_000) }),
    });

    expect(await response.json()).toEqual({ seen: 'over-the-wire' });
  });
});
