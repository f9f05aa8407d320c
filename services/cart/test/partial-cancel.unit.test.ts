import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { randomIds } from '../src/adapters/ids.js';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { createSecretBox, sha256Hasher } from '../src/adapters/secret-box.js';
import { createCartStorage } from '../src/adapters/stores.js';
import { createStripeProcessor } from '../src/adapters/stripe-processor.js';
import { CartApp, type BillingInput } from '../src/app/index.js';
import { DEFAULT_FEES, ticketPrice } from '../src/domain/pricing.js';
import { EventProjectionStore } from '../src/events/store.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';
import { FakeStripe } from './support/stripe-fake.js';

// Partial cancels through the app, paid with the Stripe adapter over the in-memory fake (the
// amounts themselves: test/domain/partial-cancel.unit.test.ts).

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const owner = { appId: 'app-1', sandbox: false, channel: 'partner-cart' as const };
const adult = (quantity: number) => ({ tickets: [{ priceTypeId: '000001', quantity }] });

/** A production cart app whose processor is the Stripe adapter over the in-memory fake. */
async function setup() {
  let at = new Date('2030-06-01T12:00:00Z').getTime();
  const now = () => new Date(at);
  const advance = (ms: number) => {
    at += ms;
  };
  const stores = createServiceStores(undefined);
  const storage = createCartStorage(stores, { sandboxAreaCapacity: 100 });
  const projection = new EventProjectionStore(storage.events, now);
  await projection.applyEvent(partnerEvent({}));
  await projection.applyAvailability(availability(1, [area({ available: 5, unavailable: 0 })]));
  const stripe = new FakeStripe();
  const connector = new FakeConnector(10, now);
  const app = new CartApp({
    ...storage,
    events: projection,
    connector,
    processor: createStripeProcessor(stripe),
    sandboxProcessor: createSandboxProcessor({ timeoutMs: 5 }),
    secrets: createSecretBox(randomBytes(32)),
    ids: randomIds,
    hasher: sha256Hasher,
    clock: { now },
    log: silent,
    settings: {
      reserveWaitMs: 2_000,
      pollAfterSeconds: 1,
      reserveAttempts: 2,
      reserveRetryMs: 1,
      pendingStaleMs: 30_000,
      owedRetryMs: 0,
      commitGraceMs: 60_000,
      sandboxHoldSeconds: 600,
      fees: DEFAULT_FEES,
      maintenance: undefined,
      trackingWindowMs: 60_000,
      termsUrl: 'https://example.test/terms',
      secureEntryAgreementUrl: 'https://example.test/secure',
      redemptionBaseUrl: 'https://example.test/orders/',
    },
  });
  return { app, stripe, storage, advance, connector };
}

/** A committed production order paid through the Stripe fake. */
async function boughtOrder(app: CartApp, quantity = 3) {
  const view = await app.reserve({ owner, eventId: EVENT_ID, requests: [adult(quantity)] });
  const unpaid = view.priced.totals.unpaid;
  await app.addPayment(owner, view.cart.id, billing(unpaid, 'pm_card_visa'));
  const { order } = await app.commit(owner, view.cart.id);
  return { order, unpaid };
}

const billing = (amountMinor: number, nonce: string): BillingInput => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  type: 'CC',
  reference: 'ref',
  countryCode: 'GB',
  amountMinor,
  currency: 'GBP',
  cardNonce: nonce,
  cin: '',
  expireMonth: 12,
  expireYear: 2032,
  thirdPartyAccountId: 'fan-1',
});

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
    expect(stripe.refundsById.size).toBe(0);
  });

  it('is refused as unavailable, nothing written, while the partner is down', async () => {
    const { app, stripe, storage, connector } = await setup();
    const { order } = await boughtOrder(app);
    connector.down = true;
    await expect(
      app.cancelOrder(order.id, 'requested', '', [order.tickets[0]!.ticketId]),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await storage.orders.get(order.id))?.ticketCancels).toBeUndefined();
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
