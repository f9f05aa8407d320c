import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { NewApp } from '../src/app/backends.js';
import { ADMIN_TOKEN as adminToken, useEdge } from './edge-harness.js';

const startEdge = useEdge();

async function edge(received: NewApp[]): Promise<FastifyInstance> {
  return startEdge({
    developerAccess: {
      async createApp(input) {
        received.push(input);
        return { apiKey: 'k', clientId: 'c', clientSecret: 's' };
      },
    },
  });
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
