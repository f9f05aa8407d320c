import { describe, expect, it } from 'vitest';
import { createStripeProcessor } from '../src/adapters/stripe-processor.js';
import type { CartApp } from '../src/app/index.js';
import { ABANDONED_CHECK_DELAY_MS } from '../src/app/commands/sweep-abandoned.js';
import { EVENT_ID } from './support/events.js';
import {
  adult,
  billing,
  boughtOrder as boughtOrderOf,
  stripeCartApp,
  stripeOwner,
} from './support/stripe-cart.js';

const owner = stripeOwner;

/** A production cart app whose processor is the Stripe adapter over the in-memory fake. */
async function setup() {
  const { app, stripe, storage, advance } = await stripeCartApp();
  return { app, stripe, storage, advance, processor: createStripeProcessor(stripe) };
}

/** A committed production order of two tickets paid through the Stripe fake. */
const boughtOrder = (app: CartApp) => boughtOrderOf(app, 2);

describe('a production cart paid through the Stripe adapter', () => {
  it('authorises at payment and captures at commit, once', async () => {
    const { app, stripe } = await setup();
    const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    const unpaid = view.priced.totals.unpaid;
    const paid = await app.addPayment(owner, view.cart.id, billing(unpaid, 'pm_card_visa'));
    expect(paid.cart.payment).toMatchObject({
      paymentId: 'pi_fake_1',
      issuer: 'VISA',
      maskedNumber: '************4242',
    });
    expect(stripe.intents.get('pi_fake_1')).toMatchObject({
      amount: unpaid,
      currency: 'gbp',
      capture_method: 'manual',
      status: 'requires_capture',
    });
    expect(JSON.stringify(paid.cart)).not.toContain('pm_card_visa');
    const { order } = await app.commit(owner, view.cart.id);
    await app.commit(owner, view.cart.id);
    expect(stripe.state('pi_fake_1')).toBe('captured');
    expect(order.payment).toEqual({
      provider: 'stripe',
      paymentId: 'pi_fake_1',
      authorizedMinor: unpaid,
      capturedMinor: unpaid,
      refundedMinor: 0,
      refunds: [],
    });
    expect(stripe.keys('paymentIntents.capture')).toEqual(['capture:pi_fake_1']);
  });

  it('refuses the sandbox test nonce: no money, no order', async () => {
    const { app, stripe } = await setup();
    const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    await expect(
      app.addPayment(owner, view.cart.id, billing(view.priced.totals.unpaid, 'fake-valid-nonce')),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: { reason: '10002', field: 'card.number' },
    });
    expect(stripe.requests).toHaveLength(0);
    expect((await app.get(owner, view.cart.id)).cart.status).toBe('HELD');
  });

  it('answers 3-D Secure with payment_action and takes the same payment after it', async () => {
    const { app, stripe } = await setup();
    const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    const pay = () =>
      app.addPayment(
        owner,
        view.cart.id,
        billing(view.priced.totals.unpaid, 'pm_card_authenticationRequired'),
      );
    await expect(pay()).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: {
        reason: '20122',
        payment_action: {
          type: 'use_stripe_sdk',
          payment_id: 'pi_fake_1',
          client_secret: 'pi_fake_1_secret_fake',
        },
      },
    });
    expect((await app.get(owner, view.cart.id)).cart.status).toBe('HELD');
    stripe.authenticate('pi_fake_1', true);
    const paid = await pay();
    expect(paid.cart.status).toBe('PAID');
    expect(paid.cart.payment?.paymentId).toBe('pi_fake_1');
    expect(stripe.intents.size).toBe(1);
  });

  it('a release of a paid cart voids the authorisation', async () => {
    const { app, stripe } = await setup();
    const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    await app.addPayment(owner, view.cart.id, billing(view.priced.totals.unpaid, 'pm_card_visa'));
    await app.release(owner, view.cart.id);
    expect(stripe.state('pi_fake_1')).toBe('voided');
  });

  it('cancelling an order refunds the capture once, under a key derived from the order', async () => {
    const { app, stripe, storage } = await setup();
    const { order, unpaid } = await boughtOrder(app);
    const first = await app.cancelOrder(order.id, 'requested', 'buyer asked');
    await app.cancelOrder(order.id, 'requested', 'again');
    expect(stripe.keys('refunds.create')).toEqual([`refund:order:${order.id}`]);
    expect([...stripe.refundsById.values()].map((r) => r.amount)).toEqual([unpaid]);
    expect(first.order.payment).toMatchObject({
      provider: 'stripe',
      capturedMinor: unpaid,
      refundedMinor: unpaid,
      refunds: [
        { refundId: 're_fake_2', amountMinor: unpaid, status: 'succeeded', source: 'cancel' },
      ],
    });
    const stored = await storage.orders.get(order.id);
    expect(stored?.refundsOwed).toBeUndefined();
    expect(stored?.refundDueAt).toBeUndefined();
  });

  it('a refund Stripe could not take stays owed and the sweeper pays it, once', async () => {
    const { app, stripe, storage, advance } = await setup();
    const { order, unpaid } = await boughtOrder(app);
    stripe.outage = true;
    const { order: cancelled } = await app.cancelOrder(order.id, 'event-cancelled', 'called off');
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.payment?.refunds).toEqual([]);
    expect((await storage.orders.get(order.id))?.refundsOwed?.[0]).toEqual({
      key: `order:${order.id}`,
      amountMinor: unpaid,
      ticketIds: [],
    });
    // Still down: the sweeper leaves it owed.
    advance(1_000);
    await app.sweep();
    expect(stripe.refundsById.size).toBe(0);
    stripe.outage = false;
    advance(1_000);
    await app.sweep();
    await app.sweep();
    const paid = await storage.orders.get(order.id);
    expect(paid?.refundsOwed).toBeUndefined();
    expect(paid?.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.refundsById.size).toBe(1);
    expect(new Set(stripe.keys('refunds.create'))).toEqual(new Set([`refund:order:${order.id}`]));
  });

  it('a cancel for a reversed payment (dispute) refunds nothing', async () => {
    const { app, stripe } = await setup();
    const { order } = await boughtOrder(app);
    const { order: cancelled } = await app.cancelOrder(order.id, 'payment-reversed', 'dispute');
    expect(cancelled.refundsOwed).toBeUndefined();
    expect(stripe.keys('refunds.create')).toEqual([]);
  });

  it('voids an authorisation a crash kept off the cart, once the cart ended', async () => {
    const { app, stripe, storage, advance, processor } = await setup();
    const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    const unpaid = view.priced.totals.unpaid;
    // The payment step's first two steps, then the process died: the cart never learnt of it.
    await storage.attempts.record(view.cart.id, new Date('2030-06-01T12:00:00Z'));
    const stored = await storage.carts.get(view.cart.id);
    const left = await processor.authorize({
      reference: `${view.cart.id}:${stored!.version}`,
      cartId: view.cart.id,
      amountMinor: unpaid,
      currency: 'GBP',
      nonce: 'pm_card_visa',
      cin: '',
      expireMonth: 12,
      expireYear: 2032,
    });
    if (left.status !== 'authorized') throw new Error('not authorised');
    // While the cart lives, and until the search delay after it ended, nothing is voided.
    await app.sweep();
    await app.release(owner, view.cart.id);
    await app.sweep();
    expect(stripe.state(left.paymentId)).toBe('authorized');
    // The check was put off to the end of the hold seen while the cart lived, plus the delay.
    advance(view.cart.expiresAt!.getTime() - Date.parse('2030-06-01T12:00:00Z'));
    advance(ABANDONED_CHECK_DELAY_MS + 1);
    await app.sweep();
    expect(stripe.state(left.paymentId)).toBe('voided');
    const cancels = stripe.keys('paymentIntents.cancel').length;
    advance(ABANDONED_CHECK_DELAY_MS + 1);
    await app.sweep();
    expect(stripe.keys('paymentIntents.cancel')).toHaveLength(cancels);
    expect(await storage.attempts.findDue(new Date('2031-01-01T00:00:00Z'), 10)).toEqual([]);
  });

  it('leaves the captured payment of a committed cart alone', async () => {
    const { app, stripe, advance } = await setup();
    const { order } = await boughtOrder(app);
    advance(ABANDONED_CHECK_DELAY_MS + 1);
    await app.sweep();
    expect(stripe.state(order.paymentId)).toBe('captured');
    expect(stripe.keys('paymentIntents.search')).toHaveLength(1);
    expect(stripe.keys('paymentIntents.cancel')).toEqual([]);
  });
});
