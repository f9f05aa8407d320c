import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import type { StripeWebhookSink } from '../src/app/stripe-webhooks.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const secret = 'whsec_test_0123456789abcdef';
let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

type Forwarded = Parameters<StripeWebhookSink['handleStripeEvent']>[0];

/** The edge with a cart that records what it gets, answering duplicate for an id seen before. */
async function edge(options: { secret?: string; fail?: Error } = { secret }) {
  const forwarded: Forwarded[] = [];
  const seen = new Set<string>();
  const sink: StripeWebhookSink = {
    handleStripeEvent: async (event) => {
      if (options.fail) throw options.fail;
      forwarded.push(event);
      const duplicate = seen.has(event.eventId);
      seen.add(event.eventId);
      return { duplicate, outcome: duplicate ? 'duplicate' : 'ignored' };
    },
  };
  sut = createHttpServer({ logger: createLogger({ service: 'edge-test', level: 'silent' }) });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends: { ...fakeBackends({}), stripeWebhooks: sink },
    ...(options.secret ? { stripeWebhookSecret: options.secret } : {}),
  });
  await sut.ready();
  return { app: sut, forwarded };
}

const anEvent = (type: string, object: Record<string, unknown>, id = `evt_${type}`) =>
  JSON.stringify({
    id,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    api_version: '2026-10-28.endive',
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });

const post = (
  app: FastifyInstance,
  payload: string,
  /** `null`: no header at all. */
  signature: string | null = Stripe.webhooks.generateTestHeaderString({ payload, secret }),
) =>
  app.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature !== null ? { 'stripe-signature': signature } : {}),
    },
    payload,
  });

describe('POST /webhooks/stripe', () => {
  const refund = anEvent('charge.refunded', { id: 'ch_1', payment_intent: 'pi_1' });

  it('refuses a body signed with another secret, or altered after signing: 400, nothing forwarded', async () => {
    const { app, forwarded } = await edge();
    const wrong = Stripe.webhooks.generateTestHeaderString({
      payload: refund,
      secret: 'whsec_someone_else',
    });
    const signed = Stripe.webhooks.generateTestHeaderString({ payload: refund, secret });
    for (const answer of [
      await post(app, refund, wrong),
      await post(app, refund.replace('pi_1', 'pi_2'), signed),
      await post(app, refund, null),
      await post(app, refund, 't=1,v1=00'),
    ]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({
        error: { code: 'invalid_signature', message: expect.any(String) },
      });
    }
    expect(forwarded).toEqual([]);
  });

  it('refuses a timestamp outside the tolerance (a replayed delivery): 400, nothing forwarded', async () => {
    const { app, forwarded } = await edge();
    const stale = Stripe.webhooks.generateTestHeaderString({
      payload: refund,
      secret,
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const answer = await post(app, refund, stale);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe('invalid_signature');
    expect(forwarded).toEqual([]);
  });

  it('refuses a signed event without its created time or data.object: 400, nothing forwarded', async () => {
    const { app, forwarded } = await edge();
    for (const broken of [
      JSON.stringify({
        id: 'evt_x',
        object: 'event',
        type: 'charge.refunded',
        data: { object: {} },
      }),
      JSON.stringify({
        id: 'evt_y',
        object: 'event',
        type: 'charge.refunded',
        created: 1,
        data: {},
      }),
    ]) {
      const answer = await post(app, broken);
      expect(answer.statusCode).toBe(400);
      expect(answer.json().error.code).toBe('invalid_event');
    }
    expect(forwarded).toEqual([]);
  });

  it('forwards a verified event to cart as it was signed, and a replayed id as cart answers it', async () => {
    const { app, forwarded } = await edge();
    const first = await post(app, refund);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatchObject({ eventId: 'evt_charge.refunded', type: 'charge.refunded' });
    expect(JSON.parse(forwarded[0]!.objectJson)).toEqual({ id: 'ch_1', payment_intent: 'pi_1' });
    const again = await post(app, refund);
    expect(again.json()).toEqual({ received: true, duplicate: true });
  });

  it('answers 503 without a secret (never takes an unverified event), and when cart is down', async () => {
    const unconfigured = await edge({});
    const answer = await post(unconfigured.app, refund);
    expect(answer.statusCode).toBe(503);
    expect(answer.json().error.code).toBe('unavailable');
    expect(answer.headers['retry-after']).toBe('3600');
    expect(unconfigured.forwarded).toEqual([]);
    await sut?.close();
    const down = await edge({ secret, fail: new AppError('unavailable', 'cart down') });
    const refused = await post(down.app, refund);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
  });

  it('answers 405 with Allow: POST to any other method, and documents only POST', async () => {
    const { app } = await edge();
    for (const method of ['GET', 'PUT', 'DELETE', 'TRACE', 'QUERY'] as const) {
      const answer = await app.inject({ method, url: '/webhooks/stripe' });
      expect(answer.statusCode, `${method} ${answer.body}`).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.json().error.code).toBe('method_not_allowed');
    }
  });
});
