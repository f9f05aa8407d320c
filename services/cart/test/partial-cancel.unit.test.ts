import { describe, expect, it } from 'vitest';
import type { CartApp } from '../src/app/index.js';
import { DEFAULT_FEES, ticketPrice } from '../src/domain/pricing.js';
import { boughtOrder as boughtOrderOf, stripeCartApp } from './support/stripe-cart.js';

// Partial cancels through the app, paid with the Stripe adapter over the in-memory fake (the
// amounts themselves: test/domain/partial-cancel.unit.test.ts).

/** A production cart app whose processor is the Stripe adapter over the in-memory fake. */
const setup = stripeCartApp;

/** A committed production order paid through the Stripe fake (three tickets by default). */
const boughtOrder = (app: CartApp, quantity = 3) => boughtOrderOf(app, quantity);

const shareOf = (face: number) => ticketPrice(face, DEFAULT_FEES).totalMinor;

describe('a partial cancel of a Stripe-paid order', () => {
  it("refunds the tickets' share once, however often the same request is retried", async () => {
    const { app, stripe, connector } = await setup();
    const { order } = await boughtOrder(app);
    const [t1] = order.tickets;
    const first = await app.cancelOrder(order.id, 'requested', 'fan asked', [t1!.ticketId]);
    const again = await app.cancelOrder(order.id, 'requested', 'fan asked', [t1!.ticketId]);
    expect(first.order.status).toBe('CONFIRMED');
    expect(first.partnerCancelQueued).toBe(false);
    expect(first.order.tickets.filter((t) => t.cancelledAt).map((t) => t.ticketId)).toEqual([
      t1!.ticketId,
    ]);
    expect(first.order.payment?.refunds).toMatchObject([
      { amountMinor: shareOf(t1!.faceValueMinor), source: 'cancel', ticketIds: [t1!.ticketId] },
    ]);
    expect(again.order.payment).toEqual(first.order.payment);
    expect(stripe.refundsById.size).toBe(1);
    expect(new Set(stripe.keys('refunds.create'))).toEqual(
      new Set([`refund:order:${order.id}:${t1!.ticketId}`]),
    );
    // The partner was asked once: the repeat is answered from the order.
    expect(connector.calls.cancelTickets).toBe(1);
    expect([...connector.cancelledTickets]).toEqual([t1!.ticketId]);
  });

  it('two partial cancels, then the last ticket refunds the rest and cancels the order', async () => {
    const { app, stripe } = await setup();
    const { order, unpaid } = await boughtOrder(app);
    const [t1, t2, t3] = order.tickets.map((t) => t.ticketId);
    await app.cancelOrder(order.id, 'requested', '', [t1!]);
    const second = await app.cancelOrder(order.id, 'requested', '', [t2!]);
    expect(second.order.status).toBe('CONFIRMED');
    const last = await app.cancelOrder(order.id, 'requested', '', [t3!]);
    expect(last.order.status).toBe('CANCELLED');
    const refunds = last.order.payment!.refunds;
    expect(refunds.map((r) => r.ticketIds)).toEqual([[t1], [t2], [t3]]);
    const share = shareOf(order.tickets[0]!.faceValueMinor);
    expect(refunds[0]?.amountMinor).toBe(share);
    expect(refunds[1]?.amountMinor).toBe(share);
    // The last one carries the processing fee and its tax (and any delivery).
    expect(refunds[2]?.amountMinor).toBe(unpaid - 2 * share);
    expect(last.order.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.refundsById.size).toBe(3);
    // A whole cancel of the cancelled order changes nothing more.
    const whole = await app.cancelOrder(order.id, 'requested', '');
    expect(whole.order.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.refundsById.size).toBe(3);
  });

  it('a whole cancel after a partial one refunds what is left, under order:<id>', async () => {
    const { app, stripe } = await setup();
    const { order, unpaid } = await boughtOrder(app);
    await app.cancelOrder(order.id, 'requested', '', [order.tickets[0]!.ticketId]);
    const whole = await app.cancelOrder(order.id, 'requested', '');
    expect(whole.order.status).toBe('CANCELLED');
    expect(whole.order.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.keys('refunds.create')).toContain(`refund:order:${order.id}`);
  });

  it('keeps every partial refund owed through an outage, and the sweeper pays each once', async () => {
    const { app, stripe, storage, advance } = await setup();
    const { order } = await boughtOrder(app);
    const [t1, t2] = order.tickets.map((t) => t.ticketId);
    stripe.outage = true;
    await app.cancelOrder(order.id, 'requested', '', [t1!]);
    await app.cancelOrder(order.id, 'requested', '', [t2!]);
    const owing = await storage.orders.get(order.id);
    expect(owing?.refundsOwed?.map((o) => o.ticketIds)).toEqual([[t1], [t2]]);
    stripe.outage = false;
    advance(1_000);
    await app.sweep();
    await app.sweep();
    const paid = await storage.orders.get(order.id);
    expect(paid?.refundsOwed).toBeUndefined();
    expect(paid?.refundDueAt).toBeUndefined();
    expect(paid?.payment?.refunds.map((r) => r.ticketIds)).toEqual([[t1], [t2]]);
    expect(stripe.refundsById.size).toBe(2);
  });

  it('is refused before anything is written when the partner cancels whole orders only (310)', async () => {
    const { app, stripe, storage, connector } = await setup();
    const { order } = await boughtOrder(app);
    connector.wholeOrdersOnly = true;
    await expect(
      app.cancelOrder(order.id, 'requested', '', [order.tickets[0]!.ticketId]),
    ).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringContaining('cancels whole orders only'),
      details: expect.objectContaining({ partial_cancel_unsupported: true }),
    });
    const stored = await storage.orders.get(order.id);
    expect(stored?.tickets.some((t) => t.cancelledAt)).toBe(false);
    expect(stored?.refundsOwed).toBeUndefined();
    expect(stored?.ticketCancelPending).toBeUndefined();
    expect(stored?.ticketCancelDueAt).toBeUndefined();
    expect(stripe.refundsById.size).toBe(0);
  });

  it('refuses unknown tickets and a ticket cancelled by another request, asking no partner', async () => {
    const { app, connector } = await setup();
    const { order } = await boughtOrder(app);
    await expect(app.cancelOrder(order.id, 'requested', '', ['nope'])).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    const [t1, t2] = order.tickets.map((t) => t.ticketId);
    await app.cancelOrder(order.id, 'requested', '', [t1!]);
    await expect(app.cancelOrder(order.id, 'requested', '', [t1!, t2!])).rejects.toMatchObject({
      kind: 'failed_precondition',
    });
    expect(connector.calls.cancelTickets).toBe(1);
  });
});
