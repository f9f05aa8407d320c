import { randomBytes } from 'node:crypto';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { importPartnerEvent, grantPartnerDistribution } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';
import { approvedCard } from '../support/cards.js';

const infra = requireInfra();

// Answers are read loosely: the unit tests pin their shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/**
 * The partner cart through the edge, every service its own process on real Kafka and a real
 * Mongo-wire server: a partner event imported from partner-reference is reserved (polling when the
 * reserve is slow or asked to be asynchronous), shipped, paid (a Stripe test PaymentMethod, through
 * cart's Stripe adapter and stripe-mock) and committed; the order is read and cancelled through
 * the admin API. The pre-production prefix does the same against sandbox inventory, paid with the
 * sandbox processor's test nonce.
 */
describe.skipIf(!infra)('partner cart (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  let trackingId: string;
  let eventId: string;
  const marker = `pc${randomBytes(4).toString('hex')}`;

  const json = async (response: Response) => {
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as Json;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut.adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  // The app's default quota is 5 calls a second: keep 220 ms between calls.
  let lastAnswer = 0;
  const partner = async (
    prefix: string,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await fetch(`${sut.baseUrl}${prefix}${path}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          ...(options.body ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        ...(options.body ? { body: JSON.stringify(options.body) } : {}),
      });
    } finally {
      lastAnswer = Date.now();
    }
  };

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const app = await admin('POST', 'apps', {
      name: 'partner cart e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    const created1 = await json(app);
    apiKey = created1.apiKey as string;
    trackingId = created1.trackingId as string;
    await grantPartnerDistribution(sut, created1.appId as string);

    ({ eventId } = await importPartnerEvent(sut, { apiKey, marker }));
    // The import's last calls count against the app's quota too.
    lastAnswer = Date.now();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  /** Reserve, poll until held, choose e-ticket delivery, pay the unpaid total, commit. */
  async function buy(prefix: string, forceAsync: boolean) {
    const availability = await partner(prefix, 'GET', `/events/${eventId}/availability`);
    expect(availability.status).toBe(200);
    const event = (await json(availability)).event;
    expect(event).toMatchObject({ id: eventId, currency: 'EUR', onsale: true });

    const reserved = await partner(prefix, 'POST', `/events/${eventId}/cart`, {
      body: { reserve: { tickets: [{ id: 'ADULT', quantity: 2 }] } },
      headers: {
        'idempotency-key': `${marker}-${prefix}-reserve`,
        ...(forceAsync ? { prefer: 'respond-async' } : {}),
      },
    });
    let cart = await json(reserved);
    if (forceAsync) {
      expect(reserved.status).toBe(202);
      expect(reserved.headers.get('location')).toBe(cart.polling_url);
    }
    if (reserved.status === 202) {
      const pollingUrl = cart.polling_url as string;
      cart = await waitFor(
        async () => {
          const polled = await partner('', 'GET', pollingUrl);
          return polled.status === 200 ? json(polled) : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
      );
    } else {
      expect(reserved.status).toBe(200);
    }
    const cartId = cart.cart_id as string;
    expect(cart.cart.hold_time).toBeGreaterThan(0);
    expect(cart.cart.totals.merchandise).toBe(90);

    const options = await partner(
      prefix,
      'GET',
      `/events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect(options.status).toBe(200);
    const shippingId = (await json(options)).shipping_options[0].id as string;
    const shipped = await partner(prefix, 'PUT', `/events/${eventId}/cart/shipping`, {
      body: { cart_id: cartId, shipping_id: shippingId },
    });
    expect(shipped.status).toBe(200);
    const unpaid = (await json(shipped)).cart.totals.unpaid as number;

    const paid = await partner(prefix, 'PUT', `/events/${eventId}/cart/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: unpaid.toFixed(2),
          currency: 'EUR',
          card: { number: approvedCard(prefix), cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: 'ada@example.com',
          third_party_account_id: `user-${marker}`,
        },
      },
    });
    expect(paid.status).toBe(200);
    const paidCart = await json(paid);
    expect(paidCart.cart.totals.unpaid).toBe(0);
    expect(paidCart.cart.payments[0].card.number).toMatch(/^\*+\d{4}$/);

    const committed = await partner(prefix, 'PUT', `/events/${eventId}/cart`, {
      body: { cart_id: cartId },
      headers: { 'idempotency-key': `${marker}-${prefix}-commit` },
    });
    expect(committed.status).toBe(200);
    const order = await json(committed);
    expect(order).toMatchObject({ cart_id: cartId, grand_total: unpaid, currency_code: 'EUR' });
    expect(order.order_token).toEqual(expect.any(String));
    return order;
  }

  it('buys through /partners/v1 and cancels the order through the admin API', async () => {
    const order = await buy('/partners/v1', false);
    const read = await admin('GET', `orders/${encodeURIComponent(order.order_id)}`);
    expect(read.status).toBe(200);
    const readBody = await json(read);
    expect(readBody).toMatchObject({ eventId, order: { status: 'CONFIRMED' } });
    expect(readBody.tickets).toHaveLength(2);
    expect(JSON.stringify(readBody)).not.toContain(order.order_token);

    const cancelled = await admin('POST', `orders/${encodeURIComponent(order.order_id)}/cancel`, {
      reason: 'REQUESTED',
      detail: 'e2e',
    });
    expect(cancelled.status).toBe(200);
    expect((await json(cancelled)).order.status).toBe('CANCELLED');
  });

  it('buys on the pre-production prefix through the polling path (sandbox)', async () => {
    const order = await buy('/partners-preprod/v1', true);
    expect(order.order_id).not.toBe('');
  });

  it("bounds one third_party_account_id by the event's ticket limit across carts (409 20061)", async () => {
    const account = `cap-${marker}`;
    const hold = async (quantity: number) => {
      const reserved = await partner('/partners/v1', 'POST', `/events/${eventId}/cart`, {
        body: { reserve: { tickets: [{ id: 'ADULT', quantity }] } },
      });
      let cart = await json(reserved);
      if (reserved.status === 202) {
        const pollingUrl = cart.polling_url as string;
        cart = await waitFor(
          async () => {
            const polled = await partner('', 'GET', pollingUrl);
            return polled.status === 200 ? json(polled) : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
        );
      } else {
        expect(reserved.status).toBe(200);
      }
      return { cartId: cart.cart_id as string, unpaid: cart.cart.totals.unpaid as number };
    };
    const pay = (cart: { cartId: string; unpaid: number }) =>
      partner('/partners/v1', 'PUT', `/events/${eventId}/cart/payment`, {
        body: {
          cartId: cart.cartId,
          payment: {
            first_name: 'Ada',
            last_name: 'Lovelace',
            type: 'CC',
            amount: cart.unpaid.toFixed(2),
            currency: 'EUR',
            card: {
              number: approvedCard('/partners/v1'),
              cin: '123',
              expire_month: 12,
              expire_year: 2031,
            },
            email_address: 'ada@example.com',
            third_party_account_id: account,
          },
        },
      });
    // The test event sells at most 10 tickets: 6 paid, then 5 more for the same account.
    const first = await hold(6);
    expect((await pay(first)).status).toBe(200);
    const second = await hold(5);
    const refused = await pay(second);
    expect(refused.status).toBe(409);
    const body = await json(refused);
    expect(body.error.code).toBe('20061');
    expect(body.error.message).toContain('at most 10 tickets to one buyer');
    for (const cart of [first, second])
      await partner('/partners/v1', 'DELETE', `/events/${eventId}/cart?cart_id=${cart.cartId}`);
  });

  it('refuses another app’s cart, releases with 204, and answers the tracking pixel', async () => {
    const reserved = await partner('/partners/v1', 'POST', `/events/${eventId}/cart`, {
      body: { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
    });
    let cart = await json(reserved);
    if (reserved.status === 202) {
      cart = await waitFor(
        async () => {
          const polled = await partner('', 'GET', cart.polling_url as string);
          return polled.status === 200 ? json(polled) : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
      );
    }
    const cartId = encodeURIComponent(cart.cart_id as string);
    const other = await admin('POST', 'apps', {
      name: 'another app',
      redirectUris: ['https://e2e.example/cb'],
    });
    const otherApp = await json(other);
    const otherKey = otherApp.apiKey as string;
    await grantPartnerDistribution(sut, otherApp.appId as string);
    const foreign = await fetch(
      `${sut.baseUrl}/partners/v1/events/${eventId}/cart?cart_id=${cartId}&apikey=${otherKey}`,
    );
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).error.code).toBe('90003');

    // An app without partner distribution access reserves nothing: 403 code 10003.
    const plain = await json(
      await admin('POST', 'apps', {
        name: 'not a distributor',
        redirectUris: ['https://e2e.example/cb'],
      }),
    );
    const refused = await fetch(
      `${sut.baseUrl}/partners/v1/events/${eventId}/cart?apikey=${plain.apiKey as string}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } }),
      },
    );
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe('10003');

    // An app's held-ticket quota, set at creation: past it a reserve is 409 code 20060 naming the
    // limit, and it passes again once a cart is released.
    const limited = await json(
      await admin('POST', 'apps', {
        name: 'limited distributor',
        redirectUris: ['https://e2e.example/cb'],
        quota: { perSecond: 50, heldTicketsPerEvent: 1 },
      }),
    );
    await grantPartnerDistribution(sut, limited.appId as string);
    const limitedReserve = () =>
      fetch(
        `${sut.baseUrl}/partners/v1/events/${eventId}/cart?apikey=${limited.apiKey as string}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } }),
        },
      );
    const first = await limitedReserve();
    expect([200, 202]).toContain(first.status);
    const firstCart = (await json(first)).cart_id as string;
    const over = await limitedReserve();
    expect(over.status).toBe(409);
    const overBody = await json(over);
    expect(overBody.error.code).toBe('20060');
    expect(overBody.error.message).toContain('at most 1 tickets');
    const freed = await fetch(
      `${sut.baseUrl}/partners/v1/events/${eventId}/cart?cart_id=${encodeURIComponent(firstCart)}&apikey=${limited.apiKey as string}`,
      { method: 'DELETE' },
    );
    expect(freed.status).toBe(204);
    const again = await limitedReserve();
    expect([200, 202]).toContain(again.status);
    const againCart = (await json(again)).cart_id as string;
    await fetch(
      `${sut.baseUrl}/partners/v1/events/${eventId}/cart?cart_id=${encodeURIComponent(againCart)}&apikey=${limited.apiKey as string}`,
      { method: 'DELETE' },
    );

    const released = await partner(
      '/partners/v1',
      'DELETE',
      `/events/${eventId}/cart?cart_id=${cartId}`,
    );
    expect(released.status).toBe(204);
    const gone = await partner('/partners/v1', 'GET', `/events/${eventId}/cart?cart_id=${cartId}`);
    expect(gone.status).toBe(404);

    // The pixel of a public page: the app's tracking id, no API key, no quota spent.
    expect(trackingId).toMatch(/^mqt_/);
    const pixel = await fetch(
      `${sut.baseUrl}/partners/v1/tracking?tracking_id=${trackingId}&event_id=${eventId}&sharedId=${marker}`,
    );
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect(pixel.headers.get('rate-limit')).toBeNull();
    expect((await pixel.arrayBuffer()).byteLength).toBe(43);
  });
});
