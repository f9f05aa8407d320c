import type { ServiceStores } from '@marquee/platform/store';
import { beforeEach, expect, it } from 'vitest';
import type { ReconcilerStorage } from '../src/adapters/stores.js';
import type { ReconcilerApp } from '../src/app/reconciler-app.js';
import { FakeConnector, GRACE, ManualClock, testReconciler, unavailable } from './fakes.js';

const DAY = 24 * 3_600_000;
/** The retention of these tests: 30 days. */
export const RETENTION = 30 * DAY;

/**
 * The purge of settled transactions, on the empty stores `freshStores` gives for each test (memory
 * for the unit tier, a database of its own on the Mongo-wire server for the integration tier).
 */
export function purgeSuite(freshStores: () => ServiceStores) {
  const start = new Date('2030-03-01T12:00:00Z');
  let time: ManualClock;
  const advance = (ms: number) => time.advance(ms);
  let connector: FakeConnector;
  let storage: ReconcilerStorage;
  let sut: ReconcilerApp;

  beforeEach(() => {
    time = new ManualClock(start);
    connector = new FakeConnector();
    ({ storage, app: sut } = testReconciler(connector, time.now, {
      stores: freshStores(),
      settings: { retentionMs: RETENTION },
    }));
  });

  const cart = (name: string) => `cart-${name}`;
  const held = (name: string) =>
    sut.recordBookingHeld({
      kind: 'booking-held',
      cartId: cart(name),
      eventId: 'ev-1',
      partnerId: 'p-1',
      inventoryToken: `tok-${cart(name)}`,
      heldAt: time.current,
      expiresAt: new Date(time.current.getTime() + 15 * 60_000),
    });
  const confirmed = (name: string, payment?: { capturedMinor: number }) =>
    sut.recordOrderConfirmed({
      kind: 'order-confirmed',
      orderId: `ord-${cart(name)}`,
      cartId: cart(name),
      eventId: 'ev-1',
      partnerId: 'p-1',
      inventoryToken: `tok-${cart(name)}`,
      inventoryOrderId: `inv-${cart(name)}`,
      confirmedAt: time.current,
      ...(payment
        ? {
            payment: {
              provider: 'stripe',
              paymentId: `pi_${cart(name)}`,
              currency: 'GBP',
              capturedMinor: payment.capturedMinor,
            },
            grandMinor: 10_000,
          }
        : {}),
    });
  const exists = async (name: string) => (await storage.transactions.get(cart(name))) !== undefined;
  const purge = (pass?: { batch?: number; pages?: number }) => sut.purgeSettledTransactions(pass);

  it('deletes a paid transaction once its latest fact is older than the retention', async () => {
    await held('paid');
    await confirmed('paid');
    advance(RETENTION - 60_000);
    await held('recent');
    await confirmed('recent');
    advance(60_001);

    await purge();

    expect(await exists('paid')).toBe(false);
    expect(await exists('recent')).toBe(true);
  });

  it('keeps an ended hold the partner was never asked about, deletes it once checked', async () => {
    await held('ended');
    advance(RETENTION + 1);

    await purge();
    expect(await exists('ended')).toBe(true);

    connector.orders = [
      {
        partnerId: 'p-1',
        eventId: 'ev-1',
        inventoryToken: `tok-${cart('ended')}`,
        status: 'EXPIRED',
        cartId: cart('ended'),
        createdAt: start,
        updatedAt: start,
      },
    ];
    await sut.sweepStaleBookings();
    await purge();
    expect(await exists('ended')).toBe(false);
  });

  it('keeps a transaction while its case is open, and keeps the decided case after', async () => {
    await sut.recordPartnerCallFailed({
      kind: 'partner-call-failed',
      operation: 'CREATE_BOOKING',
      outcomeUnknown: true,
      message: 'timeout',
      cartId: cart('doubt'),
      eventId: 'ev-1',
      partnerId: 'p-1',
      failedAt: time.current,
    });
    advance(GRACE + 1);
    connector.failure = unavailable();
    await sut.resolveDueCases();
    advance(RETENTION);

    await purge();
    expect(await exists('doubt')).toBe(true);

    connector.failure = undefined;
    await sut.resolveDueCases();
    expect((await sut.getCase(`rc-${cart('doubt')}`)).open).toBe(false);
    await purge();
    expect(await exists('doubt')).toBe(false);
    expect((await sut.getCase(`rc-${cart('doubt')}`)).outcome).toBe('CONSISTENT');
  });

  it('keeps a transaction whose money check is still due', async () => {
    await held('short');
    await confirmed('short', { capturedMinor: 5_000 });
    advance(RETENTION + 1);
    // The transaction's money check was never run: it is still due.
    await purge();
    expect(await exists('short')).toBe(true);

    await sut.sweepMoneyChecks();
    await purge();
    expect(await exists('short')).toBe(false);
    expect((await sut.getCase(`rc-pay-${cart('short')}`)).trigger).toBe('ORDER_WITHOUT_CAPTURE');
  });

  it('pages past the transactions it keeps', async () => {
    for (const name of ['kept-1', 'kept-2', 'kept-3']) await held(name); // holds never checked
    advance(60_000);
    await held('paid');
    await confirmed('paid');
    advance(RETENTION + 1);

    expect(await purge({ batch: 2, pages: 1 })).toBe(0);
    expect(await exists('paid')).toBe(true);
    await purge({ batch: 2, pages: 3 });
    expect(await exists('paid')).toBe(false);
    for (const name of ['kept-1', 'kept-2', 'kept-3']) expect(await exists(name)).toBe(true);
  });

  it('leaves a transaction written after it was read', async () => {
    await held('late');
    await confirmed('late');
    advance(RETENTION + 1);
    // The order is cancelled between the purge's read and its delete.
    const transactions = storage.transactions;
    const read = transactions.findInactiveBefore.bind(transactions);
    transactions.findInactiveBefore = async (before, page) => {
      const found = await read(before, page);
      await sut.recordOrderCancelled({
        kind: 'order-cancelled',
        orderId: `ord-${cart('late')}`,
        eventId: 'ev-1',
        partnerId: 'p-1',
        inventoryOrderId: `inv-${cart('late')}`,
        cancelledAt: time.current,
      });
      return found;
    };

    await purge();

    expect(await exists('late')).toBe(true);
    expect((await transactions.get(cart('late')))?.phase).toBe('cancelled');
  });
}

/** The same app with no retention: nothing is ever deleted. */
export function keepsEverythingWithoutRetention() {
  it('deletes nothing when no retention is set', async () => {
    const time = new ManualClock(new Date('2030-03-01T12:00:00Z'));
    const { storage, app } = testReconciler(new FakeConnector(), time.now);
    const fact = { cartId: 'paid', eventId: 'ev-1', partnerId: 'p-1', inventoryToken: 'tok' };
    await app.recordBookingHeld({
      kind: 'booking-held',
      ...fact,
      heldAt: time.current,
      expiresAt: time.current,
    });
    await app.recordOrderConfirmed({
      kind: 'order-confirmed',
      ...fact,
      orderId: 'ord-paid',
      inventoryOrderId: 'inv-paid',
      confirmedAt: time.current,
    });
    time.advance(365 * DAY);
    expect(await app.purgeSettledTransactions()).toBe(0);
    expect(await storage.transactions.get('paid')).toBeDefined();
  });
}
