import { describe, expect, it } from 'vitest';
import { withTicketCancelPending } from '../src/domain/partial-cancel.js';
import { DEFAULT_FEES, ticketPrice } from '../src/domain/pricing.js';
import { boughtOrder, stripeCartApp } from './support/stripe-cart.js';

// A partial cancel is recorded on the order before the partner is asked, so that one the partner
// took while its answer or cart's write was lost is finished by the sweeper (the default first
// pause before it asks again is 15 s, doubling while the partner does not answer).

const FIRST_PAUSE_MS = 15_000;
const shareOf = (face: number) => ticketPrice(face, DEFAULT_FEES).totalMinor;

describe('a partial cancel the partner did not answer', () => {
  it('stays pending with its tickets valid, and the sweeper finishes it once the partner is back', async () => {
    const { app, stripe, storage, connector, advance } = await stripeCartApp();
    const { order } = await boughtOrder(app, 3);
    const t1 = order.tickets[0]!;
    connector.down = true;
    const answer = await app.cancelOrder(order.id, 'requested', 'fan asked', [t1.ticketId]);
    expect(answer.partnerCancelQueued).toBe(true);
    expect(answer.order.tickets.some((t) => t.cancelledAt)).toBe(false);
    const pending = await storage.orders.get(order.id);
    expect(pending?.ticketCancelPending).toMatchObject({
      ticketIds: [t1.ticketId],
      reason: 'requested',
      detail: 'fan asked',
      attempts: 1,
      lastError: expect.stringContaining('partner down'),
    });
    expect(stripe.refundsById.size).toBe(0);

    // Not due yet: the sweeper leaves it.
    await app.sweep();
    expect(connector.calls.cancelTickets).toBe(1);

    connector.down = false;
    advance(2 * FIRST_PAUSE_MS);
    await app.sweep();
    expect(connector.calls.cancelTickets).toBe(2);
    const done = await storage.orders.get(order.id);
    expect(done?.ticketCancelPending).toBeUndefined();
    expect(done?.ticketCancelDueAt).toBeUndefined();
    expect(done?.tickets.filter((t) => t.cancelledAt).map((t) => t.ticketId)).toEqual([
      t1.ticketId,
    ]);
    expect(done?.ticketCancels?.[0]).toMatchObject({ reason: 'requested', detail: 'fan asked' });
    expect(done?.payment?.refunds).toMatchObject([
      { amountMinor: shareOf(t1.faceValueMinor), ticketIds: [t1.ticketId] },
    ]);
    expect(stripe.refundsById.size).toBe(1);
  });

  it('the partner took it but its answer was lost: asked again and the tickets marked', async () => {
    const { app, storage, connector, advance } = await stripeCartApp();
    const { order } = await boughtOrder(app, 2);
    const t1 = order.tickets[0]!.ticketId;
    connector.loseCancelAnswers = true;
    const answer = await app.cancelOrder(order.id, 'requested', '', [t1]);
    expect(answer.partnerCancelQueued).toBe(true);
    // The partner freed the seat; the ticket still reads valid until the sweeper's pass.
    expect(connector.cancelledTickets.has(t1)).toBe(true);
    connector.loseCancelAnswers = false;
    advance(2 * FIRST_PAUSE_MS);
    await app.sweep();
    const done = await storage.orders.get(order.id);
    expect(done?.tickets.find((t) => t.ticketId === t1)?.cancelledAt).toBeInstanceOf(Date);
    expect(done?.ticketCancelPending).toBeUndefined();
  });

  it('the last tickets taken but the answer lost: the partner answers the repeat 315, taken as done', async () => {
    const { app, stripe, storage, connector, advance } = await stripeCartApp();
    const { order, unpaid } = await boughtOrder(app, 1);
    const only = order.tickets[0]!.ticketId;
    connector.loseCancelAnswers = true;
    expect((await app.cancelOrder(order.id, 'requested', '', [only])).partnerCancelQueued).toBe(
      true,
    );
    // The partner cancelled its whole order with the last ticket: a repeat is answered 315.
    connector.loseCancelAnswers = false;
    connector.orderCancelled = true;
    advance(2 * FIRST_PAUSE_MS);
    await app.sweep();
    const done = await storage.orders.get(order.id);
    expect(done?.status).toBe('CANCELLED');
    expect(done?.ticketCancelPending).toBeUndefined();
    expect(done?.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.refundsById.size).toBe(1);
  });

  it('a process that died after recording it: the sweeper asks the partner and finishes it', async () => {
    const { app, stripe, storage, connector, advance } = await stripeCartApp();
    const { order } = await boughtOrder(app, 2);
    const t2 = order.tickets[1]!.ticketId;
    // What the cancel wrote before it asked the partner, and nothing after (the process died).
    const stored = (await storage.orders.get(order.id))!;
    const { version, ...current } = stored;
    const now = new Date(current.confirmedAt.getTime() + 1_000);
    await storage.orders.updateTicketCancelPending(
      withTicketCancelPending(current, [t2], {
        reason: 'requested',
        detail: '',
        now,
        dueAt: new Date(now.getTime() + FIRST_PAUSE_MS),
      }),
      version,
    );
    advance(FIRST_PAUSE_MS + 1_000);
    await app.sweep();
    expect(connector.calls.cancelTickets).toBe(1);
    expect([...connector.cancelledTickets]).toEqual([t2]);
    const done = await storage.orders.get(order.id);
    expect(done?.tickets.find((t) => t.ticketId === t2)?.cancelledAt).toBeInstanceOf(Date);
    expect(done?.ticketCancelPending).toBeUndefined();
    expect(stripe.refundsById.size).toBe(1);
  });

  it("a refusal on the sweeper's ask clears it and marks nothing", async () => {
    const { app, storage, connector, advance } = await stripeCartApp();
    const { order } = await boughtOrder(app, 2);
    connector.down = true;
    await app.cancelOrder(order.id, 'requested', '', [order.tickets[0]!.ticketId]);
    connector.down = false;
    connector.wholeOrdersOnly = true;
    advance(2 * FIRST_PAUSE_MS);
    await app.sweep();
    const after = await storage.orders.get(order.id);
    expect(after?.ticketCancelPending).toBeUndefined();
    expect(after?.ticketCancelDueAt).toBeUndefined();
    expect(after?.tickets.some((t) => t.cancelledAt)).toBe(false);
    expect(after?.refundsOwed).toBeUndefined();
  });

  it('refuses a cancel of other tickets while one is pending; the same one again stays pending', async () => {
    const { app, connector } = await stripeCartApp();
    const { order } = await boughtOrder(app, 3);
    const [t1, t2] = order.tickets.map((t) => t.ticketId);
    connector.down = true;
    await app.cancelOrder(order.id, 'requested', '', [t1!]);
    await expect(app.cancelOrder(order.id, 'requested', '', [t2!])).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: expect.objectContaining({ pending_ticket_ids: [t1] }),
    });
    const again = await app.cancelOrder(order.id, 'requested', '', [t1!]);
    expect(again.partnerCancelQueued).toBe(true);
    // The partner is back: the operator's repeat finishes it at once.
    connector.down = false;
    const done = await app.cancelOrder(order.id, 'requested', '', [t1!]);
    expect(done.partnerCancelQueued).toBe(false);
    expect(done.order.tickets.find((t) => t.ticketId === t1)?.cancelledAt).toBeInstanceOf(Date);
  });

  it('a whole cancel meanwhile refunds everything, and the sweeper drops the pending one', async () => {
    const { app, stripe, storage, connector, advance } = await stripeCartApp();
    const { order, unpaid } = await boughtOrder(app, 2);
    connector.down = true;
    await app.cancelOrder(order.id, 'requested', '', [order.tickets[0]!.ticketId]);
    const whole = await app.cancelOrder(order.id, 'requested', '');
    expect(whole.order.status).toBe('CANCELLED');
    connector.down = false;
    advance(2 * FIRST_PAUSE_MS);
    await app.sweep();
    const after = await storage.orders.get(order.id);
    expect(after?.ticketCancelPending).toBeUndefined();
    expect(after?.payment?.refundedMinor).toBe(unpaid);
    expect(stripe.refundsById.size).toBe(1);
    // The partner was not asked for the partial cancel again: the whole cancel covers it.
    expect(connector.calls.cancelTickets).toBe(1);
  });
});

describe('refunds the processor refuses', () => {
  it('keeps every refusal on the order for an operator', async () => {
    const { app, stripe, storage } = await stripeCartApp();
    const { order, unpaid } = await boughtOrder(app, 3);
    const [t1, t2] = order.tickets.map((t) => t.ticketId);
    // Refunded in full at the processor (its dashboard): every later refund is refused.
    await stripe.refunds.create({ payment_intent: order.paymentId, amount: unpaid });
    await app.cancelOrder(order.id, 'requested', '', [t1!]);
    await app.cancelOrder(order.id, 'requested', '', [t2!]);
    const after = await storage.orders.get(order.id);
    expect(after?.refundsRefused?.map((r) => r.key)).toEqual([
      `order:${order.id}:${t1}`,
      `order:${order.id}:${t2}`,
    ]);
    expect(after?.refundsOwed).toBeUndefined();
  });
});
