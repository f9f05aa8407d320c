import { createHttpServer } from '@marquee/platform/http';
import { silentLogger } from '@marquee/platform/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, expect } from 'vitest';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

/** The admin token of the edges `useEdge` starts. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * Edges for the tests of one file: `startEdge(backends)` gives the edge's routes (admin token
 * `ADMIN_TOKEN`, version `test`) on `fakeBackends(backends)`, ready to `inject`; the edge a test
 * started is closed after it. Call at the top of the file.
 */
export function useEdge(): (
  backends: Parameters<typeof fakeBackends>[0],
) => Promise<FastifyInstance> {
  let sut: FastifyInstance | undefined;
  afterEach(async () => {
    await sut?.close();
    sut = undefined;
  });
  return async (backends) => {
    sut = createHttpServer({ logger: silentLogger('edge-test') });
    await registerEdgeRoutes(sut, {
      adminToken: ADMIN_TOKEN,
      version: 'test',
      backends: fakeBackends(backends),
    });
    await sut.ready();
    return sut;
  };
}

/** A request to `url` with the admin token, `body` (when given) sent as JSON. */
export const adminInject = (
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> =>
  app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });

/**
 * auth-gateway's developer access for public APIs: a key is valid when `appOf` names its app, and
 * every key is well under its rate limit.
 */
export const keyedAccess = (appOf: (key: string) => string | undefined) => ({
  async validateApiKey(key: string) {
    const appId = appOf(key);
    return appId !== undefined ? { valid: true, appId } : { valid: false, appId: '' };
  },
  async checkRateLimit() {
    return { limit: 5000, available: 4999, resetEpochMs: 1_900_000_000_000, over: false };
  },
});

/** `keyedAccess` knowing the one key `good-key`, of app `app-1`. */
export const goodKeyAccess = () => keyedAccess((key) => (key === 'good-key' ? 'app-1' : undefined));

/** Expects the admin 401 body both without a token and with a wrong one. */
export async function expectAdmin401(
  send: (token: string | undefined) => Promise<LightMyRequestResponse>,
): Promise<void> {
  for (const token of [undefined, 'wrong-token']) {
    const response = await send(token);
    expect(response.statusCode, String(token)).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: expect.any(String) } });
  }
}
