import { createHmac, randomBytes } from 'node:crypto';
import { skipIsFailure, waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller, pacedPartnerCaller, readJson, type Json } from '../support/calls.js';
import { requireInfra } from '../support/infra.js';
import { grantPartnerDistribution, importPartnerEvent } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';
import type { StripeRecorder, StripeRequest } from '../support/stripe-recorder.js';

const infra = requireInfra();
const stripeMockUrl = process.env.STRIPE_MOCK_URL;
if (infra && !stripeMockUrl) {
  const message =
    'STRIPE_MOCK_URL is not set: the Stripe payment e2e needs stripe-mock ' +
    '(bash deploy/local/infra.sh start stripe && eval "$(bash deploy/local/infra.sh env)")';
  if (skipIsFailure()) throw new Error(message);
  console.warn(`\n*** SKIPPED: ${message}\n`);
}

/**
 * Real money's path through the stack: production-prefix carts are paid through cart's Stripe
 * adapter, against stripe-mock behind the stack's recording proxy (`test/support/stripe-recorder.ts`),
 * every service its own process on real Kafka and a real Mongo-wire server. What Stripe received
 * is read from the proxy's records: the authorisation at payment (manual capture), the capture at
 * commit and only after the partner confirmed, the cancellation of the authorisation when the cart
 * is released or the partner refuses, the same idempotency key on a retried step, and nothing at
 * all for a sandbox nonce on a production cart.
 */
describe.skipIf(!infra || !stripeMockUrl)('Stripe payments (distributed mode)', () => {
  let sut: Stack;
  let stripe: StripeRecorder;
  let apiKey: string;
  let eventId: string;
  let partnerEventId: string;
  const marker = `sp${randomBytes(4).toString('hex')}`;

  const json = readJson;
  const admin = adminCaller(() => sut);
  const api = pacedPartnerCaller(
    () => sut,
    () => apiKey,
  );

  /** A held cart of one ticket, e-ticket delivery chosen: its id and unpaid total. */
  async function heldCart(): Promise<{ cartId: string; unpaid: number }> {
    const reserved = await api('POST', `events/${eventId}/cart`, {
      body: { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
    });
    let cart = await json(reserved);
    if (reserved.status === 202) {
      const pollingUrl = cart.polling_url as string;
      cart = await waitFor(
        async () => {
          const polled = await fetch(`${sut.baseUrl}${pollingUrl}`, {
            headers: { 'x-api-key': apiKey },
          });
          return polled.status === 200 ? json(polled) : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
      );
    } else expect(reserved.status, JSON.stringify(cart)).toBe(200);
    const cartId = cart.cart_id as string;
    const options = await api(
      'GET',
      `events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
    );
    const shippingId = (await json(options)).shipping_options[0].id as string;
    const shipped = await api('PUT', `events/${eventId}/cart/shipping`, {
      body: { cart_id: cartId, shipping_id: shippingId },
    });
    expect(shipped.status).toBe(200);
    return { cartId, unpaid: (await json(shipped)).cart.totals.unpaid as number };
  }

  const pay = (cartId: string, unpaid: number, card: string) =>
    api('PUT', `events/${eventId}/cart/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: unpaid.toFixed(2),
          currency: 'EUR',
          card: { number: card, cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: 'ada@example.com',
          third_party_account_id: `user-${marker}`,
        },
      },
    });
  const commit = (cartId: string) =>
    api('PUT', `events/${eventId}/cart`, { body: { cart_id: cartId } });

  /** The requests Stripe received for one cart (its authorisation's key names the cart). */
  const authorisationsOf = (cartId: string): StripeRequest[] =>
    stripe
      .requests()
      .filter(
        (r) =>
          r.path === '/v1/payment_intents' && r.idempotencyKey?.startsWith(`authorize:${cartId}:`),
      );
  const actionsOn = (paymentId: string, action: 'capture' | 'cancel'): StripeRequest[] =>
    stripe.requests().filter((r) => r.path === `/v1/payment_intents/${paymentId}/${action}`);
  const intent = (paymentId: string) => stripe.intents().find((i) => i.id === paymentId);

  /** Pays with `pm_card_visa`: the cart's PaymentIntent id. */
  async function payWithVisa(cartId: string, unpaid: number): Promise<string> {
    const paid = await pay(cartId, unpaid, 'pm_card_visa');
    const body = await json(paid);
    expect(paid.status, JSON.stringify(body)).toBe(200);
    const [authorised] = authorisationsOf(cartId);
    expect(authorised?.intentStatus).toBe('requires_capture');
    return authorised!.intentId!;
  }

  /** partner-reference's booking of the one cart held now (the 3P API, as the partner sees it). */
  async function releaseAtPartner(): Promise<void> {
    const token = await fetch(sut.partner.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: sut.partner.clientId,
        client_secret: sut.partner.clientSecret,
      }),
    });
    const authorization = `Bearer ${((await json(token)) as { access_token: string }).access_token}`;
    const period = new URLSearchParams({
      event_id: partnerEventId,
      start: new Date(Date.now() - 3_600_000).toISOString(),
      end: new Date(Date.now() + 3_600_000).toISOString(),
      size: '500',
    });
    const listed = await fetch(`${sut.partner.baseUrl}/orders?${period}`, {
      headers: { authorization },
    });
    expect(listed.status).toBe(200);
    const booked = ((await json(listed)).orders as Json[]).filter((o) => o.status === 'BOOKED');
    expect(booked).toHaveLength(1);
    const deleted = await fetch(`${sut.partner.baseUrl}/bookings/${booked[0]!.inventory_token}`, {
      method: 'DELETE',
      headers: { authorization },
    });
    expect(deleted.status).toBe(200);
  }

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    stripe = sut.stripe!.recorder;
    const app = await admin('POST', 'apps', {
      name: 'stripe e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    const created = await json(app);
    apiKey = created.apiKey as string;
    await grantPartnerDistribution(sut, created.appId as string);
    ({ eventId, partnerEventId } = await importPartnerEvent(sut, { apiKey, marker }));
    api.answered();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('authorises at payment with manual capture and captures at commit', async () => {
    const { cartId, unpaid } = await heldCart();
    const paid = await pay(cartId, unpaid, 'pm_card_visa');
    const paidCart = await json(paid);
    expect(paid.status, JSON.stringify(paidCart)).toBe(200);
    expect(paidCart.cart.totals.unpaid).toBe(0);
    // Brand and last four digits from the PaymentMethod (stripe-mock's visa fixture).
    expect(paidCart.cart.payments[0].card.number).toMatch(/^\*+4242$/);

    const [authorised, ...others] = authorisationsOf(cartId);
    expect(others).toEqual([]);
    expect(authorised).toMatchObject({
      method: 'POST',
      status: 200,
      intentStatus: 'requires_capture',
      form: expect.objectContaining({
        amount: String(Math.round(unpaid * 100)),
        currency: 'eur',
        capture_method: 'manual',
        confirm: 'true',
        payment_method: 'pm_card_visa',
      }),
    });
    const paymentId = authorised!.intentId!;
    // Nothing is taken before the commit.
    expect(actionsOn(paymentId, 'capture')).toEqual([]);

    const committed = await commit(cartId);
    const order = await json(committed);
    expect(committed.status, JSON.stringify(order)).toBe(200);
    expect(order).toMatchObject({ cart_id: cartId, grand_total: unpaid });
    const captures = actionsOn(paymentId, 'capture');
    expect(captures).toHaveLength(1);
    expect(captures[0]).toMatchObject({
      idempotencyKey: `capture:${paymentId}`,
      status: 200,
      form: { amount_to_capture: String(Math.round(unpaid * 100)) },
    });
    expect(intent(paymentId)).toMatchObject({
      status: 'succeeded',
      amountReceived: Math.round(unpaid * 100),
    });
    expect(actionsOn(paymentId, 'cancel')).toEqual([]);
  });

  it("an admin cancel refunds the captured payment once, under the order's key", async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    const committed = await commit(cartId);
    const order = await json(committed);
    expect(committed.status, JSON.stringify(order)).toBe(200);
    const orderId = order.order_id as string;
    const refundsOf = () =>
      stripe
        .requests()
        .filter(
          (r) =>
            r.method === 'POST' && r.path === '/v1/refunds' && r.form.payment_intent === paymentId,
        );
    expect(refundsOf()).toEqual([]);

    const cancelled = await admin('POST', `orders/${encodeURIComponent(orderId)}/cancel`, {
      reason: 'REQUESTED',
      detail: 'e2e refund',
    });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    const [refund, ...more] = await waitFor(
      () => {
        const sent = refundsOf().filter((r) => r.status === 200);
        return sent.length > 0 ? refundsOf() : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the refund of the cancelled order' },
    );
    expect(refund).toMatchObject({ idempotencyKey: expect.stringContaining(orderId), status: 200 });
    // A second cancel is answered from the order: no second refund.
    const again = await admin('POST', `orders/${encodeURIComponent(orderId)}/cancel`);
    expect(again.status).toBe(200);
    expect(more.filter((r) => r.idempotencyKey !== refund!.idempotencyKey)).toEqual([]);
    expect(refundsOf().filter((r) => r.idempotencyKey !== refund!.idempotencyKey)).toEqual([]);
  });

  /** The body of a Stripe event of `type` about `object`, under a fresh event id. */
  const stripeEvent = (type: string, object: Json): string =>
    JSON.stringify({
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
  /**
   * Delivers a Stripe event body to the edge, signed as Stripe signs it, under `secret` (the
   * endpoint's by default): `t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>" under the secret>`.
   */
  const deliverStripeEvent = (payload: string, secret = sut.stripe!.webhookSecret) => {
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex');
    return fetch(`${sut.baseUrl}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` },
      body: payload,
    });
  };
  /** Delivers a new Stripe event of `type` about `object`, signed with the endpoint's secret. */
  const sendStripeEvent = (type: string, object: Json) =>
    deliverStripeEvent(stripeEvent(type, object));
  const cartNow = async (cartId: string) =>
    json(await api('GET', `events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`));
  /** Leaves no held booking behind for the tests that count the partner's bookings. */
  const releaseCart = async (cartId: string) => {
    const released = await api(
      'DELETE',
      `events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect(released.status).toBe(204);
  };

  it('a signed payment_intent.payment_failed webhook sends a paid cart back to HELD, once', async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    const payload = stripeEvent('payment_intent.payment_failed', {
      id: paymentId,
      object: 'payment_intent',
      metadata: { marquee_cart: cartId },
    });

    const forged = await deliverStripeEvent(payload, 'whsec_not-the-endpoint-secret');
    expect(forged.status).toBe(400);
    expect((await cartNow(cartId)).cart.totals.unpaid).toBe(0);

    const delivered = await deliverStripeEvent(payload);
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toEqual({ received: true, duplicate: false });
    // The authorisation is gone: the cart is held again and owes its total.
    expect((await cartNow(cartId)).cart.totals.unpaid).toBe(unpaid);

    const replayed = await deliverStripeEvent(payload);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toEqual({ received: true, duplicate: true });
    await releaseCart(cartId);
  });

  it('a signed payment_intent.canceled webhook holds an authorised cart again without payment, once', async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    expect((await cartNow(cartId)).cart.totals.unpaid).toBe(0);
    // The authorisation was cancelled at Stripe (by an operator, or when it lapsed).
    const payload = stripeEvent('payment_intent.canceled', {
      id: paymentId,
      object: 'payment_intent',
      status: 'canceled',
      metadata: { marquee_cart: cartId },
    });

    const delivered = await deliverStripeEvent(payload);
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toEqual({ received: true, duplicate: false });
    // docs/payments.md: HELD again without a payment, the buyer pays again.
    const held = await cartNow(cartId);
    expect(held.cart.totals.unpaid).toBe(unpaid);
    // cart asked Stripe for nothing: the authorisation is cancelled already.
    expect(actionsOn(paymentId, 'cancel')).toEqual([]);
    expect(actionsOn(paymentId, 'capture')).toEqual([]);

    const replayed = await deliverStripeEvent(payload);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toEqual({ received: true, duplicate: true });
    expect(await cartNow(cartId)).toEqual(held);

    // The buyer pays again: a new authorisation, and the cart is paid once more.
    const repaid = await pay(cartId, unpaid, 'pm_card_visa');
    expect(repaid.status, JSON.stringify(await json(repaid.clone()))).toBe(200);
    expect((await cartNow(cartId)).cart.totals.unpaid).toBe(0);
    await releaseCart(cartId);
  });

  const adminOrder = async (orderId: string) => {
    const read = await admin('GET', `orders/${encodeURIComponent(orderId)}`);
    expect(read.status).toBe(200);
    return (await json(read)).order as Json;
  };
  /** A committed purchase: its order id, PaymentIntent id and amount in cents. */
  async function purchased(): Promise<{ orderId: string; paymentId: string; cents: number }> {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    const committed = await commit(cartId);
    const order = await json(committed);
    expect(committed.status, JSON.stringify(order)).toBe(200);
    return { orderId: order.order_id as string, paymentId, cents: Math.round(unpaid * 100) };
  }

  it('a refund made at Stripe (charge.refunded) is recorded on the order, once', async () => {
    const { orderId, paymentId, cents } = await purchased();
    expect((await adminOrder(orderId)).payment).toMatchObject({
      provider: 'stripe',
      paymentId,
      captured: { amountMinor: cents, currency: 'EUR' },
      refunds: [],
      disputed: false,
    });
    const part = Math.min(500, cents);
    const charge = {
      id: `ch_${randomBytes(6).toString('hex')}`,
      object: 'charge',
      payment_intent: paymentId,
      amount: cents,
      amount_refunded: part,
      refunds: {
        object: 'list',
        data: [{ id: 're_dashboard1', object: 'refund', amount: part, status: 'succeeded' }],
      },
    };
    const delivered = await sendStripeEvent('charge.refunded', charge);
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toEqual({ received: true, duplicate: false });
    const payment = (await adminOrder(orderId)).payment as Json;
    expect(payment.refunded).toEqual({ amountMinor: part, currency: 'EUR' });
    expect(payment.refunds).toEqual([
      expect.objectContaining({
        refundId: 're_dashboard1',
        amount: { amountMinor: part, currency: 'EUR' },
        status: 'succeeded',
        source: 'processor',
      }),
    ]);
    // The same refund in a later event of the charge changes nothing.
    expect((await sendStripeEvent('charge.refunded', charge)).status).toBe(200);
    expect(((await adminOrder(orderId)).payment as Json).refunds).toHaveLength(1);
    // Marquee itself sent no refund: this one was made at Stripe.
    expect(
      stripe
        .requests()
        .filter((r) => r.path === '/v1/refunds' && r.form.payment_intent === paymentId),
    ).toEqual([]);
  });

  it('a dispute (charge.dispute.created) cancels the order as reversed, refunding nothing', async () => {
    const { orderId, paymentId } = await purchased();
    const delivered = await sendStripeEvent('charge.dispute.created', {
      id: `dp_${randomBytes(6).toString('hex')}`,
      object: 'dispute',
      payment_intent: paymentId,
      reason: 'fraudulent',
      status: 'needs_response',
    });
    expect(delivered.status).toBe(200);
    const order = await adminOrder(orderId);
    expect(order.status).toBe('CANCELLED');
    expect(order.payment).toMatchObject({ disputed: true, refundPending: false, refunds: [] });
    // The issuer took the money back: a refund on top would pay the buyer twice.
    expect(
      stripe
        .requests()
        .filter((r) => r.path === '/v1/refunds' && r.form.payment_intent === paymentId),
    ).toEqual([]);
  });

  it('a release cancels the authorisation', async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    const released = await api(
      'DELETE',
      `events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect(released.status).toBe(204);
    await waitFor(() => intent(paymentId)?.status === 'canceled' || undefined, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: 'the authorisation to be cancelled',
    });
    expect(actionsOn(paymentId, 'cancel')[0]).toMatchObject({
      idempotencyKey: `void:${paymentId}`,
      status: 200,
    });
    expect(actionsOn(paymentId, 'capture')).toEqual([]);
  });

  it('a partner refusal at commit cancels the authorisation and captures nothing', async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    // The partner no longer has the hold: it refuses the order for good.
    await releaseAtPartner();
    const refused = await commit(cartId);
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatchObject({ code: '90003', http_code: 409 });
    await waitFor(() => intent(paymentId)?.status === 'canceled' || undefined, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: 'the authorisation to be cancelled',
    });
    expect(actionsOn(paymentId, 'capture')).toEqual([]);
    expect(actionsOn(paymentId, 'cancel')[0]?.idempotencyKey).toBe(`void:${paymentId}`);
  });

  it('a payment step retried after a lost answer sends the same idempotency key', async () => {
    const { cartId, unpaid } = await heldCart();
    // Stripe authorises, its answer is lost on the way back, twice (the SDK's own second try):
    // cart answers "not taken, retry".
    stripe.dropResponses('POST', '/v1/payment_intents', 2);
    const lost = await pay(cartId, unpaid, 'pm_card_visa');
    expect(lost.status).toBe(503);
    expect((await json(lost)).error).toMatchObject({ code: '20001' });

    const retried = await pay(cartId, unpaid, 'pm_card_visa');
    expect(retried.status).toBe(200);
    const [first, sdkRetry, clientRetry, ...more] = authorisationsOf(cartId);
    expect(more).toEqual([]);
    expect([first!.status, sdkRetry!.status, clientRetry!.status]).toEqual([0, 0, 200]);
    expect(sdkRetry!.idempotencyKey).toBe(first!.idempotencyKey);
    expect(clientRetry!.idempotencyKey).toBe(first!.idempotencyKey);
    // The retries found the first PaymentIntent: one authorisation, not three.
    expect([first, sdkRetry, clientRetry].map((r) => [r!.replayed, r!.intentId])).toEqual([
      [false, first!.intentId],
      [true, first!.intentId],
      [true, first!.intentId],
    ]);

    const committed = await commit(cartId);
    expect(committed.status).toBe(200);
    expect(actionsOn(first!.intentId!, 'capture')).toHaveLength(1);
  });

  it('a commit retried after a lost capture answer captures once, under the same key', async () => {
    const { cartId, unpaid } = await heldCart();
    const paymentId = await payWithVisa(cartId, unpaid);
    stripe.dropResponses('POST', `/v1/payment_intents/${paymentId}/capture`, 2);
    const lost = await commit(cartId);
    expect(lost.status).toBe(503);
    expect((await json(lost)).error).toMatchObject({ code: '20001' });

    const retried = await commit(cartId);
    const order = await json(retried);
    expect(retried.status, JSON.stringify(order)).toBe(200);
    expect(order).toMatchObject({ cart_id: cartId });
    const captures = actionsOn(paymentId, 'capture');
    // The first attempt (and the SDK's second try) lost, the commit's retry answered.
    expect(captures.map((c) => [c.idempotencyKey, c.status])).toEqual([
      [`capture:${paymentId}`, 0],
      [`capture:${paymentId}`, 0],
      [`capture:${paymentId}`, 200],
    ]);
    expect(captures[2]!.replayed).toBe(true);
    expect(intent(paymentId)).toMatchObject({
      status: 'succeeded',
      amountReceived: Math.round(unpaid * 100),
    });
  });

  it('answers 3-D Secure with payment_action; the same payment after it is authorised', async () => {
    const { cartId, unpaid } = await heldCart();
    const card = 'pm_card_authenticationRequired';
    const challenged = await pay(cartId, unpaid, card);
    expect(challenged.status).toBe(402);
    const { error } = await json(challenged);
    expect(error).toMatchObject({ code: '20122', http_code: 402 });
    expect(error.payment_action).toEqual({
      type: 'use_stripe_sdk',
      payment_id: expect.stringMatching(/^pi_/),
      client_secret: expect.stringMatching(/_secret_/),
    });
    const paymentId = error.payment_action.payment_id as string;
    expect(intent(paymentId)?.status).toBe('requires_action');
    const unpaidCart = await api(
      'GET',
      `events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect((await json(unpaidCart)).cart.payments).toEqual([]);

    // The cardholder passes the challenge in Stripe.js; the partner sends the same payment again.
    stripe.completeAuthentication(paymentId, true);
    const paid = await pay(cartId, unpaid, card);
    expect(paid.status).toBe(200);
    const attempts = authorisationsOf(cartId);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toMatchObject({
      idempotencyKey: attempts[0]!.idempotencyKey,
      replayed: true,
      intentId: paymentId,
    });
    const committed = await commit(cartId);
    expect(committed.status).toBe(200);
    expect(actionsOn(paymentId, 'capture')).toHaveLength(1);
    expect(intent(paymentId)?.status).toBe('succeeded');
  });

  it('refuses the sandbox nonce on a production cart, and nothing reaches Stripe', async () => {
    const { cartId, unpaid } = await heldCart();
    const before = stripe.requests().length;
    const refused = await pay(cartId, unpaid, 'fake-valid-nonce');
    expect(refused.status).toBe(400);
    const body = await json(refused);
    expect(body.error).toMatchObject({ code: '10002', http_code: 400 });
    expect(body.error.message).toMatch(/PaymentMethod/);
    expect(stripe.requests().slice(before)).toEqual([]);

    const read = await api('GET', `events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`);
    expect((await json(read)).cart.payments).toEqual([]);
  });
});
