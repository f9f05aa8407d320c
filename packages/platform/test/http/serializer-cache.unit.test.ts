import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/index.js';
import { compiledSerializerCount } from '../../src/http/serializer-cache.js';
import { createLogger } from '../../src/logger/index.js';
import { logLines } from '../support/log-lines.js';

const servers: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function server(): FastifyInstance {
  const app = createHttpServer({
    logger: createLogger({ service: 'test', destination: logLines().stream }),
  });
  servers.push(app);
  return app;
}

const answer = { id: 'a-1', name: 'Ada', secret: 'not in any schema' };

/** A route answering `answer` through the 200 schema given. */
function route(app: FastifyInstance, url: string, schema: object) {
  app.get(url, { schema: { response: { 200: schema } } }, async () => answer);
}

describe('compiled response serializers', () => {
  it('are compiled once for servers and routes with the same schema', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string' }, unique: { const: 1 } },
    };
    await server().ready(); // the server's own routes (probes, metrics) compiled beforehand
    const first = server();
    route(first, '/one', schema);
    route(first, '/two', structuredClone(schema));
    const before = compiledSerializerCount();
    await first.ready();
    const afterFirst = compiledSerializerCount();

    const second = server();
    route(second, '/one', structuredClone(schema));
    await second.ready();

    expect(afterFirst - before).toBe(1);
    expect(compiledSerializerCount()).toBe(afterFirst);
    for (const [app, url] of [
      [first, '/one'],
      [first, '/two'],
      [second, '/one'],
    ] as const) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.json()).toEqual({ id: 'a-1', name: 'Ada' });
    }
  });

  it('serialize each schema by its own properties', async () => {
    const app = server();
    route(app, '/id', { type: 'object', properties: { id: { type: 'string' } } });
    route(app, '/name', { type: 'object', properties: { name: { type: 'string' } } });

    expect((await app.inject({ method: 'GET', url: '/id' })).json()).toEqual({ id: 'a-1' });
    expect((await app.inject({ method: 'GET', url: '/name' })).json()).toEqual({ name: 'Ada' });
  });

  it('follow the shared schemas of their own server', async () => {
    const byId = server();
    byId.addSchema({ $id: 'thing', type: 'object', properties: { id: { type: 'string' } } });
    route(byId, '/thing', { $ref: 'thing#' });
    const byName = server();
    byName.addSchema({ $id: 'thing', type: 'object', properties: { name: { type: 'string' } } });
    route(byName, '/thing', { $ref: 'thing#' });

    expect((await byId.inject({ method: 'GET', url: '/thing' })).json()).toEqual({ id: 'a-1' });
    expect((await byName.inject({ method: 'GET', url: '/thing' })).json()).toEqual({
      name: 'Ada',
    });
  });
});
