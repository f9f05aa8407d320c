import { beforeEach, describe, expect, it } from 'vitest';
import type { TopPicksStorage } from '../src/top-picks/index.js';
import type { FanSession } from '../src/top-picks/domain/fan-session.js';
import type { ResaleListing } from '../src/top-picks/domain/listing.js';

const t0 = new Date('2030-05-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const gbp = (amountMinor: number) => ({ amountMinor, currency: 'GBP' });

const session = (id: string, expiresAt: Date): FanSession => ({
  id,
  appId: 'app-1',
  startedAt: t0,
  expiresAt,
  createdAt: t0,
  renewals: 0,
  shownPrices: [{ key: 'EV.with.dots', amountMinor: 4_500, currency: 'GBP', shownAt: t0 }],
});

const listing = (id: string, over: Partial<ResaleListing> = {}): ResaleListing => ({
  id,
  eventId: 'EV0000000000001',
  orderId: 'o-1',
  ticketIds: ['t1', 't2'],
  price: gbp(4_500),
  faceValue: gbp(5_000),
  areaId: 'A1',
  section: 'S1',
  row: 'C',
  seats: ['4', '5'],
  generalAdmission: false,
  priceLevelId: 'PL1',
  priceTypeId: '000001',
  sellerAppId: 'seller',
  sellerNotes: '',
  state: 'LISTED',
  createdAt: t0,
  updatedAt: t0,
  ...over,
});

/** The storage contract of top picks, run on the memory stores and on the Mongo-wire server. */
export function topPicksStorageContract(name: string, make: () => Promise<TopPicksStorage>): void {
  describe(`top picks storage (${name})`, () => {
    let storage: TopPicksStorage;
    beforeEach(async () => {
      storage = await make();
    });

    it('stores sessions with their shown prices and compare-and-sets them', async () => {
      const stored = await storage.sessions.insert(session('s1', at(3_600_000)));
      expect(stored.version).toBe(1);
      const read = await storage.sessions.get('s1');
      expect(read).toEqual({ ...session('s1', at(3_600_000)), version: 1 });
      expect(read!.expiresAt).toBeInstanceOf(Date);
      await expect(storage.sessions.insert(session('s1', at(1)))).rejects.toMatchObject({
        kind: 'already_exists',
      });
      const renewed = { ...session('s1', at(7_200_000)), renewals: 1, shownPrices: [] };
      expect((await storage.sessions.update(renewed, 1)).version).toBe(2);
      await expect(storage.sessions.update(renewed, 1)).rejects.toMatchObject({ kind: 'aborted' });
      expect((await storage.sessions.get('s1'))!.renewals).toBe(1);
      expect(await storage.sessions.get('unknown')).toBeUndefined();
    });

    it('purges only sessions expired before the bound', async () => {
      await storage.sessions.insert(session('old-1', at(-2_000)));
      await storage.sessions.insert(session('old-2', at(-1_000)));
      await storage.sessions.insert(session('live', at(5_000)));
      expect(await storage.sessions.purgeExpiredBefore(at(0), 1)).toBe(1);
      expect(await storage.sessions.purgeExpiredBefore(at(0), 10)).toBe(1);
      expect(await storage.sessions.get('old-1')).toBeUndefined();
      expect(await storage.sessions.get('old-2')).toBeUndefined();
      expect(await storage.sessions.get('live')).toBeDefined();
    });

    it('stores listings, finds the active ones of an event and pages them newest first', async () => {
      await storage.listings.insert(listing('EV0000000000001.a', { createdAt: at(1) }));
      await storage.listings.insert(
        listing('EV0000000000001.b', {
          createdAt: at(2),
          state: 'HELD',
          holdCartId: 'c1',
          holdExpiresAt: at(600_000),
          holdPrice: gbp(4_000),
        }),
      );
      await storage.listings.insert(
        listing('EV0000000000001.c', { createdAt: at(3), state: 'SOLD', soldOrderId: 'o-2' }),
      );
      await storage.listings.insert(listing('EV0000000000002.d', { eventId: 'EV0000000000002' }));
      const active = await storage.listings.findActive('EV0000000000001');
      expect(active.map((l) => l.id)).toEqual(['EV0000000000001.a', 'EV0000000000001.b']);
      expect(active[1]).toMatchObject({ holdCartId: 'c1', holdPrice: gbp(4_000) });
      const page = await storage.listings.list({
        eventId: 'EV0000000000001',
        activeOnly: false,
        offset: 1,
        limit: 1,
      });
      expect(page.total).toBe(3);
      expect(page.listings.map((l) => l.id)).toEqual(['EV0000000000001.b']);
      expect(page.listings[0]).not.toHaveProperty('version');
      const activeOnly = await storage.listings.list({
        eventId: 'EV0000000000001',
        activeOnly: true,
        offset: 0,
        limit: 10,
      });
      expect(activeOnly.total).toBe(2);
    });

    it('compare-and-sets listings and drops cleared optional fields', async () => {
      const held = listing('EV0000000000001.e', {
        state: 'HELD',
        holdCartId: 'c1',
        holdExpiresAt: at(1),
      });
      await storage.listings.insert(held);
      const { holdCartId: _c, holdExpiresAt: _e, ...released } = held;
      await storage.listings.update({ ...released, state: 'LISTED' }, 1);
      await expect(
        storage.listings.update({ ...released, state: 'WITHDRAWN' }, 1),
      ).rejects.toMatchObject({
        kind: 'aborted',
      });
      const read = await storage.listings.get('EV0000000000001.e');
      expect(read).toMatchObject({ state: 'LISTED', version: 2 });
      expect(read).not.toHaveProperty('holdCartId');
    });

    it('stores ticket ownership with its history and compare-and-sets it', async () => {
      const record = {
        id: 'EV0000000000001.t1',
        eventId: 'EV0000000000001',
        ticketId: 't1',
        orderId: 'o-1',
        ownerAppId: 'seller',
        ownerFanId: '',
        thirdPartyAccountId: 'fan-1',
        listingId: 'EV0000000000001.a',
        previous: [],
        updatedAt: t0,
      };
      await storage.ownership.insert(record);
      await expect(storage.ownership.insert(record)).rejects.toMatchObject({
        kind: 'already_exists',
      });
      const moved = {
        ...record,
        orderId: 'o-2',
        listingId: '',
        previous: [{ orderId: 'o-1', listingId: 'EV0000000000001.a', until: at(5) }],
      };
      await storage.ownership.update(moved, 1);
      await expect(storage.ownership.update(moved, 1)).rejects.toMatchObject({ kind: 'aborted' });
      expect(await storage.ownership.get('EV0000000000001.t1')).toEqual({ ...moved, version: 2 });
    });
  });
}
