import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_WAITING_ROOM_SETTINGS,
  createWaitingRoomStorage,
} from '../../src/waiting-room/index.js';
import { EarlyRanks } from '../../src/waiting-room/app/early-ranks.js';
import { NextFans } from '../../src/waiting-room/app/next-fans.js';
import {
  earlyOrderKey,
  lateOrderKey,
  type QueueTicket,
} from '../../src/waiting-room/domain/queue.js';

// Where the admitter finds the next fans: the early joiners by their frozen order, read by id,
// and the queries (a scan on the Mongo-wire server) only when the walk cannot tell.

const AT = new Date(Date.UTC(2030, 5, 1, 10));

/** A fan of app A waiting for E1's turn, with `over` applied. */
const fan = (id: string, over: Partial<QueueTicket>): QueueTicket => ({
  id,
  eventId: 'E1',
  appId: 'A',
  identity: `device:${id}`,
  joinedAt: AT,
  seenAt: AT,
  state: 'WAITING',
  early: true,
  orderKey: '',
  ...over,
});

async function setup(fans: number) {
  const stores = createWaitingRoomStorage(createServiceStores(undefined));
  const keys: string[] = [];
  for (let i = 1; i <= fans; i += 1) {
    // Lottery numbers decreasing with the join: the order is not the order of the ids.
    const id = `t${String(i).padStart(3, '0')}`;
    const orderKey = earlyOrderKey(1_000 - i, id);
    keys.push(orderKey);
    await stores.tickets.insert(fan(id, { early: true, orderKey }));
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

/** A late joiner of E1 (a number taken, then its ticket written), in `state`. */
async function joinLate(
  stores: Awaited<ReturnType<typeof setup>>['stores'],
  id: string,
  state: 'WAITING' | 'ADMITTED' = 'WAITING',
) {
  const sequence = await stores.tickets.nextSequence('E1', id);
  await stores.tickets.insert(
    fan(id, { state, early: false, sequence, orderKey: lateOrderKey(sequence) }),
  );
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

  it('asks the query on a full look, and walks on into the late joiners by their numbers', async () => {
    const { stores, next, nextWaiting, ranked } = await setup(30);
    await next.waiting('E1', { through: 0, earlyCount: 30, due: 4, full: true });
    expect(nextWaiting).toHaveBeenCalledTimes(1);
    // Ranks 26 to 30 end the early joiners, and nobody joined late: that is every fan past 25.
    const end = await next.waiting('E1', { through: 25, earlyCount: 30, due: 8, full: false });
    expect(end.map((t) => t.id)).toEqual([26, 27, 28, 29, 30].map(ranked));
    expect(await next.waiting('E1', { through: 30, earlyCount: 30, due: 4, full: false })).toEqual(
      [],
    );
    expect(nextWaiting).toHaveBeenCalledTimes(1);

    // Three late joiners: walked after the early ones, in arrival order.
    for (const id of ['l1', 'l2', 'l3']) await joinLate(stores, id);
    const across = await next.waiting('E1', { through: 28, earlyCount: 30, due: 4, full: false });
    expect(across.map((t) => t.id)).toEqual([ranked(29), ranked(30), 'l1', 'l2', 'l3']);
    const late = await next.waiting('E1', { through: 31, earlyCount: 30, due: 1, full: false });
    expect(late.map((t) => t.id)).toEqual(['l2', 'l3']);
    expect(nextWaiting).toHaveBeenCalledTimes(1);
  });

  it('asks the query when the walk finds fewer than due and more numbers follow', async () => {
    const { stores, next, nextWaiting } = await setup(0);
    // 40 late joiners, the first 30 of them moved on (admitted meanwhile).
    for (let i = 1; i <= 40; i += 1)
      await joinLate(stores, `l${i}`, i <= 30 ? 'ADMITTED' : 'WAITING');
    // due 4 reads numbers 1 to 20 (4 + 16): none waits, and 20 more were taken.
    const found = await next.waiting('E1', { through: 0, earlyCount: 0, due: 4, full: false });
    expect(nextWaiting).toHaveBeenCalledTimes(1);
    expect(found.map((t) => t.id)).toEqual([
      'l31',
      'l32',
      'l33',
      'l34',
      'l35',
      'l36',
      'l37',
      'l38',
      'l39',
      'l40',
    ]);
  });

  it('reads a fan passed by again at the next call only, ahead of the walk', async () => {
    const { next, nextWaiting, ranked } = await setup(60);
    // The fan ranked 3 was left waiting by a tick that went on to rank 10.
    next.passedBy('E1', ranked(3));
    const found = await next.waiting('E1', { through: 10, earlyCount: 60, due: 2, full: false });
    expect(found.map((t) => t.id)).toEqual(
      [3, ...Array.from({ length: 18 }, (_, i) => i + 11)].map(ranked),
    );
    const after = await next.waiting('E1', { through: 10, earlyCount: 60, due: 2, full: false });
    expect(after.map((t) => t.id)).not.toContain(ranked(3));
    expect(nextWaiting).not.toHaveBeenCalled();
  });

  it('counts a full look every tenth tick of each event', () => {
    const { next } = { next: new NextFans({} as never, {} as never) };
    const looks = Array.from({ length: 21 }, () => next.fullLook('E1'));
    expect(looks.filter(Boolean)).toHaveLength(3);
    expect(looks[0]).toBe(true);
    expect(next.fullLook('E2')).toBe(true);
  });
});
