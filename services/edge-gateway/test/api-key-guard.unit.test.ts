import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import { metricValue } from '@marquee/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const opened: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

/** The whole edge with a fake auth-gateway that knows no key, counting what reached it. */
async function edge() {
  const seen = { validations: 0, publishes: 0 };
  const sut = createHttpServer({ logger });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends: fakeBackends({
      developerAccess: {
        async validateApiKey() {
          seen.validations++;
          return { valid: false, appId: '' };
        },
        async checkRateLimit() {
          return { limit: 5000, available: 4999, resetEpochMs: 0, over: false };
        },
      },
      publishing: {
        async publishEvent() {
          seen.publishes++;
          throw new Error('unreachable');
        },
      },
    }),
  });
  await sut.ready();
  opened.push(sut);
  return { sut, seen };
}

describe('API-key guard (onRequest, every family)', () => {
  it('answers a call without a valid key 401 before its body is parsed or validated', async () => {
    const { sut, seen } = await edge();
    // Malformed JSON: checked after the key it would be a 400; the key comes first.
    const malformed = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events?apikey=unknown',
      headers: { 'content-type': 'application/json' },
      payload: '{"not json',
    });
    expect(malformed.statusCode).toBe(401);
    // A body far beyond the route's limit is not even read.
    const huge = await sut.inject({
      method: 'POST',
      url: '/publish/v2/events',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ names: { 'en-us': 'x'.repeat(2_000_000) } }),
    });
    expect(huge.statusCode).toBe(401);
    expect(seen.publishes).toBe(0);
  });

  it("answers 401 before query validation, in the family's own body, for every keyed family", async () => {
    const { sut } = await edge();
    for (const url of [
      '/discovery/v2/events.json?size=not-a-number',
      '/dc/content/v1/deals/events?latitude=north',
      '/mfxapi/v2/events?rows=-1',
    ]) {
      const answer = await sut.inject({ url });
      expect(answer.statusCode, url).toBe(401);
    }
  });

  it('answers a call over the quota 429 with Retry-After of the refusing window', async () => {
    const sut = createHttpServer({ logger });
    await registerEdgeRoutes(sut, {
      adminToken: 'test-admin-token-0123456789',
      version: 'test',
      backends: fakeBackends({
        developerAccess: {
          async validateApiKey() {
            return { valid: true, appId: 'app-1' };
          },
          async checkRateLimit() {
            return { limit: 5000, available: 10, resetEpochMs: 0, over: true, retryAfterMs: 400 };
          },
        },
      }),
    });
    await sut.ready();
    opened.push(sut);
    const refusals = 'marquee_rate_limit_refusals_total{family="discovery"}';
    const before = (await metricValue(refusals)) ?? 0;
    const refused = await sut.inject({ method: 'GET', url: '/discovery/v2/events.json?apikey=k' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['rate-limit-over']).toBe('1');
    expect(await metricValue(refusals)).toBe(before + 1);
  });
});
