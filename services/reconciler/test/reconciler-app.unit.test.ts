import { beforeEach, describe, expect, it } from 'vitest';
import { type ReconcilerStorage } from '../src/adapters/stores.js';
import type { ReconcilerApp } from '../src/app/reconciler-app.js';
import { type PartnerCallFailure } from '../src/app/reconciler-app.js';
import type { PartnerTransaction } from '../src/domain/decision.js';
import { FakeConnector, unavailable, GRACE, testReconciler } from './fakes.js';

const start = new Date('2030-03-01T12:00:00Z');
let clock: Date;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
let connector: FakeConnector;
let storage: ReconcilerStorage;
let sut: ReconcilerApp;

beforeEach(() => {
  clock = start;
  connector = new FakeConnector();
  ({ storage, app: sut } = testReconciler(connector, () => clock));
});

const failure = (over: Partial<PartnerCallFailure> = {}): PartnerCallFailure => ({
  kind: 'partner-call-failed',
  operation: 'CREATE_BOOKING',
  outcomeUnknown: true,
  message: 'timeout',
  cartId: 'cart-1',
  eventId: 'ev-1',
  partnerId: 'p-1',
  failedAt: clock,
  ...over,
});
const partnerBooking = (over: Partial<PartnerTransaction> = {}): PartnerTransaction => ({
  partnerId: 'p-1',
  eventId: 'ev-1',
  inventoryToken: 'tok-1',
  status: 'BOOKED',
  cartId: 'cart-1',
  createdAt: start,
  updatedAt: start,
  ...over,
});
const held = (cartId: string, token: string, expiresInMs = 15 * 60_000) =>
  sut.recordBookingHeld({
    kind: 'booking-held',
    cartId,
    eventId: 'ev-1',
    partnerId: 'p-1',
    inventoryToken: token,
    heldAt: clock,
    expiresAt: new Date(clock.getTime() + expiresInMs),
  });
const confirmed = (cartId: string, orderId: string, token: string, inventoryOrderId: string) =>
  sut.recordOrderConfirmed({
    kind: 'order-confirmed',
    orderId,
    cartId,
    eventId: 'ev-1',
    partnerId: 'p-1',
    inventoryToken: token,
    inventoryOrderId,
    confirmedAt: clock,
  });

describe('ReconcilerApp cases', () => {
  it('opens one case per transaction for an unknown-outcome create; redelivery changes nothing', async () => {
    const first = await sut.recordPartnerCallFailed(failure());
    await sut.recordPartnerCallFailed(failure());
    expect(first).toMatchObject({ id: 'rc-cart-1', trigger: 'PARTNER_CALL_FAILED', open: true });
    const { cases, total } = await sut.listCases({ openOnly: true, offset: 0, limit: 10 });
    expect(total).toBe(1);
    expect(cases[0]?.id).toBe('rc-cart-1');
  });

  it('opens no case for a refused create (the partner answered)', async () => {
    expect(await sut.recordPartnerCallFailed(failure({ outcomeUnknown: false }))).toBeUndefined();
    expect((await sut.listCases({ openOnly: false, offset: 0, limit: 10 })).total).toBe(0);
  });

  it('waits for the grace period, then releases an orphan booking the platform never held', async () => {
    connector.orders = [partnerBooking()];
    await sut.recordPartnerCallFailed(failure());
    expect(await sut.resolveDueCases()).toBe(0);
    expect(connector.released).toEqual([]);

    advance(GRACE + 1);
    expect(await sut.resolveDueCases()).toBe(1);
    expect(connector.released).toEqual(['tok-1']);
    expect(await sut.getCase('rc-cart-1')).toMatchObject({
      outcome: 'BOOKING_RELEASED',
      open: false,
      resolvedAt: clock,
    });
  });

  it('is CONSISTENT when the platform got the booking after all (its retry landed)', async () => {
    connector.orders = [partnerBooking()];
    await sut.recordPartnerCallFailed(failure());
    await held('cart-1', 'tok-1');
    advance(GRACE + 1);
    await sut.resolveDueCases();
    expect(connector.released).toEqual([]);
    expect((await sut.getCase('rc-cart-1')).outcome).toBe('CONSISTENT');
  });

  it('keeps the case open and backs off while the partner cannot be read', async () => {
    await sut.recordPartnerCallFailed(failure());
    advance(GRACE + 1);
    connector.failure = unavailable();
    expect(await sut.resolveDueCases()).toBe(0);
    const open = await sut.getCase('rc-cart-1');
    expect(open).toMatchObject({ open: true, attempts: 1 });
    expect(open.dueAt).toEqual(new Date(clock.getTime() + 10_000));
    expect(open.detail).toContain('could not be read');

    connector.failure = undefined;
    advance(5_000);
    expect(await sut.resolveDueCases()).toBe(0); // not due yet
    advance(5_000);
    expect(await sut.resolveDueCases()).toBe(1);
    expect((await sut.getCase('rc-cart-1')).outcome).toBe('CONSISTENT');
  });

  it('cancels an order created at the partner for an order create that got no answer', async () => {
    await held('cart-1', 'tok-1');
    connector.orders = [
      partnerBooking({ status: 'CONFIRMED', inventoryOrderId: 'inv-1', orderId: 'ord-1' }),
    ];
    await sut.recordPartnerCallFailed(
      failure({ operation: 'CREATE_ORDER', orderId: 'ord-1', inventoryToken: 'tok-1' }),
    );
    advance(GRACE + 1);
    await sut.resolveDueCases();
    expect(connector.queries[0]).toEqual({ eventId: 'ev-1', inventoryToken: 'tok-1' });
    expect(connector.cancelled).toEqual(['inv-1']);
    expect((await sut.getCase('rc-cart-1')).outcome).toBe('ORDER_CANCELLED');
  });

  it('hands a paid order the partner does not have to an operator', async () => {
    await held('cart-1', 'tok-1');
    await sut.recordPartnerCallFailed(
      failure({ operation: 'CREATE_ORDER', orderId: 'ord-1', inventoryToken: 'tok-1' }),
    );
    await confirmed('cart-1', 'ord-1', 'tok-1', 'inv-1');
    connector.orders = [partnerBooking({ status: 'EXPIRED' })];
    advance(GRACE + 1);
    await sut.resolveDueCases();
    expect(await sut.getCase('rc-cart-1')).toMatchObject({
      outcome: 'MANUAL',
      trigger: 'ORDER_MISMATCH',
    });
  });

  it('opens a STALE_BOOKING case for a hold that ended but is still booked at the partner', async () => {
    await held('cart-1', 'tok-1', 60_000);
    await held('cart-2', 'tok-2', 60_000);
    connector.orders = [
      partnerBooking(),
      partnerBooking({ cartId: 'cart-2', inventoryToken: 'tok-2', status: 'RELEASED' }),
    ];
    advance(60_000 + GRACE + 1);
    expect(await sut.sweepStaleBookings()).toBe(1);
    expect(await sut.sweepStaleBookings()).toBe(0); // checked once
    await sut.resolveDueCases();
    expect(connector.released).toEqual(['tok-1']);
    expect(await sut.getCase('rc-cart-1')).toMatchObject({
      trigger: 'STALE_BOOKING',
      outcome: 'BOOKING_RELEASED',
    });
    await expect(sut.getCase('rc-cart-2')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('does not call a confirmed order stale', async () => {
    await held('cart-1', 'tok-1', 60_000);
    await confirmed('cart-1', 'ord-1', 'tok-1', 'inv-1');
    advance(60_000 + GRACE + 1);
    expect(await sut.sweepStaleBookings()).toBe(0);
  });
});

describe('ReconcilerApp event report', () => {
  it('matches, cancels orphans and flags paid orders missing at the partner', async () => {
    await held('cart-live', 'tok-live');
    await held('cart-paid', 'tok-paid');
    await confirmed('cart-paid', 'ord-paid', 'tok-paid', 'inv-paid');
    await held('cart-sold', 'tok-sold');
    await confirmed('cart-sold', 'ord-sold', 'tok-sold', 'inv-sold');
    connector.orders = [
      partnerBooking({ cartId: 'cart-live', inventoryToken: 'tok-live' }),
      partnerBooking({
        cartId: 'cart-sold',
        inventoryToken: 'tok-sold',
        status: 'CONFIRMED',
        inventoryOrderId: 'inv-sold',
        orderId: 'ord-sold',
      }),
      partnerBooking({ cartId: 'cart-ghost', inventoryToken: 'tok-ghost' }),
      partnerBooking({
        cartId: 'cart-ghost-2',
        inventoryToken: 'tok-ghost-2',
        status: 'CONFIRMED',
        inventoryOrderId: 'inv-ghost-2',
      }),
    ];
    advance(GRACE + 1);
    const report = await sut.reconcileEvent('ev-1');
    expect(report).toMatchObject({
      eventId: 'ev-1',
      partnerId: 'p-1',
      partnerTransactions: 4,
      platformTransactions: 3,
      matched: 2,
      orphansCancelled: 2,
      missingAtPartner: 1,
    });
    expect([...report.caseIds].sort()).toEqual([
      'rc-cart-ghost',
      'rc-cart-ghost-2',
      'rc-cart-paid',
    ]);
    expect(connector.released).toEqual(['tok-ghost']);
    expect(connector.cancelled).toEqual(['inv-ghost-2']);
    expect(await sut.getCase('rc-cart-paid')).toMatchObject({
      outcome: 'MANUAL',
      trigger: 'ORDER_MISMATCH',
    });
    expect(await sut.getEventReport('ev-1')).toEqual(report);

    // The next run finds the orphans gone and does not re-announce the flagged order.
    const again = await sut.reconcileEvent('ev-1');
    expect(again).toMatchObject({
      orphansCancelled: 0,
      missingAtPartner: 1,
      caseIds: ['rc-cart-paid'],
    });
  });

  it('has no report before the first run, and refuses when the partner cannot be read', async () => {
    await expect(sut.getEventReport('ev-1')).rejects.toMatchObject({ kind: 'not_found' });
    connector.failure = unavailable();
    await expect(sut.reconcileEvent('ev-1')).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('visits the events with recent activity', async () => {
    await held('cart-1', 'tok-1');
    expect(await sut.reportActiveEvents()).toBe(1);
    expect((await sut.getEventReport('ev-1')).platformTransactions).toBe(1);
  });
});

describe('ReconcilerApp transactions', () => {
  it('folds a cancel seen before its order into the cart record', async () => {
    await sut.recordOrderCancelled({
      kind: 'order-cancelled',
      orderId: 'ord-1',
      eventId: 'ev-1',
      partnerId: 'p-1',
      inventoryOrderId: 'inv-1',
      cancelledAt: clock,
    });
    await confirmed('cart-1', 'ord-1', 'tok-1', 'inv-1');
    expect(await storage.transactions.get('order:ord-1')).toBeUndefined();
    expect(await storage.transactions.get('cart-1')).toMatchObject({
      phase: 'cancelled',
      orderId: 'ord-1',
    });
  });

  it('folds a hold heard after its order into the record, not over it', async () => {
    // The hold is inserted without a read first; here the record exists and must be kept.
    await confirmed('cart-1', 'ord-1', 'tok-1', 'inv-1');
    await held('cart-1', 'tok-1');
    await held('cart-1', 'tok-1'); // redelivered
    expect(await storage.transactions.get('cart-1')).toMatchObject({
      phase: 'confirmed',
      orderId: 'ord-1',
      inventoryToken: 'tok-1',
    });
  });

  it('pages cases newest first and filters by partner', async () => {
    await sut.recordPartnerCallFailed(failure({ cartId: 'a' }));
    advance(1_000);
    await sut.recordPartnerCallFailed(failure({ cartId: 'b', partnerId: 'p-2', failedAt: clock }));
    const all = await sut.listCases({ openOnly: false, offset: 0, limit: 1 });
    expect(all).toMatchObject({ total: 2, cases: [{ id: 'rc-b' }] });
    const mine = await sut.listCases({ openOnly: false, partnerId: 'p-1', offset: 0, limit: 10 });
    expect(mine.cases.map((c) => c.id)).toEqual(['rc-a']);
  });
});
