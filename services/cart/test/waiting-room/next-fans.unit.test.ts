import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_WAITING_ROOM_SETTINGS,
  createWaitingRoomStorage,
} from '../../src/waiting-room/index.js';
import { EarlyRanks } from '../../src/waiting-room/app/early-ranks.js';
import { NextFans } from '../../src/waiting-room/app/next-fans.js';
import { earlyOrderKey } from '../../src/waiting-room/domain/queue.js';

// Where the admitter finds the next fans: the early joiners by their frozen order, read by id,
// and the queries (a scan on the Mongo-wire server) only when the walk cannot tell.

const AT = new Date(Date.UTC(2030, 5, 1, 10));

async function setup(fans: number) {
  const stores = createWaitingRoomStorage(createServiceStores(undefined));
  const keys: string[] = [];
  for (let i = 1; i <= fans; i += 1) {
    // Lottery numbers decreasing with the join: the order is not the order of the ids.
    const id = `t${String(i).padStart(3, '0')}`;
    const orderKey = earlyOrderKey(1_000 - i, id);
    keys.push(orderKey);
    await stores.tickets.insert({
      id,
      eventId: 'E1',
      appId: 'A',
      identity: `device:${id}`,
      joinedAt: AT,
      seenAt: AT,
      state: 'WAITING',
      early: true,
      orderKey,
    });
  }
  await stores.onSales.saveEarlyOrder('E1', [...keys].sort());
  const nextWaiting = vi.spyOn(stores.tickets, 'nextWaiting');
  const next = new NextFans(
    { tickets: stores.tickets, settings: DEFAULT_WAITING_ROOM_SETTINGS },
    new EarlyRanks(stores.onSales),
  );
  /** The fan ranked `rank` (from 1): joined last, ranked first. */
  const ranked = (rank: number) => `t${String(fans + 1 - rank).padStart(3, '0')}`;
  return { stores, next, nextWaiting, ranked };
}

describe('NextFans', () => {
  it('walks the frozen early order past admittedThrough, reading the fans by id', async () => {
    const { stores, next, nextWaiting, ranked } = await setup(60);
    // The fan ranked 7 was admitted meanwhile: it is not among the waiting.
    const seventh = (await stores.tickets.get(ranked(7)))!;
    const { version, ...rest } = seventh;
    await stores.tickets.update({ ...rest, state: 'ADMITTED', admittedAt: AT }, version);

    const found = await next.waiting('E1', { through: 5, earlyCount: 60, due: 4, full: false });

    expect(found.map((t) => t.id)).toEqual(
      [6, ...Array.from({ length: 18 }, (_, i) => i + 8)].map(ranked),
    );
    expect(nextWaiting).not.toHaveBeenCalled();
  });

  it('asks the query on a full look, near the end of the early joiners, and when too few wait', async () => {
    const { next, nextWaiting } = await setup(30);
    await next.waiting('E1', { through: 0, earlyCount: 30, due: 4, full: true });
    expect(nextWaiting).toHaveBeenCalledTimes(1);
    // Ranks 26 to 30 are fewer than the 4 due and the slack read past them: late joiners may follow.
    await next.waiting('E1', { through: 25, earlyCount: 30, due: 4, full: false });
    expect(nextWaiting).toHaveBeenCalledTimes(2);
    await next.waiting('E1', { through: 30, earlyCount: 30, due: 4, full: false });
    expect(nextWaiting).toHaveBeenCalledTimes(3);
  });

  it('counts a full look every tenth tick of each event', () => {
    const { next } = { next: new NextFans({} as never, {} as never) };
    const looks = Array.from({ length: 21 }, () => next.fullLook('E1'));
    expect(looks.filter(Boolean)).toHaveLength(3);
    expect(looks[0]).toBe(true);
    expect(next.fullLook('E2')).toBe(true);
  });
});
