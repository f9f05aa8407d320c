import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it, vi } from 'vitest';
import {
  createAdmissionSigner,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
} from '../../src/waiting-room/index.js';
import type { ReservePathSample } from '../../src/waiting-room/domain/admission.js';
import { passThroughWatch } from './watch.js';
import { noQuota } from './holdings.js';

// The waiting room's use cases over the memory stores, with a clock that moves by `advance` and a
// seeded lottery (the positions' fairness is asserted on a fixed draw, so the test cannot flake).

const OPENS = Date.UTC(2030, 5, 1, 10);

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function setup(options: { owner?: string; shared?: ReturnType<typeof storage> } = {}) {
  let now = OPENS - 60_000;
  const random = seeded(42);
  let next = 0;
  const sample: ReservePathSample = { reserves: 0, overloaded: 0, p95LatencyMs: 0 };
  const stores = options.shared ?? storage();
  const deps = {
    ...stores,
    holdings: noQuota,
    signer: createAdmissionSigner(Buffer.alloc(32, 1)),
    probe: { sample: () => ({ ...sample }) },
    clock: { now: () => new Date(now) },
    ids: {
      queueTicketId: () => `q${(next += 1)}`,
      lottery: () => Math.floor(random() * 2 ** 48),
    },
    settings: DEFAULT_WAITING_ROOM_SETTINGS,
    // Reads here never wait (no `waitMs`): the watch is not asked.
    watch: passThroughWatch(stores.onSales),
  };
  const room = createWaitingRoom(deps, options.owner ?? 'replica-a');
  return {
    room,
    deps,
    stores,
    sample,
    advance: (ms: number) => {
      now += ms;
    },
    at: () => new Date(now),
  };
}

const storage = () => createWaitingRoomStorage(createServiceStores(undefined));

/** `count` fans of app `a` join E1, device ids `<prefix>0`, `<prefix>1`, …: their ticket ids. */
async function joinDevices(
  room: ReturnType<typeof setup>['room'],
  count: number,
  prefix: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1)
    ids.push(
      (await room.join.handle({ eventId: 'E1', appId: 'a', deviceId: `${prefix}${i}` })).ticket.id,
    );
  return ids;
}

/** Spearman's rank correlation of two equally long lists of distinct numbers. */
function spearman(xs: number[], ys: number[]): number {
  const ranks = (v: number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    order.forEach(([, i], rank) => (r[i] = rank));
    return r;
  };
  const rx = ranks(xs);
  const ry = ranks(ys);
  const n = xs.length;
  const d2 = rx.reduce((sum, r, i) => sum + (r - ry[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe('the waiting room of an on-sale', () => {
  it('is refused for an event without one, and joined once per identity and app', async () => {
    const { room } = setup();
    await expect(room.join.handle({ eventId: 'E1', appId: 'a', fanId: 'f' })).rejects.toMatchObject(
      {
        kind: 'not_found',
      },
    );
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const first = await room.join.handle({ eventId: 'E1', appId: 'a', fanId: 'f' });
    const again = await room.join.handle({ eventId: 'E1', appId: 'a', fanId: 'f', deviceId: 'd' });
    const otherApp = await room.join.handle({ eventId: 'E1', appId: 'b', fanId: 'f' });
    expect(first.joined).toBe(true);
    expect(again).toMatchObject({ joined: false, ticket: { id: first.ticket.id } });
    expect(otherApp.ticket.id).not.toBe(first.ticket.id);
    const [a, b] = await Promise.all([
      room.join.handle({ eventId: 'E1', appId: 'a', deviceId: 'd-9' }),
      room.join.handle({ eventId: 'E1', appId: 'a', deviceId: 'd-9' }),
    ]);
    expect(a.ticket.id).toBe(b.ticket.id);
  });

  it('orders early joiners at random at the opening, late joiners after them in arrival order', async () => {
    const { room, advance } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const early: string[] = [];
    for (let i = 0; i < 1_000; i += 1) {
      early.push((await room.join.handle({ eventId: 'E1', appId: 'a', fanId: `f${i}` })).ticket.id);
    }
    // Before the freeze nobody has a position.
    const before = await room.read.handle('E1', early[0]!, 'a');
    expect(before.view).toEqual({ status: 'WAITING', opensAt: new Date(OPENS) });

    advance(60_000 + 2_000);
    expect(await room.admitter.handle('E1')).toEqual({ kind: 'frozen', earlyCount: 1_000 });
    const late1 = (await room.join.handle({ eventId: 'E1', appId: 'a', fanId: 'late-1' })).ticket
      .id;
    const late2 = (await room.join.handle({ eventId: 'E1', appId: 'a', fanId: 'late-2' })).ticket
      .id;

    const positionOf = async (id: string) => {
      const { view } = await room.read.handle('E1', id, 'a');
      return view.status === 'WAITING' ? view.position : undefined;
    };
    const positions = await Promise.all(early.map(positionOf));
    expect(new Set(positions).size).toBe(1_000);
    expect(Math.min(...(positions as number[]))).toBe(1);
    expect(Math.max(...(positions as number[]))).toBe(1_000);
    const rho = spearman(
      early.map((_, i) => i),
      positions as number[],
    );
    expect(Math.abs(rho)).toBeLessThan(0.05);
    expect(await positionOf(late1)).toBe(1_001);
    expect(await positionOf(late2)).toBe(1_002);
    // 1,000 joins through the use cases: seconds on a quiet machine, more on a busy one.
  }, 60_000);

  it('admits late joiners in arrival order, walking their numbers by id', async () => {
    const { room, stores, advance } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    await joinDevices(room, 3, 'early');
    advance(62_000);
    expect(await room.admitter.handle('E1')).toMatchObject({ kind: 'frozen' });
    // The first admitting tick is a full look (queries); the walk takes the ticks after it.
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 3 });
    const late: string[] = [];
    for (let i = 0; i < 6; i += 1)
      late.push(
        (await room.join.handle({ eventId: 'E1', appId: 'a', deviceId: `late${i}` })).ticket.id,
      );
    const nextWaiting = vi.spyOn(stores.tickets, 'nextWaiting');
    advance(500);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 6 });
    for (const id of late)
      expect((await room.read.handle('E1', id, 'a')).view.status).toBe('ADMITTED');
    // Nobody joined since: a tick finds that from the counter, without a query either.
    advance(500);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 0 });
    expect(nextWaiting).not.toHaveBeenCalled();
  });

  it('admits in order within the window; an admission reserves once, for its fan only', async () => {
    const { room, advance, sample } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 1)
      ids.push((await room.join.handle({ eventId: 'E1', appId: 'a', fanId: `f${i}` })).ticket.id);
    advance(62_000);
    await room.admitter.handle('E1');
    const tick = await room.admitter.handle('E1');
    expect(tick).toMatchObject({ kind: 'admitted', admitted: 20, left: 0, window: 20 });
    const answers = await Promise.all(ids.map((id) => room.read.handle('E1', id, 'a')));
    const admitted = answers.filter((a) => a.view.status === 'ADMITTED');
    expect(admitted).toHaveLength(20);
    // Those admitted are the first 20 of the order; the rest moved up by 20.
    const waiting = answers.filter((a) => a.view.status === 'WAITING');
    expect(
      waiting
        .map((a) => (a.view.status === 'WAITING' ? a.view.position : 0))
        .sort((x, y) => x! - y!),
    ).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));

    const { ticket, admissionToken } = admitted[0]!;
    const use = {
      eventId: 'E1',
      appId: 'a',
      identity: ticket.identity,
      now: new Date(OPENS + 2_000),
    };
    await expect(room.spend.handle(admissionToken, { ...use, appId: 'b' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    expect(await room.spend.handle(admissionToken, use)).toBe(ticket.id);
    await expect(room.spend.handle(admissionToken, use)).rejects.toThrow(
      /spent on a reserve already/,
    );
    await expect(room.spend.handle(undefined, use)).rejects.toThrow(/no valid admission token/);

    // 19 in flight (one spent): a used window on a healthy path grows to 22, room for 3.
    sample.reserves = 1;
    sample.p95LatencyMs = 100;
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 3, window: 22 });
    // The admissions expire; the fans still waiting keep asking; the path is overloaded now.
    advance(DEFAULT_WAITING_ROOM_SETTINGS.admissionTtlMs + 1);
    await Promise.all(ids.map((id) => room.read.handle('E1', id, 'a')));
    sample.overloaded = 1;
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 15, window: 15 });
  });

  it('forgets the admission rate once admissions stop, rather than estimating without bound', async () => {
    const { room, advance, stores } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    for (let i = 0; i < 10; i += 1)
      await room.join.handle({ eventId: 'E1', appId: 'a', fanId: `f${i}` });
    advance(62_000);
    await room.admitter.handle('E1');
    advance(1_000);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 10 });
    expect((await stores.onSales.get('E1'))!.admissionsPerSecond).toBeGreaterThan(0);
    // Nobody left to admit: the average of the rate decays by 30 % a tick, never to zero by
    // itself, until it is under one admission an hour and is recorded as not known.
    for (let i = 0; i < 40; i += 1) {
      advance(1_000);
      await room.admitter.handle('E1');
    }
    expect((await stores.onSales.get('E1'))!.admissionsPerSecond).toBe(0);
  });

  it('skips fans who stopped asking, and tells everyone waiting SOLD_OUT once sold out', async () => {
    const { room, advance } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const ids = await joinDevices(room, 30, 'd');
    advance(62_000);
    await room.admitter.handle('E1');
    // Nobody asked since joining (over 90 s ago by the next tick).
    advance(DEFAULT_WAITING_ROOM_SETTINGS.abandonAfterMs);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 0, left: 30 });
    expect((await room.read.handle('E1', ids[0]!, 'a')).view.status).toBe('EXPIRED');

    const more = await joinDevices(room, 40, 'm');
    expect(await room.soldOut.handle('E1', true)).toBe(true);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 0 });
    expect((await room.read.handle('E1', more[0]!, 'a')).view).toEqual({ status: 'SOLD_OUT' });
    // Places came back: those still waiting queue again.
    expect(await room.soldOut.handle('E1', false)).toBe(true);
    expect((await room.read.handle('E1', more[0]!, 'a')).view.status).toBe('WAITING');
  });

  it('keeps the fans an edge replica reports asking, without a read of their tickets', async () => {
    const { room, advance, at } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const ids = await joinDevices(room, 30, 'd');
    advance(62_000);
    await room.admitter.handle('E1');
    advance(60_000);
    const reported = ids.slice(0, 10);
    // Another replica's older report of the same fans does not make them older.
    await room.presence.handle(
      'E1',
      'edge-2',
      reported.map((ticketId) => ({ ticketId, seenAtMs: at().getTime() - 80_000 })),
    );
    expect(
      await room.presence.handle(
        'E1',
        'edge-1',
        reported.map((ticketId) => ({ ticketId, seenAtMs: at().getTime() })),
      ),
    ).toBe(10);
    // Every ticket's own `seenAt` is now 162 s old; the reported fans asked 40 s ago.
    advance(40_000);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 10, left: 20 });
    for (const id of reported)
      expect((await room.read.handle('E1', id, 'a')).view.status).toBe('ADMITTED');
    expect((await room.read.handle('E1', ids[29]!, 'a')).view.status).toBe('EXPIRED');
  });

  it('lets one replica admit at a time (a lease on the on-sale)', async () => {
    const shared = storage();
    const a = setup({ owner: 'a', shared });
    const b = setup({ owner: 'b', shared });
    await a.room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    a.advance(62_000);
    b.advance(62_000);
    expect(await a.room.admitter.handle('E1')).toMatchObject({ kind: 'frozen' });
    expect(await b.room.admitter.handle('E1')).toEqual({ kind: 'not-leader' });
    b.advance(DEFAULT_WAITING_ROOM_SETTINGS.leaseMs + 1);
    expect(await b.room.admitter.handle('E1')).toMatchObject({ kind: 'admitted' });
  });

  it('leaves a tick whose lease write raced a sell-out as contended, and admits no one', async () => {
    const { room, stores, advance } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    await joinDevices(room, 3, 'd');
    advance(62_000);
    expect(await room.admitter.handle('E1')).toMatchObject({ kind: 'frozen' });
    // The sell-out is marked between the tick's read of the on-sale and its lease write.
    const get = stores.onSales.get.bind(stores.onSales);
    stores.onSales.get = async (eventId) => {
      const read = await get(eventId);
      stores.onSales.get = get;
      expect(await room.soldOut.handle('E1', true)).toBe(true);
      return read;
    };
    advance(1_000);
    expect(await room.admitter.handle('E1')).toEqual({ kind: 'contended' });
    // The next tick reads the sold-out on-sale: it keeps the lease and admits nobody.
    expect(await room.admitter.handle('E1')).toMatchObject({
      kind: 'admitted',
      admitted: 0,
      soldOut: true,
    });
  });

  it('keeps the opening fixed once early joiners were ordered at it', async () => {
    const { room, advance } = setup();
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    await room.configure.handle('E1', { opensAt: new Date(OPENS + 1_000), queue: true });
    advance(64_000);
    await room.admitter.handle('E1');
    await expect(
      room.configure.handle('E1', { opensAt: new Date(OPENS + 9_000), queue: true }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    expect(
      (await room.configure.handle('E1', { opensAt: new Date(OPENS + 1_000), queue: false })).queue,
    ).toBe(false);
  });
});
