import { beforeEach, describe, expect, it } from 'vitest';
import type { createWaitingRoomStorage } from '../../src/waiting-room/index.js';
import type { OnSaleRecord } from '../../src/waiting-room/app/ports.js';
import { DEFAULT_CONTROL } from '../../src/waiting-room/domain/admission.js';
import type { QueueTicket } from '../../src/waiting-room/domain/queue.js';

type Storage = ReturnType<typeof createWaitingRoomStorage>;

const t0 = new Date('2030-06-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

const onSale = (eventId: string, over: Partial<OnSaleRecord> = {}): OnSaleRecord => ({
  eventId,
  opensAt: t0,
  queue: true,
  earlyCount: 0,
  admittedThrough: 0,
  admissionsPerSecond: 0,
  updatedAt: t0,
  control: DEFAULT_CONTROL,
  ...over,
});

const ticket = (id: string, over: Partial<QueueTicket> = {}): QueueTicket => ({
  id,
  eventId: 'E1',
  appId: 'app-1',
  identity: `fan:${id}`,
  joinedAt: t0,
  early: true,
  orderKey: `0${id}`,
  state: 'WAITING',
  seenAt: t0,
  ...over,
});

const kindOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error as { kind?: string }).kind,
  );

/**
 * What the waiting room's slice asks of its storage, run on the memory stores (unit tier) and on
 * the Mongo-wire server (integration tier): compare-and-set on on-sales and tickets, one place
 * per identity, the admitter's queries in order, the late-join counter under concurrency.
 */
export function waitingRoomStorageContract(name: string, open: () => Promise<Storage>): void {
  describe(`waiting room storage (${name})`, () => {
    let storage: Storage;
    beforeEach(async () => {
      storage = await open();
    });

    it('keeps one on-sale per event, written by compare-and-set', async () => {
      const { onSales } = storage;
      const stored = await onSales.insert(
        onSale('E1', { lease: { owner: 'a', until: at(5_000) } }),
      );
      expect(await kindOf(onSales.insert(onSale('E1')))).toBe('already_exists');
      const read = await onSales.get('E1');
      expect(read).toMatchObject({ eventId: 'E1', queue: true, opensAt: t0 });
      expect(read?.lease).toEqual({ owner: 'a', until: at(5_000) });
      expect(read?.control).toEqual(DEFAULT_CONTROL);
      const { version, ...current } = stored;
      await onSales.update({ ...current, soldOutAt: at(1) }, version);
      expect(await kindOf(onSales.update({ ...current, queue: false }, version))).toBe('aborted');
      expect((await onSales.get('E1'))?.soldOutAt).toEqual(at(1));
      expect(await onSales.get('nope')).toBeUndefined();
    });

    it('lists the events whose queue is on, and keeps the frozen early order', async () => {
      const { onSales } = storage;
      await onSales.insert(onSale('E1'));
      await onSales.insert(onSale('E2', { queue: false }));
      await onSales.insert(onSale('E3'));
      expect((await onSales.queued()).sort()).toEqual(['E1', 'E3']);
      expect(await onSales.earlyOrder('E1')).toBeUndefined();
      await onSales.saveEarlyOrder('E1', ['0a', '0b', '0c']);
      await onSales.saveEarlyOrder('E1', ['0a', '0b', '0c']);
      expect(await onSales.earlyOrder('E1')).toEqual(['0a', '0b', '0c']);
    });

    it('holds one place per identity of an app and event', async () => {
      const { tickets } = storage;
      await tickets.insert(ticket('t1', { identity: 'device:d1' }));
      expect(await kindOf(tickets.insert(ticket('t2', { identity: 'device:d1' })))).toBe(
        'already_exists',
      );
      await tickets.insert(ticket('t3', { identity: 'device:d1', appId: 'app-2' }));
      await tickets.insert(ticket('t4', { identity: 'device:d1', eventId: 'E2' }));
      expect((await tickets.findByIdentity('E1', 'app-1', 'device:d1'))?.id).toBe('t1');
      expect(await tickets.findByIdentity('E1', 'app-1', 'device:d9')).toBeUndefined();
    });

    it('reads several tickets by id in one call, leaving out the ids it does not hold', async () => {
      const { tickets } = storage;
      await tickets.insert(ticket('m1', { identity: 'device:m1' }));
      await tickets.insert(ticket('m2', { identity: 'device:m2', eventId: 'E2' }));
      const found = await tickets.getMany(['m1', 'm2', 'm-none']);
      expect(found.map((t) => t.id).sort()).toEqual(['m1', 'm2']);
      expect(found.find((t) => t.id === 'm2')).toMatchObject({ eventId: 'E2', version: 1 });
      expect(await tickets.getMany([])).toEqual([]);
    });

    it("answers the admitter's queries in order", async () => {
      const { tickets } = storage;
      for (const [id, key] of [
        ['a', '0c'],
        ['b', '0a'],
        ['c', '1001'],
        ['d', '0b'],
      ] as const)
        await tickets.insert(ticket(id, { orderKey: key, early: key.startsWith('0') }));
      await tickets.insert(ticket('e', { orderKey: '0d', eventId: 'E2' }));
      expect((await tickets.nextWaiting('E1', 3)).map((t) => t.id)).toEqual(['b', 'd', 'a']);
      expect((await tickets.earlyOrderKeys('E1')).sort()).toEqual(['0a', '0b', '0c']);
      expect(await tickets.countWaiting('E1')).toBe(4);
      const b = (await tickets.get('b'))!;
      const { version, ...current } = b;
      await tickets.update({ ...current, state: 'ADMITTED', admittedAt: at(10_000) }, version);
      expect(await kindOf(tickets.update({ ...current, state: 'EXPIRED' }, version))).toBe(
        'aborted',
      );
      expect(await tickets.countWaiting('E1')).toBe(3);
      expect(await tickets.countHeldBack('E1')).toBe(0);
      expect(await tickets.countAdmittedSince('E1', at(5_000))).toBe(1);
      expect(await tickets.countAdmittedSince('E1', at(20_000))).toBe(0);
      expect((await tickets.nextWaiting('E1', 10)).map((t) => t.id)).toEqual(['d', 'a', 'c']);
    });

    it("keeps held-back fans apart, and counts one app's admissions in flight", async () => {
      const { tickets } = storage;
      for (const [id, key, appId] of [
        ['h1', '0a', 'app-1'],
        ['h2', '0b', 'app-2'],
        ['h3', '0c', 'app-1'],
        ['h4', '0d', 'app-2'],
      ] as const)
        await tickets.insert(ticket(id, { orderKey: key, appId, identity: `fan:${id}` }));
      const write = async (id: string, change: Partial<QueueTicket>) => {
        const { version, ...current } = (await tickets.get(id))!;
        return tickets.update({ ...current, ...change }, version);
      };
      await write('h3', { heldBack: true });
      await write('h1', { heldBack: true });
      expect((await tickets.nextHeldBack('E1', 10)).map((t) => t.id)).toEqual(['h1', 'h3']);
      expect((await tickets.nextHeldBack('E1', 1)).map((t) => t.id)).toEqual(['h1']);
      expect((await tickets.nextHeldBack('E1', 10, 'app-1')).map((t) => t.id)).toEqual([
        'h1',
        'h3',
      ]);
      expect(await tickets.nextHeldBack('E1', 10, 'app-2')).toEqual([]);
      expect((await tickets.nextWaiting('E1', 10)).map((t) => t.id)).toEqual(['h2', 'h4']);
      expect(await tickets.countWaiting('E1')).toBe(4);
      expect(await tickets.countHeldBack('E1')).toBe(2);
      // Admitted, the mark is gone: neither list holds it, and it counts for its app.
      const { heldBack: _mark, ...h1 } = (await tickets.get('h1'))!;
      await tickets.update({ ...h1, state: 'ADMITTED', admittedAt: at(10_000) }, h1.version);
      await write('h2', { state: 'ADMITTED', admittedAt: at(12_000) });
      await write('h4', { state: 'ADMITTED', admittedAt: at(1_000) });
      expect((await tickets.get('h1'))?.heldBack).toBeUndefined();
      expect((await tickets.nextHeldBack('E1', 10)).map((t) => t.id)).toEqual(['h3']);
      expect(await tickets.nextWaiting('E1', 10)).toEqual([]);
      expect(await tickets.countAdmittedSince('E1', at(5_000))).toBe(2);
      expect(await tickets.countAdmittedSince('E1', at(5_000), 'app-1')).toBe(1);
      expect(await tickets.countAdmittedSince('E1', at(0), 'app-2')).toBe(2);
      expect(await tickets.countAdmittedSince('E1', at(5_000), 'app-3')).toBe(0);
      expect(await tickets.countAdmittedSince('E2', at(0), 'app-1')).toBe(0);
    });

    it('counts an admission in flight from its admission until it is spent, again once given back', async () => {
      const { tickets } = storage;
      await tickets.insert(ticket('s1', { identity: 'fan:s1' }));
      await tickets.insert(ticket('s2', { identity: 'fan:s2', appId: 'app-2' }));
      const write = async (id: string, change: Partial<QueueTicket>) => {
        const { version, ...current } = (await tickets.get(id))!;
        return tickets.update({ ...current, ...change }, version);
      };
      await write('s1', { state: 'ADMITTED', admittedAt: at(1_000) });
      await write('s2', { state: 'ADMITTED', admittedAt: at(2_000) });
      expect(await tickets.countAdmittedSince('E1', at(0))).toBe(2);
      // Spent on a reserve: no longer in flight.
      await write('s1', { state: 'USED' });
      expect(await tickets.countAdmittedSince('E1', at(0))).toBe(1);
      expect(await tickets.countAdmittedSince('E1', at(0), 'app-1')).toBe(0);
      // Its reserve failed: the admission is given back, in flight again from when it was made.
      await write('s1', { state: 'ADMITTED' });
      expect(await tickets.countAdmittedSince('E1', at(0), 'app-1')).toBe(1);
      expect(await tickets.countAdmittedSince('E1', at(1_500))).toBe(1);

      // An admission that lost its race (the ticket was written meanwhile) is not counted.
      await tickets.insert(ticket('s3', { identity: 'fan:s3' }));
      const stale = (await tickets.get('s3'))!;
      await write('s3', { seenAt: at(3_000) });
      const { version, ...current } = stale;
      expect(
        await kindOf(
          tickets.update({ ...current, state: 'ADMITTED', admittedAt: at(3_000) }, version),
        ),
      ).toBe('aborted');
      expect(await tickets.countAdmittedSince('E1', at(0))).toBe(2);
      // A give-back that meets another give-back leaves the ticket ADMITTED and counted once.
      await write('s2', { state: 'USED' });
      const used = (await tickets.get('s2'))!;
      const { version: usedVersion, ...usedCurrent } = used;
      await tickets.update({ ...usedCurrent, state: 'ADMITTED' }, usedVersion);
      expect(await kindOf(tickets.update({ ...usedCurrent, state: 'ADMITTED' }, usedVersion))).toBe(
        'aborted',
      );
      expect(await tickets.countAdmittedSince('E1', at(0), 'app-2')).toBe(1);
    });

    it('forgets admissions older than ten minutes before a count', async () => {
      const { tickets } = storage;
      for (const [id, admittedAt] of [
        ['o1', at(0)],
        ['o2', at(11 * 60_000)],
      ] as const) {
        const { version, ...current } = await tickets.insert(ticket(id, { identity: `fan:${id}` }));
        await tickets.update({ ...current, state: 'ADMITTED', admittedAt }, version);
      }
      // A count since 20 min removes the entry of 0 (more than 10 min before) and keeps 11's.
      expect(await tickets.countAdmittedSince('E1', at(20 * 60_000))).toBe(0);
      expect(await tickets.countAdmittedSince('E1', at(0))).toBe(1);
    });

    it("keeps each replica's latest presence report, and answers the latest time per fan", async () => {
      const { presence } = storage;
      await presence.replace('E1', 'edge-1', at(0), [
        { ticketId: 'q1', seenAtMs: at(-5_000).getTime() },
        { ticketId: 'q2', seenAtMs: at(-1_000).getTime() },
      ]);
      // A later report of the same replica replaces its last: q1 is no longer in it.
      await presence.replace('E1', 'edge-1', at(15_000), [
        { ticketId: 'q2', seenAtMs: at(14_000).getTime() },
        { ticketId: 'q3', seenAtMs: at(10_000).getTime() },
      ]);
      await presence.replace('E1', 'edge-2', at(16_000), [
        { ticketId: 'q2', seenAtMs: at(2_000).getTime() },
        { ticketId: 'q4', seenAtMs: at(16_000).getTime() },
      ]);
      await presence.replace('E2', 'edge-1', at(16_000), [
        { ticketId: 'q9', seenAtMs: at(16_000).getTime() },
      ]);
      expect(Object.fromEntries(await presence.seenOf('E1', at(0)))).toEqual({
        q2: at(14_000).getTime(),
        q3: at(10_000).getTime(),
        q4: at(16_000).getTime(),
      });
      // Reports made before `since` do not count.
      expect([...(await presence.seenOf('E1', at(15_500))).keys()]).toEqual(['q2', 'q4']);
      // An empty report removes the replica's.
      await presence.replace('E1', 'edge-2', at(20_000), []);
      expect(Object.fromEntries(await presence.seenOf('E1', at(0)))).toEqual({
        q2: at(14_000).getTime(),
        q3: at(10_000).getTime(),
      });
      expect([...(await presence.seenOf('E2', at(0))).keys()]).toEqual(['q9']);
      // A report long out of date is removed by the read that finds it so.
      expect((await presence.seenOf('E1', at(3_600_000))).size).toBe(0);
      expect((await presence.seenOf('E1', at(0))).size).toBe(0);
    });

    it('numbers late joiners once each under concurrency', async () => {
      const numbers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => storage.tickets.nextSequence('E1', `late${i}`)),
      );
      expect([...numbers].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      expect(await storage.tickets.nextSequence('E2', 'other')).toBe(1);
    });

    it('finds the late joiners by their numbers, leaving out numbers no ticket holds', async () => {
      const { tickets } = storage;
      const join = async (id: string, eventId = 'E1') => {
        const sequence = await tickets.nextSequence(eventId, id);
        await tickets.insert(
          ticket(id, { eventId, early: false, sequence, orderKey: `1${sequence}` }),
        );
        return sequence;
      };
      expect(await join('l1')).toBe(1);
      expect(await join('l2')).toBe(2);
      // Number 3 is taken by a join that lost its race: its ticket holds another number.
      expect(await tickets.nextSequence('E1', 'l1')).toBe(3);
      expect(await join('l4')).toBe(4);
      await join('x1', 'E2');
      expect(await tickets.lateJoiners('E1', 1, 10)).toMatchObject({ last: 4 });
      const ids = async (from: number, count: number) =>
        (await tickets.lateJoiners('E1', from, count)).tickets.map((t) => t.id).sort();
      expect(await ids(1, 10)).toEqual(['l1', 'l2', 'l4']);
      expect(await ids(2, 2)).toEqual(['l2']);
      expect(await ids(5, 10)).toEqual([]);
      expect(await tickets.lateJoiners('E3', 1, 10)).toEqual({ last: 0, tickets: [] });
    });
  });
}
