import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewApp } from '../src/app/backends.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const adminToken = 'test-admin-token-0123456789';
let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

async function edge(received: NewApp[]): Promise<FastifyInstance> {
  sut = createHttpServer({ logger: createLogger({ service: 'edge-test', level: 'silent' }) });
  await registerEdgeRoutes(sut, {
    adminToken,
    version: 'test',
    backends: fakeBackends({
      developerAccess: {
        async createApp(input) {
          received.push(input);
          return { apiKey: 'k', clientId: 'c', clientSecret: 's' };
        },
      },
    }),
  });
  await sut.ready();
  return sut;
}

const post = (app: FastifyInstance, body: unknown) =>
  app.inject({
    method: 'POST',
    url: '/admin/v1/apps',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe('POST /admin/v1/apps with a per-app quota', () => {
  it('passes an optional quota to auth-gateway', async () => {
    const received: NewApp[] = [];
    const app = await edge(received);
    const response = await post(app, {
      name: 'Big app',
      redirectUris: ['https://big.example/cb'],
      quota: { perDay: 100000, perSecond: 50 },
    });
    expect(response.statusCode).toBe(201);
    expect(received).toEqual([
      {
        name: 'Big app',
        redirectUris: ['https://big.example/cb'],
        quota: { perDay: 100000, perSecond: 50 },
      },
    ]);
  });

  it('refuses a zero, fractional or unknown quota field with the admin 400 body', async () => {
    const received: NewApp[] = [];
    const app = await edge(received);
    for (const quota of [{ perDay: 0 }, { perSecond: 1.5 }, { perMinute: 10 }]) {
      const response = await post(app, {
        name: 'x',
        redirectUris: ['https://x.example/cb'],
        quota,
      });
      expect(response.statusCode, JSON.stringify(quota)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect(received).toEqual([]);
  });
});
