import { describe, expect, it } from 'vitest';
import { type BillingInput } from '../src/app/index.js';
import { EVENT_ID } from './support/events.js';
import { stripeCartApp } from './support/stripe-cart.js';

const owner = { appId: 'app-1', sandbox: false, channel: 'partner-cart' as const };

/** A production cart app paying through the Stripe adapter over the in-memory fake. */
async function setup() {
  const { app, stripe, storage } = await stripeCartApp();
  const paid = async () => {
    const view = await app.reserve({
      owner,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: '000001', quantity: 2 }] }],
    });
    const billing: BillingInput = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.test',
      type: 'CC',
      reference: 'ref',
      countryCode: 'GB',
      amountMinor: view.priced.totals.unpaid,
      currency: 'GBP',
      cardNonce: 'pm_card_visa',
      cin: '',
      expireMonth: 12,
      expireYear: 2032,
      thirdPartyAccountId: 'fan-1',
    };
    const cart = (await app.addPayment(owner, view.cart.id, billing)).cart;
    return { cart, intent: stripe.intents.get(cart.payment!.paymentId)! };
  };
  const bought = async () => {
    const { cart, intent } = await paid();
    const { order } = await app.commit(owner, cart.id);
    return { order, intent };
  };
  return { app, stripe, storage, paid, bought };
}

const asObject = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

describe('Stripe webhook events in cart', () => {
  it('acts on an event id once: a replay is a no-op', async () => {
    const { app, storage, paid } = await setup();
    const { cart, intent } = await paid();
    const event = {
      eventId: 'evt_1',
      type: 'payment_intent.canceled',
      object: asObject({ ...intent, status: 'canceled' }),
    };
    expect(await app.handleStripeEvent(event)).toBe('payment-lost');
    const after = await storage.carts.get(cart.id);
    // The buyer pays again: the cart is PAID anew...
    await storage.carts.modify(cart.id, (c) => ({ ...c, status: 'PAID', payment: cart.payment }));
    // ...and the same event delivered again changes nothing.
    expect(await app.handleStripeEvent(event)).toBe('duplicate');
    expect((await storage.carts.get(cart.id))?.status).toBe('PAID');
    expect(after?.status).toBe('HELD');
  });

  it('payment_intent.canceled: a paid cart whose authorisation went is held again, unpaid', async () => {
    const { app, storage, paid } = await setup();
    const { cart, intent } = await paid();
    const outcome = await app.handleStripeEvent({
      eventId: 'evt_canceled',
      type: 'payment_intent.canceled',
      object: asObject({ ...intent, status: 'canceled' }),
    });
    expect(outcome).toBe('payment-lost');
    const held = await storage.carts.get(cart.id);
    expect(held).toMatchObject({ status: 'HELD', voidOwed: false });
    expect(held?.payment).toBeUndefined();
  });

  it('payment_intent.payment_failed: a paid cart is held again; an unpaid or other cart is not touched', async () => {
    const { app, storage, paid } = await setup();
    const { cart, intent } = await paid();
    const failed = (eventId: string, id: string) =>
      app.handleStripeEvent({
        eventId,
        type: 'payment_intent.payment_failed',
        object: asObject({ ...intent, id, status: 'requires_payment_method' }),
      });
    expect(await failed('evt_other', 'pi_someone_else')).toBe('ignored');
    expect((await storage.carts.get(cart.id))?.status).toBe('PAID');
    expect(await failed('evt_failed', intent.id)).toBe('payment-lost');
    expect((await storage.carts.get(cart.id))?.status).toBe('HELD');
  });

  it('charge.refunded: a refund made in the dashboard is recorded on the order, once', async () => {
    const { app, stripe, storage, bought } = await setup();
    const { order, intent } = await bought();
    // Made at Stripe, not by cart.
    const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 1_000 });
    const charge = {
      id: 'ch_1',
      object: 'charge',
      payment_intent: intent.id,
      amount_refunded: 1_000,
      refunds: { object: 'list', data: [refund] },
    };
    const event = { eventId: 'evt_refunded', type: 'charge.refunded', object: asObject(charge) };
    expect(await app.handleStripeEvent(event)).toBe('refund-recorded');
    expect(await app.handleStripeEvent({ ...event, eventId: 'evt_again' })).toBe('ignored');
    const stored = await storage.orders.get(order.id);
    expect(stored?.status).toBe('CONFIRMED');
    expect(stored?.payment).toMatchObject({
      refundedMinor: 1_000,
      refunds: [{ refundId: refund.id, amountMinor: 1_000, source: 'processor' }],
    });
  });

  it("charge.refunded for cart's own cancel refund adds nothing", async () => {
    const { app, stripe, storage, bought } = await setup();
    const { order, intent } = await bought();
    await app.cancelOrder(order.id, 'requested', 'asked');
    const refunds = [...stripe.refundsById.values()];
    const outcome = await app.handleStripeEvent({
      eventId: 'evt_own',
      type: 'charge.refunded',
      object: asObject({
        payment_intent: intent.id,
        amount_refunded: refunds[0]!.amount,
        refunds: { data: refunds },
      }),
    });
    expect(outcome).toBe('ignored');
    expect((await storage.orders.get(order.id))?.payment?.refunds).toMatchObject([
      { source: 'cancel' },
    ]);
  });

  it('charge.dispute.created: flags the order and cancels it without a refund', async () => {
    const { app, stripe, storage, bought } = await setup();
    const { order, intent } = await bought();
    const outcome = await app.handleStripeEvent({
      eventId: 'evt_dispute',
      type: 'charge.dispute.created',
      object: { id: 'dp_1', object: 'dispute', payment_intent: intent.id, reason: 'fraudulent' },
    });
    expect(outcome).toBe('dispute-recorded');
    const stored = await storage.orders.get(order.id);
    expect(stored).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'payment-reversed',
      payment: { dispute: { disputeId: 'dp_1', reason: 'fraudulent' } },
    });
    expect(stored?.refundsOwed).toBeUndefined();
    expect(stripe.keys('refunds.create')).toEqual([]);
  });

  it('ignores event types it does not act on, and events about unknown payments', async () => {
    const { app } = await setup();
    expect(
      await app.handleStripeEvent({ eventId: 'evt_x', type: 'customer.created', object: {} }),
    ).toBe('ignored');
    expect(
      await app.handleStripeEvent({
        eventId: 'evt_y',
        type: 'charge.dispute.created',
        object: { id: 'dp_2', payment_intent: 'pi_unknown' },
      }),
    ).toBe('ignored');
  });
});
