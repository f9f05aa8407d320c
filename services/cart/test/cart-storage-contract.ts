import { isVersionConflict } from '@marquee/platform/store';
import { metricValue } from '@marquee/platform/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CartStorage } from '../src/adapters/stores.js';
import type { Cart } from '../src/domain/cart.js';
import type { Order } from '../src/domain/order.js';
import type { SellableArea } from '../src/domain/sellable-event.js';
import { pendingCart } from './support/carts.js';

const t0 = new Date('2030-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

export const aCart = (id: string, over: Partial<Cart> = {}): Cart =>
  pendingCart({ id, appId: 'app-1', eventId: 'EV0000000000001', partnerId: 'p1' }, t0, over);

export const anOrder = (id: string, over: Partial<Order> = {}): Order => ({
  id,
  orderNumber: `MQ-${id.toUpperCase()}`,
  cartId: `cart-${id}`,
  appId: 'app-1',
  channel: 'partner-cart',
  eventId: 'EV0000000000001',
  partnerId: 'p1',
  sandbox: false,
  inventoryToken: 'inv',
  inventoryOrderId: `partner-${id}`,
  status: 'CONFIRMED',
  currency: 'GBP',
  tickets: [
    {
      ticketId: `${id}-1`,
      areaId: 'A1',
      section: 'S1',
      row: 'C',
      seat: '4',
      priceLevelId: 'PL1',
      priceTypeId: '000001',
      faceValueMinor: 5_000,
      generalAdmission: false,
    },
  ],
  merchandiseMinor: 5_000,
  feeMinor: 500,
  taxMinor: 0,
  deliveryMinor: 0,
  grandMinor: 5_500,
  delivery: {
    id: 'ETICKET',
    carrier: 'Marquee',
    serviceLevel: 'ETICKET',
    requiresAddress: false,
    descriptionLong: 'Mobile ticket',
    descriptionShort: 'eTicket',
    eta: 'Immediately after purchase',
    feeMinor: 0,
    rank: 1,
  },
  paymentId: `pay-${id}`,
  customerEmail: 'fan@example.com',
  thirdPartyAccountId: '',
  secureEntryEnabled: false,
  tokenSha256: 'ab'.repeat(32),
  confirmedAt: t0,
  ...over,
});

const area = (over: Partial<SellableArea> = {}): SellableArea => ({
  areaId: 'A1',
  levelId: 'L1',
  sectionId: 'S1',
  priceLevelId: 'PL1',
  generalAdmission: false,
  available: 3,
  unavailable: 0,
  ...over,
});

const line = (quantity: number, areaIds = ['A1']) => ({
  areaIds,
  priceLevelId: 'PL1',
  priceTypeId: '000001',
  quantity,
});

const kindOf = (error: unknown) => (error as { kind?: unknown }).kind;

/**
 * What cart's storage (`createCartStorage`) promises, whatever the store under it: carts by
 * compare-and-set and due for the sweeper in order, orders unique by number and listed by owner,
 * the newest tracking hit, and a sandbox inventory that never sells more than an area holds.
 * Run on memory by cart-storage.unit.test.ts and on the Mongo-wire server by
 * cart-storage.int.test.ts.
 */
export function cartStorageContract(name: string, make: () => Promise<CartStorage>): void {
  describe(`cart storage (${name})`, () => {
    let storage: CartStorage;
    beforeEach(async () => {
      storage = await make();
    });

    it("lists a fan's orders and writes one with its contact erased", async () => {
      await storage.orders.insertConfirmed(anOrder('e1', { fanId: 'fan-9', channel: 'commerce' }));
      await storage.orders.insertConfirmed(
        anOrder('e2', { fanId: 'fan-9', appId: 'app-2', channel: 'commerce' }),
      );
      await storage.orders.insertConfirmed(anOrder('e3', { fanId: 'fan-8', channel: 'commerce' }));
      const found = await storage.orders.listByFan('fan-9', 10);
      expect(found.map((o) => o.id).sort()).toEqual(['e1', 'e2']);
      const { fanId: _fanId, version, ...rest } = found[0]!;
      const erased = { ...rest, customerEmail: '', thirdPartyAccountId: '', contactErasedAt: t0 };
      const written = await storage.orders.updateContactErased(erased, version);
      expect(written.version).toBeGreaterThan(version);
      expect(await storage.orders.get(found[0]!.id)).toEqual({
        ...erased,
        version: written.version,
      });
      expect((await storage.orders.listByFan('fan-9', 10)).map((o) => o.id)).toEqual([
        found[1]!.id,
      ]);
    });

    it('stores a cart and changes it at the version it read', async () => {
      const inserted = await storage.carts.insert(aCart('c1'));
      expect(inserted.version).toBeGreaterThan(0);
      const held = await storage.carts.modify('c1', (cart) => ({
        ...cart,
        status: 'HELD',
        heldAt: at(1_000),
        sweepAt: at(60_000),
      }));
      expect(held).toMatchObject({ id: 'c1', status: 'HELD', sweepAt: at(60_000) });
      expect(held!.version).toBeGreaterThan(inserted.version);
      expect(await storage.carts.get('c1')).toMatchObject({ status: 'HELD', heldAt: at(1_000) });
      // A change that answers nothing writes nothing.
      const same = await storage.carts.modify('c1', () => undefined);
      expect(same?.version).toBe(held!.version);
      expect(await storage.carts.modify('absent', (cart) => cart)).toBeUndefined();
      await expect(storage.carts.insert(aCart('c1'))).rejects.toSatisfy(
        (error) => kindOf(error) === 'already_exists',
      );
    });

    it('finds the carts due at a time, soonest first, at most as many as asked', async () => {
      await storage.carts.insert(aCart('late', { sweepAt: at(30_000) }));
      await storage.carts.insert(aCart('first', { sweepAt: at(10_000) }));
      await storage.carts.insert(aCart('second', { sweepAt: at(20_000) }));
      await storage.carts.insert(aCart('never'));
      const due = await storage.carts.findDue(at(25_000), 10);
      expect(due.map((cart) => cart.id)).toEqual(['first', 'second']);
      expect((await storage.carts.findDue(at(60_000), 2)).map((cart) => cart.id)).toEqual([
        'first',
        'second',
      ]);
    });

    it('finds the ended carts owing nothing before a time, and deletes one at its version', async () => {
      const ended = (over: Partial<Cart>) => aCart('x', { status: 'RELEASED', ...over });
      await storage.carts.insert({ ...ended({ endedAt: at(20_000) }), id: 'second' });
      await storage.carts.insert({ ...ended({ endedAt: at(10_000) }), id: 'first' });
      await storage.carts.insert({ ...ended({ endedAt: at(40_000) }), id: 'recent' });
      await storage.carts.insert({
        ...ended({ endedAt: at(5_000), releaseOwed: true, sweepAt: at(6_000) }),
        id: 'owing',
      });
      await storage.carts.insert(aCart('live', { status: 'HELD', sweepAt: at(90_000) }));
      const found = await storage.carts.findEndedBefore(at(30_000), 10);
      expect(found.map((cart) => cart.id)).toEqual(['first', 'second']);
      expect((await storage.carts.findEndedBefore(at(30_000), 1)).map((c) => c.id)).toEqual([
        'first',
      ]);
      const [first] = found;
      await storage.carts.modify('first', (cart) => ({ ...cart, language: 'fr-fr' }));
      // Written since it was read: kept.
      expect(await storage.carts.deleteAt('first', first!.version)).toBe(false);
      const current = (await storage.carts.get('first'))!;
      expect(await storage.carts.deleteAt('first', current.version)).toBe(true);
      expect(await storage.carts.get('first')).toBeUndefined();
      expect(await storage.carts.deleteAt('first', current.version)).toBe(false);
      expect((await storage.carts.findEndedBefore(at(60_000), 10)).map((c) => c.id)).toEqual([
        'second',
        'recent',
      ]);
    });

    it('counts reserves held and failed, tickets held and carts ended, as written', async () => {
      const count = async (series: string) => (await metricValue(series)) ?? 0;
      const series = {
        held: 'marquee_reserves_total{outcome="held",code=""}',
        failed: 'marquee_reserves_total{outcome="failed",code="20052"}',
        tickets: 'marquee_tickets_held_total{inventory="partner"}',
        endedFailed: 'marquee_carts_ended_total{status="FAILED"}',
        endedReleased: 'marquee_carts_ended_total{status="RELEASED"}',
      };
      const before = Object.fromEntries(
        await Promise.all(Object.entries(series).map(async ([k, s]) => [k, await count(s)])),
      ) as Record<keyof typeof series, number>;
      const twoTickets = [{ ticketId: 't1' }, { ticketId: 't2' }] as Cart['tickets'];
      await storage.carts.insert(aCart('counted-held'));
      await storage.carts.modify('counted-held', (cart) => ({
        ...cart,
        status: 'HELD',
        tickets: twoTickets,
      }));
      // A write that changes no status, and one that writes nothing: not counted again.
      await storage.carts.modify('counted-held', (cart) => ({ ...cart, language: 'fr-fr' }));
      await storage.carts.modify('counted-held', () => undefined);
      await storage.carts.insert(aCart('counted-failed'));
      await storage.carts.modify('counted-failed', (cart) => ({
        ...cart,
        status: 'FAILED',
        failure: { code: '20052', message: 'sold out' },
      }));
      await storage.carts.modify('counted-held', (cart) => ({ ...cart, status: 'RELEASED' }));
      expect(await count(series.held)).toBe(before.held + 1);
      expect(await count(series.tickets)).toBe(before.tickets + 2);
      expect(await count(series.failed)).toBe(before.failed + 1);
      expect(await count(series.endedFailed)).toBe(before.endedFailed + 1);
      expect(await count(series.endedReleased)).toBe(before.endedReleased + 1);
    });

    it('finds the live carts of an app and event (pending, held, paid) for its quota', async () => {
      await storage.carts.insert(aCart('pending', { status: 'PENDING' }));
      await storage.carts.insert(aCart('held', { status: 'HELD' }));
      await storage.carts.insert(aCart('paid', { status: 'PAID' }));
      await storage.carts.insert(aCart('released', { status: 'RELEASED' }));
      await storage.carts.insert(aCart('other-app', { status: 'HELD', appId: 'app-2' }));
      await storage.carts.insert(
        aCart('other-event', { status: 'HELD', eventId: 'EV0000000000002' }),
      );
      const live = await storage.carts.findLive('app-1', 'EV0000000000001', 10);
      expect(live.map((cart) => cart.id).sort()).toEqual(['held', 'paid', 'pending']);
      expect(live[0]).toMatchObject({ appId: 'app-1', requests: [] });
      await storage.carts.modify('held', (cart) => ({ ...cart, status: 'RELEASED' }));
      expect((await storage.carts.findLive('app-1', 'EV0000000000001', 10)).length).toBe(2);
    });

    it('keeps one order per order number and cancels at the version it read', async () => {
      const count = async (name: string) => (await metricValue(name)) ?? 0;
      const confirmedBefore = await count('marquee_orders_confirmed_total');
      const cancelledBefore = await count('marquee_orders_cancelled_total');
      const confirmed = await storage.orders.insertConfirmed(anOrder('o1'));
      expect(await storage.orders.get('o1')).toMatchObject({
        orderNumber: 'MQ-O1',
        status: 'CONFIRMED',
        tickets: [{ ticketId: 'o1-1', faceValueMinor: 5_000 }],
      });
      await expect(
        storage.orders.insertConfirmed(anOrder('o2', { orderNumber: 'MQ-O1' })),
      ).rejects.toSatisfy((error) => kindOf(error) === 'already_exists');
      const cancelled = { ...anOrder('o1'), status: 'CANCELLED' as const, cancelledAt: at(5_000) };
      const written = await storage.orders.updateCancelled(cancelled, confirmed.version);
      expect(written).toMatchObject({ status: 'CANCELLED', cancelledAt: at(5_000) });
      // The version it read is gone: a second writer at it loses.
      await expect(
        storage.orders.updatePrinted({ ...cancelled, printed: 'PRINT' }, confirmed.version),
      ).rejects.toSatisfy(isVersionConflict);
      expect(await storage.orders.get('o1')).toMatchObject({ status: 'CANCELLED' });
      // Counted as written: the refused duplicate is not.
      expect(await count('marquee_orders_confirmed_total')).toBe(confirmedBefore + 1);
      expect(await count('marquee_orders_cancelled_total')).toBe(cancelledBefore + 1);
    });

    it('finds the orders whose owed refund is due, soonest first, and records refunds', async () => {
      const owed = (id: string) => ({ key: `order:${id}`, amountMinor: 5_000, ticketIds: [] });
      for (const [id, due] of [
        ['r1', 3_000],
        ['r2', 1_000],
        ['r3', 9_000],
      ] as const) {
        const stored = await storage.orders.insertConfirmed(anOrder(id));
        await storage.orders.updateCancelled(
          { ...anOrder(id), status: 'CANCELLED', refundOwed: owed(id), refundDueAt: at(due) },
          stored.version,
        );
      }
      await storage.orders.insertConfirmed(anOrder('r4'));
      const due = await storage.orders.findRefundDue(at(5_000), 10);
      expect(due.map((o) => o.id)).toEqual(['r2', 'r1']);
      expect(due[0]?.refundOwed).toEqual(owed('r2'));
      // Paid: the refund is on the order and the order is due no more.
      const { refundOwed: _o, refundDueAt: _d, version, ...r2 } = due[0]!;
      const refund = {
        refundId: 're_1',
        amountMinor: 5_000,
        status: 'succeeded' as const,
        source: 'cancel' as const,
        ticketIds: [],
        at: at(4_000),
      };
      const payment = {
        provider: 'stripe',
        paymentId: 'pi_1',
        authorizedMinor: 5_000,
        capturedMinor: 5_000,
        refundedMinor: 5_000,
        refunds: [refund],
      };
      await storage.orders.updatePayment({ ...r2, payment }, version, [refund]);
      await expect(
        storage.orders.updatePayment({ ...r2, payment }, version, [refund]),
      ).rejects.toSatisfy(isVersionConflict);
      expect((await storage.orders.findRefundDue(at(5_000), 10)).map((o) => o.id)).toEqual(['r1']);
      const stored = await storage.orders.get('r2');
      expect(stored?.payment).toEqual(payment);
      expect(stored?.refundOwed).toBeUndefined();
      expect(stored?.refundDueAt).toBeUndefined();
    });

    it('finds the orders whose pending ticket cancel is due, soonest first, and clears them', async () => {
      const pendingOf = (id: string) => ({
        ticketIds: [`${id}-t1`],
        reason: 'requested' as const,
        detail: '',
        requestedAt: at(500),
        attempts: 1,
        lastError: 'partner down',
      });
      for (const [id, due] of [
        ['p1', 3_000],
        ['p2', 1_000],
        ['p3', 9_000],
      ] as const) {
        const stored = await storage.orders.insertConfirmed(anOrder(id));
        await storage.orders.updateTicketCancelPending(
          { ...anOrder(id), ticketCancelPending: pendingOf(id), ticketCancelDueAt: at(due) },
          stored.version,
        );
      }
      await storage.orders.insertConfirmed(anOrder('p4'));
      const due = await storage.orders.findTicketCancelDue(at(5_000), 10);
      expect(due.map((o) => o.id)).toEqual(['p2', 'p1']);
      expect(due[0]?.ticketCancelPending).toEqual(pendingOf('p2'));
      const { ticketCancelPending: _p, ticketCancelDueAt: _d, version, ...p2 } = due[0]!;
      await storage.orders.updateTicketCancelPending(p2, version);
      await expect(storage.orders.updateTicketCancelPending(p2, version)).rejects.toSatisfy(
        isVersionConflict,
      );
      expect((await storage.orders.findTicketCancelDue(at(5_000), 10)).map((o) => o.id)).toEqual([
        'p1',
      ]);
      expect((await storage.orders.get('p2'))?.ticketCancelPending).toBeUndefined();
    });

    it('keeps one payment attempt per cart, due in order, postponed and removed at its version', async () => {
      await storage.attempts.record('c2', at(2_000));
      await storage.attempts.record('c1', at(1_000));
      await storage.attempts.record('c1', at(9_000)); // a second attempt of c1: no-op
      await storage.attempts.record('c3', at(8_000));
      const due = await storage.attempts.findDue(at(5_000), 10);
      expect(due.map((a) => [a.id, a.checkAt])).toEqual([
        ['c1', at(1_000)],
        ['c2', at(2_000)],
      ]);
      expect(await storage.attempts.postpone(due[0]!, at(7_000))).toBe(true);
      // Its version is gone: a second writer at it loses.
      expect(await storage.attempts.remove(due[0]!)).toBe(false);
      expect(await storage.attempts.remove(due[1]!)).toBe(true);
      expect((await storage.attempts.findDue(at(7_500), 10)).map((a) => a.id)).toEqual(['c1']);
    });

    it("lists an owner's orders, newest first, filtered as asked", async () => {
      await storage.orders.insertConfirmed(anOrder('a', { confirmedAt: at(1_000) }));
      await storage.orders.insertConfirmed(
        anOrder('b', { confirmedAt: at(3_000), fanId: 'fan-1', channel: 'commerce' }),
      );
      await storage.orders.insertConfirmed(
        anOrder('c', { confirmedAt: at(2_000), eventId: 'EV0000000000002' }),
      );
      await storage.orders.insertConfirmed(anOrder('d', { confirmedAt: at(4_000), sandbox: true }));
      await storage.orders.insertConfirmed(
        anOrder('e', { confirmedAt: at(5_000), appId: 'app-2' }),
      );
      const ids = (orders: Order[]) => orders.map((order) => order.id);
      expect(
        ids(await storage.orders.listByOwner({ appId: 'app-1', sandbox: false, limit: 10 })),
      ).toEqual(['b', 'c', 'a']);
      expect(
        ids(await storage.orders.listByOwner({ appId: 'app-1', sandbox: false, limit: 2 })),
      ).toEqual(['b', 'c']);
      expect(
        ids(
          await storage.orders.listByOwner({
            appId: 'app-1',
            sandbox: false,
            fanId: 'fan-1',
            limit: 10,
          }),
        ),
      ).toEqual(['b']);
      expect(
        ids(
          await storage.orders.listByOwner({
            appId: 'app-1',
            sandbox: false,
            eventId: 'EV0000000000002',
            limit: 10,
          }),
        ),
      ).toEqual(['c']);
      expect(
        ids(await storage.orders.listByOwner({ appId: 'app-1', sandbox: true, limit: 10 })),
      ).toEqual(['d']);
      const listed = await storage.orders.listByOwner({ appId: 'app-2', sandbox: false, limit: 1 });
      expect(listed[0]).not.toHaveProperty('version');
    });

    it("lists one buyer's confirmed orders of an event (by fan or third-party account)", async () => {
      const E = 'EV0000000000001';
      await storage.orders.insertConfirmed(anOrder('f1', { thirdPartyAccountId: 'acct-1' }));
      await storage.orders.insertConfirmed(
        anOrder('f2', { thirdPartyAccountId: 'acct-1', fanId: 'fan-1', channel: 'commerce' }),
      );
      await storage.orders.insertConfirmed(anOrder('f3', { thirdPartyAccountId: 'acct-2' }));
      await storage.orders.insertConfirmed(
        anOrder('f4', { thirdPartyAccountId: 'acct-1', eventId: 'EV0000000000002' }),
      );
      await storage.orders.insertConfirmed(
        anOrder('f5', { thirdPartyAccountId: 'acct-1', sandbox: true }),
      );
      await storage.orders.insertConfirmed(
        anOrder('f6', { thirdPartyAccountId: 'acct-1', status: 'CANCELLED' }),
      );
      const ids = (orders: Order[]) => orders.map((order) => order.id).sort();
      const list = (buyer: { fanId?: string; thirdPartyAccountId?: string }) =>
        storage.orders.listByBuyer({ appId: 'app-1', eventId: E, limit: 10, ...buyer });
      expect(ids(await list({ thirdPartyAccountId: 'acct-1' }))).toEqual(['f1', 'f2']);
      expect(ids(await list({ fanId: 'fan-1' }))).toEqual(['f2']);
    });

    it('answers the newest tracking hit of an app and event since a time', async () => {
      const hit = (id: string, ms: number, over: { appId?: string; eventId?: string } = {}) => ({
        id,
        appId: 'app-1',
        eventId: 'EV0000000000001',
        sharedId: `shared-${id}`,
        subId1: '',
        subId2: '',
        subId3: '',
        sandbox: false,
        at: at(ms),
        ...over,
      });
      await storage.tracking.insert(hit('h1', 1_000));
      await storage.tracking.insert(hit('h2', 3_000));
      await storage.tracking.insert(hit('h3', 9_000, { appId: 'app-2' }));
      await storage.tracking.insert(hit('h4', 9_000, { eventId: 'EV0000000000002' }));
      expect(await storage.tracking.latest('app-1', 'EV0000000000001', at(0))).toMatchObject({
        id: 'h2',
        sharedId: 'shared-h2',
        at: at(3_000),
      });
      expect(await storage.tracking.latest('app-1', 'EV0000000000001', at(4_000))).toBeUndefined();
    });

    it('holds sandbox tickets up to the capacity of an area, never more', async () => {
      const areas = [area({ available: 2, unavailable: 1 })];
      const hold = (cartId: string, quantity: number, now = t0) =>
        storage.sandbox.hold({
          eventId: 'EV0000000000001',
          cartId,
          lines: [line(quantity)],
          areas,
          expiresAt: at(60_000),
          now,
        });
      const first = await hold('c1', 2);
      expect(first.map((ticket) => ticket.seat)).toEqual(['1', '2']);
      expect(first[0]).toMatchObject({ ticketId: 'c1-1', areaId: 'A1', row: 'SBX' });
      await expect(hold('c2', 2)).rejects.toSatisfy(
        (error) => kindOf(error) === 'resource_exhausted',
      );
      // Seats are never given out twice, even after a release.
      expect((await hold('c2', 1)).map((ticket) => ticket.seat)).toEqual(['3']);
      await storage.sandbox.release('EV0000000000001', 'c1');
      expect((await hold('c3', 2)).map((ticket) => ticket.seat)).toEqual(['4', '5']);
      await expect(hold('c4', 1)).rejects.toSatisfy(
        (error) => kindOf(error) === 'resource_exhausted',
      );
    });

    it('counts sold sandbox tickets for good and expired holds no longer', async () => {
      const areas = [area({ generalAdmission: true, available: 2, unavailable: 0 })];
      const hold = (cartId: string, quantity: number, now: Date) =>
        storage.sandbox.hold({
          eventId: 'EV0000000000001',
          cartId,
          lines: [line(quantity)],
          areas,
          expiresAt: at(now.getTime() - t0.getTime() + 60_000),
          now,
        });
      const sold = await hold('c1', 1, t0);
      expect(sold[0]).toMatchObject({ seat: '', row: '', generalAdmission: true });
      await storage.sandbox.sell('EV0000000000001', 'c1');
      await storage.sandbox.sell('EV0000000000001', 'c1');
      await hold('c2', 1, t0);
      await expect(hold('c3', 1, at(1_000))).rejects.toSatisfy(
        (error) => kindOf(error) === 'resource_exhausted',
      );
      // c2's hold has expired by then; the sold ticket still counts.
      await expect(hold('c3', 1, at(120_000))).resolves.toHaveLength(1);
      await expect(hold('c4', 1, at(120_000))).rejects.toSatisfy(
        (error) => kindOf(error) === 'resource_exhausted',
      );
    });
  });
}
