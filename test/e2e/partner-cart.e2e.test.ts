import { randomBytes } from 'node:crypto';
import { describeError, type MarqueeClient } from '@marquee/api-client';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, appApi, Pace } from '../support/api.js';
import { requireInfra } from '../support/infra.js';
import { importPartnerEvent, grantPartnerDistribution } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';
import { approvedCard } from '../support/cards.js';

const infra = requireInfra();

/** The two prefixes of the partner cart: production and pre-production (sandbox). */
type Prefix = '/partners/v1' | '/partners-preprod/v1';

/**
 * The partner cart through the edge, every service its own process on real Kafka and a real
 * Mongo-wire server: a partner event imported from partner-reference is reserved (polling when the
 * reserve is slow or asked to be asynchronous), shipped, paid (a Stripe test PaymentMethod, through
 * cart's Stripe adapter and stripe-mock) and committed; the order is read and cancelled through
 * the admin API. The pre-production prefix does the same against sandbox inventory, paid with the
 * sandbox processor's test nonce. Every call goes through `@marquee/api-client`, typed from the
 * OpenAPI document.
 */
describe.skipIf(!infra)('partner cart (distributed mode)', () => {
  let sut: Stack;
  let admin: MarqueeClient;
  /** The distributor app's client; its calls keep 220 ms apart (default quota: 5 calls a second). */
  let partner: MarqueeClient;
  const pace = new Pace(220);
  let trackingId: string;
  let eventId: string;
  const marker = `pc${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    admin = adminApi(sut);
    const app = await admin.POST('/admin/v1/apps', {
      body: { name: 'partner cart e2e', redirectUris: ['https://e2e.example/cb'] },
    });
    expect(app.response.status).toBe(201);
    const created = app.data!;
    const apiKey = created.apiKey;
    trackingId = created.trackingId!;
    partner = appApi(sut, apiKey, pace);
    await grantPartnerDistribution(sut, created.appId!);

    ({ eventId } = await importPartnerEvent(sut, { apiKey, marker }));
    // The import's last calls count against the app's quota too.
    pace.touch();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  /**
   * Follows a reserve's `polling_url` (the cart's own GET, with `cart_id`) until the cart is held.
   */
  async function pollReserve(api: MarqueeClient, prefix: Prefix, pollingUrl: string) {
    const url = new URL(pollingUrl, sut.baseUrl);
    expect(url.pathname).toBe(`${prefix}/events/${eventId}/cart`);
    const cartId = url.searchParams.get('cart_id')!;
    return waitFor(
      async () => {
        const polled = await api.GET(`${prefix}/events/{event_id}/cart`, {
          params: { path: { event_id: eventId }, query: { cart_id: cartId } },
        });
        return polled.response.status === 200 && polled.data && 'cart' in polled.data
          ? polled.data
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
    );
  }

  /** Reserves `quantity` ADULT tickets and waits until the cart is held (200, or 202 then polled). */
  async function hold(
    api: MarqueeClient,
    prefix: Prefix,
    quantity: number,
    headers: { 'idempotency-key'?: string; prefer?: string } = {},
  ) {
    const reserved = await api.POST(`${prefix}/events/{event_id}/cart`, {
      params: { path: { event_id: eventId }, header: headers },
      body: { reserve: { tickets: [{ id: 'ADULT', quantity }] } },
    });
    const data = reserved.data!;
    if (reserved.response.status === 202 && 'polling_url' in data) {
      expect(reserved.response.headers.get('location')).toBe(data.polling_url);
      return { status: 202, cart: await pollReserve(api, prefix, data.polling_url) };
    }
    expect(reserved.response.status).toBe(200);
    if (!('cart' in data)) throw new Error(`a 200 reserve without a cart: ${JSON.stringify(data)}`);
    return { status: 200, cart: data };
  }

  /** Reserve, poll until held, choose e-ticket delivery, pay the unpaid total, commit. */
  async function buy(prefix: Prefix, forceAsync: boolean) {
    const availability = await partner.GET(`${prefix}/events/{event_id}/availability`, {
      params: { path: { event_id: eventId } },
    });
    expect(availability.response.status).toBe(200);
    expect(availability.data!.event).toMatchObject({ id: eventId, currency: 'EUR', onsale: true });

    const reserved = await hold(partner, prefix, 2, {
      'idempotency-key': `${marker}-${prefix}-reserve`,
      ...(forceAsync ? { prefer: 'respond-async' } : {}),
    });
    if (forceAsync) expect(reserved.status).toBe(202);
    const cart = reserved.cart;
    const cartId = cart.cart_id;
    expect(cart.cart.hold_time).toBeGreaterThan(0);
    expect(cart.cart.totals.merchandise).toBe(90);

    const options = await partner.GET(`${prefix}/events/{event_id}/cart/shipping`, {
      params: { path: { event_id: eventId }, query: { cart_id: cartId } },
    });
    expect(options.response.status).toBe(200);
    const shippingId = options.data!.shipping_options[0]!.id;
    const shipped = await partner.PUT(`${prefix}/events/{event_id}/cart/shipping`, {
      params: { path: { event_id: eventId } },
      body: { cart_id: cartId, shipping_id: shippingId },
    });
    expect(shipped.response.status).toBe(200);
    const unpaid = shipped.data!.cart.totals.unpaid;

    const paid = await partner.PUT(`${prefix}/events/{event_id}/cart/payment`, {
      params: { path: { event_id: eventId } },
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
    expect(paid.response.status).toBe(200);
    const paidCart = paid.data!;
    expect(paidCart.cart.totals.unpaid).toBe(0);
    expect(paidCart.cart.payments[0]!.card!.number).toMatch(/^\*+\d{4}$/);

    const committed = await partner.PUT(`${prefix}/events/{event_id}/cart`, {
      params: {
        path: { event_id: eventId },
        header: { 'idempotency-key': `${marker}-${prefix}-commit` },
      },
      body: { cart_id: cartId },
    });
    expect(committed.response.status).toBe(200);
    const order = committed.data!;
    expect(order).toMatchObject({ cart_id: cartId, grand_total: unpaid, currency_code: 'EUR' });
    expect(order.order_token).toEqual(expect.any(String));
    return order;
  }

  it('buys through /partners/v1 and cancels the order through the admin API', async () => {
    const order = await buy('/partners/v1', false);
    const orderPath = { params: { path: { orderId: order.order_id } } };
    const read = await admin.GET('/admin/v1/orders/{orderId}', orderPath);
    expect(read.response.status).toBe(200);
    const readBody = read.data!;
    expect(readBody).toMatchObject({ eventId, order: { status: 'CONFIRMED' } });
    expect(readBody.tickets).toHaveLength(2);
    expect(JSON.stringify(readBody)).not.toContain(order.order_token);

    const cancelled = await admin.POST('/admin/v1/orders/{orderId}/cancel', {
      ...orderPath,
      body: { reason: 'REQUESTED', detail: 'e2e' },
    });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data!.order.status).toBe('CANCELLED');
  });

  it('buys on the pre-production prefix through the polling path (sandbox)', async () => {
    const order = await buy('/partners-preprod/v1', true);
    expect(order.order_id).not.toBe('');
  });

  it("bounds one third_party_account_id by the event's ticket limit across carts (409 20061)", async () => {
    const account = `cap-${marker}`;
    const holdFor = async (quantity: number) => {
      const { cart } = await hold(partner, '/partners/v1', quantity);
      return { cartId: cart.cart_id, unpaid: cart.cart.totals.unpaid };
    };
    const pay = (cart: { cartId: string; unpaid: number }) =>
      partner.PUT('/partners/v1/events/{event_id}/cart/payment', {
        params: { path: { event_id: eventId } },
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
    const first = await holdFor(6);
    expect((await pay(first)).response.status).toBe(200);
    const second = await holdFor(5);
    const refused = await pay(second);
    expect(refused.response.status).toBe(409);
    const body = describeError(refused.error);
    expect(body.code).toBe('20061');
    expect(body.message).toContain('at most 10 tickets to one buyer');
    for (const cart of [first, second])
      await partner.DELETE('/partners/v1/events/{event_id}/cart', {
        params: { path: { event_id: eventId }, query: { cart_id: cart.cartId } },
      });
  });

  it('refuses another app’s cart, releases with 204, and answers the tracking pixel', async () => {
    const { cart } = await hold(partner, '/partners/v1', 1);
    const cartId = cart.cart_id;
    const cartParams = { params: { path: { event_id: eventId }, query: { cart_id: cartId } } };
    const newApp = async (body: {
      name: string;
      redirectUris: string[];
      quota?: { perSecond?: number; heldTicketsPerEvent?: number };
    }) => (await admin.POST('/admin/v1/apps', { body })).data!;

    const otherApp = await newApp({
      name: 'another app',
      redirectUris: ['https://e2e.example/cb'],
    });
    await grantPartnerDistribution(sut, otherApp.appId!);
    const foreign = await appApi(sut, otherApp.apiKey).GET(
      '/partners/v1/events/{event_id}/cart',
      cartParams,
    );
    expect(foreign.response.status).toBe(404);
    expect(describeError(foreign.error).code).toBe('90003');

    // An app without partner distribution access reserves nothing: 403 code 10003.
    const plain = await newApp({
      name: 'not a distributor',
      redirectUris: ['https://e2e.example/cb'],
    });
    const refused = await appApi(sut, plain.apiKey).POST('/partners/v1/events/{event_id}/cart', {
      params: { path: { event_id: eventId } },
      body: { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
    });
    expect(refused.response.status).toBe(403);
    expect(describeError(refused.error).code).toBe('10003');

    // An app's held-ticket quota, set at creation: past it a reserve is 409 code 20060 naming the
    // limit, and it passes again once a cart is released.
    const limited = await newApp({
      name: 'limited distributor',
      redirectUris: ['https://e2e.example/cb'],
      quota: { perSecond: 50, heldTicketsPerEvent: 1 },
    });
    await grantPartnerDistribution(sut, limited.appId!);
    const limitedApi = appApi(sut, limited.apiKey);
    const limitedReserve = () =>
      limitedApi.POST('/partners/v1/events/{event_id}/cart', {
        params: { path: { event_id: eventId } },
        body: { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
      });
    const release = (id: string) =>
      limitedApi.DELETE('/partners/v1/events/{event_id}/cart', {
        params: { path: { event_id: eventId }, query: { cart_id: id } },
      });
    const first = await limitedReserve();
    expect([200, 202]).toContain(first.response.status);
    const firstCart = first.data!.cart_id;
    const over = await limitedReserve();
    expect(over.response.status).toBe(409);
    const overBody = describeError(over.error);
    expect(overBody.code).toBe('20060');
    expect(overBody.message).toContain('at most 1 tickets');
    const freed = await release(firstCart);
    expect(freed.response.status).toBe(204);
    const again = await limitedReserve();
    expect([200, 202]).toContain(again.response.status);
    await release(again.data!.cart_id);

    const released = await partner.DELETE('/partners/v1/events/{event_id}/cart', cartParams);
    expect(released.response.status).toBe(204);
    const gone = await partner.GET('/partners/v1/events/{event_id}/cart', cartParams);
    expect(gone.response.status).toBe(404);

    // The pixel of a public page: the app's tracking id, no API key, no quota spent.
    expect(trackingId).toMatch(/^mqt_/);
    const pixel = await appApi(sut, 'unused: the pixel takes no API key').GET(
      '/partners/v1/tracking',
      {
        params: {
          query: { tracking_id: trackingId, event_id: eventId, sharedId: marker },
        },
        parseAs: 'arrayBuffer',
      },
    );
    expect(pixel.response.status).toBe(200);
    expect(new URL(pixel.response.url).searchParams.has('apikey')).toBe(false);
    expect(pixel.response.headers.get('content-type')).toBe('image/gif');
    expect(pixel.response.headers.get('rate-limit')).toBeNull();
    expect((pixel.data as ArrayBuffer).byteLength).toBe(43);
  });
});
