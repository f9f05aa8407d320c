import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import {
  createAdmissionSigner,
  createAppHoldings,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
} from '../../src/waiting-room/index.js';
import { passThroughWatch } from './watch.js';

// The per-app held-ticket quota at admission, over the memory stores: an app's fans are admitted
// while it has room under its quota (tickets in its live carts plus its admissions in flight);
// the others are held back, keeping their place, and admitted first once their app has room.
// Early joiners draw increasing lottery numbers here, so the order is the order of the joins.

const OPENS = Date.UTC(2030, 5, 1, 10);
const { admissionTtlMs } = DEFAULT_WAITING_ROOM_SETTINGS;

/** A live cart of `tickets` tickets. */
const cart = (id: string, tickets: number, sandbox = false) => ({
  id,
  sandbox,
  requests: [{ tickets: [{ quantity: tickets }] }],
});

function setup(
  defaultLimit: number | undefined,
  admitBatch = DEFAULT_WAITING_ROOM_SETTINGS.admitBatch,
) {
  let now = OPENS - 60_000;
  let drawn = 0;
  let next = 0;
  const stores = createWaitingRoomStorage(createServiceStores(undefined));
  /** The live carts of each app (of event E1). */
  const live = new Map<string, ReturnType<typeof cart>[]>();
  const carts = { findLive: (appId: string) => Promise.resolve((live.get(appId) ?? []) as never) };
  const room = createWaitingRoom(
    {
      ...stores,
      holdings: createAppHoldings(carts, defaultLimit),
      signer: createAdmissionSigner(Buffer.alloc(32, 5)),
      probe: { sample: () => ({ reserves: 0, overloaded: 0, p95LatencyMs: 0 }) },
      clock: { now: () => new Date(now) },
      ids: { queueTicketId: () => `q${(next += 1)}`, lottery: () => (drawn += 1) },
      settings: { ...DEFAULT_WAITING_ROOM_SETTINGS, admitBatch },
      watch: passThroughWatch(stores.onSales),
    },
    'replica-a',
  );
  const join = async (appId: string, fanId: string, heldTicketsPerEvent?: number) =>
    (
      await room.join.handle({
        eventId: 'E1',
        appId,
        fanId,
        ...(heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent } : {}),
      })
    ).ticket;
  const read = (ticket: { id: string; appId: string }) =>
    room.read.handle('E1', ticket.id, ticket.appId);
  const statusOf = async (ticket: { id: string; appId: string }) => (await read(ticket)).view;
  return {
    room,
    stores,
    live,
    join,
    read,
    statusOf,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("the per-app held-ticket quota at the waiting room's admission", () => {
  it('skips a fan whose ticket was written meanwhile, holding back nobody', async () => {
    const { room, stores, join, statusOf, advance } = setup(20);
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    // App A may hold 5 tickets, app B has no limit.
    const [a1, b1, a2, b2, a3] = [
      await join('A', 'a1', 5),
      await join('B', 'b1', 0),
      await join('A', 'a2', 5),
      await join('B', 'b2', 0),
      await join('A', 'a3', 5),
    ];
    const b3 = await join('B', 'b3', 0);
    advance(62_000);
    await room.admitter.handle('E1');
    // Admissions lose races with other writes of their tickets (their fans asking at that moment),
    // as a compare-and-set does: a1's and b1's twice (the admitter tries again once), b2's once.
    const raced = new Map([
      [a1!.id, 2],
      [b1!.id, 2],
      [b2!.id, 1],
    ]);
    const update = stores.tickets.update.bind(stores.tickets);
    stores.tickets.update = async (ticket, expectedVersion, happened) => {
      const left = raced.get(ticket.id) ?? 0;
      if (left > 0 && ticket.state === 'ADMITTED') {
        raced.set(ticket.id, left - 1);
        throw Object.assign(new Error('version conflict'), { kind: 'aborted' });
      }
      return update(ticket, expectedVersion, happened);
    };

    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 2, heldBack: 0 });
    // b2 was admitted at its second try. B has no limit: its other fans go on. A has one: its fans
    // wait for the next tick, in order,
    // and none of them is held back (A has room).
    for (const ticket of [b2!, b3]) expect((await statusOf(ticket)).status).toBe('ADMITTED');
    for (const ticket of [a1!, b1!, a2!, a3!]) {
      const view = await statusOf(ticket);
      expect(view.status).toBe('WAITING');
      expect(view).not.toHaveProperty('heldBack');
    }
    // The next tick admits them, A's in rank order.
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 4, heldBack: 0 });
    for (const ticket of [a1!, b1!, a2!, a3!])
      expect((await statusOf(ticket)).status).toBe('ADMITTED');
  });

  it('holds back the fans of an app without room, and admits them first once it has room', async () => {
    const { room, stores, live, join, read, statusOf, advance } = setup(20);
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    // App A may hold 2 tickets, app B has no limit; their fans joined early, interleaved.
    const [a1, b1, a2, b2, a3, b3, a4, b4] = [
      await join('A', 'a1', 2),
      await join('B', 'b1', 0),
      await join('A', 'a2', 2),
      await join('B', 'b2', 0),
      await join('A', 'a3', 2),
      await join('B', 'b3', 0),
      await join('A', 'a4', 2),
      await join('B', 'b4', 0),
    ];
    advance(62_000);
    expect(await room.admitter.handle('E1')).toMatchObject({ kind: 'frozen', earlyCount: 8 });
    expect(await room.admitter.handle('E1')).toMatchObject({
      kind: 'admitted',
      admitted: 6,
      heldBack: 2,
      left: 0,
    });
    for (const admitted of [a1, a2, b1, b2, b3, b4])
      expect((await statusOf(admitted!)).status).toBe('ADMITTED');
    // A's third and fourth fans wait, held back, with a position counted from A's last admitted
    // fan (rank 3) and no estimate: their turn comes when A's carts free room.
    expect(await statusOf(a3!)).toEqual({
      status: 'WAITING',
      position: 2,
      opensAt: new Date(OPENS),
      heldBack: true,
    });
    expect(await statusOf(a4!)).toMatchObject({ status: 'WAITING', position: 4, heldBack: true });
    expect((await read(a4!)).rank).toBe(7);
    const onSale = await stores.onSales.get('E1');
    expect(onSale).toMatchObject({ admittedThrough: 8, heldBackThrough: { A: 3 } });

    // A's first fan reserves 1 ticket (a live cart); its second admission is still in flight.
    const token = (await read(a1!)).admissionToken;
    const use = { eventId: 'E1', appId: 'A', identity: a1!.identity, now: new Date(OPENS) };
    await room.spend.handle(token, use);
    live.set('A', [cart('c1', 1), cart('sandbox', 5, true)]);
    const a5 = await join('A', 'a5', 2);
    const b5 = await join('B', 'b5', 0);
    // No room for A: its held-back fans wait, its late fan is held back too (counted once).
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1, heldBack: 1 });
    expect((await statusOf(b5)).status).toBe('ADMITTED');
    expect(await statusOf(a5)).toMatchObject({ status: 'WAITING', heldBack: true });
    expect((await statusOf(a3!)).status).toBe('WAITING');

    // A's cart is released: room for one. With room for one admission in the window, A's
    // held-back fan goes before a fan ranked after it (B's late fan).
    live.set('A', []);
    const b6 = await join('B', 'b6', 0);
    advance(10_000);
    const current = (await stores.onSales.get('E1'))!;
    const { version, ...rest } = current;
    // Six admissions in flight: a window of 6, used, grows to 7 at the tick (room for one).
    await stores.onSales.update({ ...rest, control: { ...rest.control, window: 6 } }, version);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1, heldBack: 0 });
    expect((await statusOf(a3!)).status).toBe('ADMITTED');
    expect(await statusOf(b6)).toMatchObject({ status: 'WAITING', position: 1 });
    expect((await read(b6)).view).not.toHaveProperty('heldBack');
    expect(await statusOf(a4!)).toMatchObject({ status: 'WAITING', position: 2, heldBack: true });
    expect((await stores.onSales.get('E1'))?.heldBackThrough).toEqual({ A: 5 });

    // A's second admission expires unused (the fans still waiting keep asking): room for one
    // more, A's next held-back fan; the one after it still waits.
    advance(60_000);
    for (const waiting of [a4!, a5, b6]) await read(waiting);
    advance(admissionTtlMs - 60_000 - 10_000 + 1);
    for (const waiting of [a4!, a5, b6]) await read(waiting);
    const tick = await room.admitter.handle('E1');
    expect(tick).toMatchObject({ admitted: 2, left: 0, heldBack: 0 });
    expect((await statusOf(a4!)).status).toBe('ADMITTED');
    expect((await statusOf(b6)).status).toBe('ADMITTED');
    expect(await statusOf(a5)).toMatchObject({ status: 'WAITING', position: 2, heldBack: true });

    // Sold out: every waiting fan, held back or not, reads SOLD_OUT.
    expect(await room.soldOut.handle('E1', true)).toBe(true);
    expect(await statusOf(a5)).toEqual({ status: 'SOLD_OUT' });
  });

  it("goes by the limit each app joined with, cart's default without one; 0 is no limit", async () => {
    const { room, join, statusOf, advance } = setup(1);
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const byDefault = [await join('C', 'c1'), await join('C', 'c2'), await join('C', 'c3')];
    const two = [await join('A', 'a1', 2), await join('A', 'a2', 2), await join('A', 'a3', 2)];
    const none = [await join('B', 'b1', 0), await join('B', 'b2', 0), await join('B', 'b3', 0)];
    advance(62_000);
    await room.admitter.handle('E1');
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 6, heldBack: 3 });
    const statuses = async (tickets: typeof byDefault) =>
      Promise.all(tickets.map(async (t) => (await statusOf(t)).status));
    expect(await statuses(byDefault)).toEqual(['ADMITTED', 'WAITING', 'WAITING']);
    expect(await statuses(two)).toEqual(['ADMITTED', 'ADMITTED', 'WAITING']);
    expect(await statuses(none)).toEqual(['ADMITTED', 'ADMITTED', 'ADMITTED']);
  });

  it('lets a held-back fan that stopped asking go, as any other', async () => {
    const { room, join, statusOf, advance } = setup(1);
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const [first, second] = [await join('C', 'c1'), await join('C', 'c2')];
    advance(62_000);
    await room.admitter.handle('E1');
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1, heldBack: 1 });
    advance(DEFAULT_WAITING_ROOM_SETTINGS.abandonAfterMs + 1);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 0, left: 1 });
    expect((await statusOf(second!)).status).toBe('EXPIRED');
    expect((await statusOf(first!)).status).toBe('ADMITTED');
  });

  it("does not let one app's many held-back fans keep another app's from their room", async () => {
    // Two fans looked at per tick: app A's held-back fans fill every look of them.
    const { room, join, read, statusOf, advance } = setup(1, 2);
    await room.configure.handle('E1', { opensAt: new Date(OPENS), queue: true });
    const a = [await join('A', 'a1'), await join('A', 'a2'), await join('A', 'a3')];
    const [b1, b2] = [await join('B', 'b1'), await join('B', 'b2')];
    advance(62_000);
    await room.admitter.handle('E1');
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1, heldBack: 1 });
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1, heldBack: 1 });
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 0, heldBack: 1 });
    expect((await statusOf(b1!)).status).toBe('ADMITTED');
    expect(await statusOf(b2!)).toMatchObject({ status: 'WAITING', heldBack: true });
    // B's admission is spent on a reserve that failed at once: B has room again, A none.
    const use = { eventId: 'E1', appId: 'B', identity: b1!.identity, now: new Date(OPENS) };
    await room.spend.handle((await read(b1!)).admissionToken, use);
    expect(await room.admitter.handle('E1')).toMatchObject({ admitted: 1 });
    expect((await statusOf(b2!)).status).toBe('ADMITTED');
    for (const held of a.slice(1))
      expect(await statusOf(held!)).toMatchObject({ status: 'WAITING', heldBack: true });
  });
});
