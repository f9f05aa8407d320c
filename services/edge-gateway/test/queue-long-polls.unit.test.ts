import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOnSaleWatch, QueueLongPolls, waitingMayEnd } from '../src/app/queue-long-polls.js';
import { QueuePresenceTracker } from '../src/app/queue-presence.js';
import { createTicketReads } from '../src/app/queue-ticket-reads.js';
import type { OnSaleRecord, QueueTicketRecord } from '../src/app/waiting-room.js';

// The edge's long polls of queue tickets (app/queue-long-polls.ts): one watch of an event's
// on-sale shared by every waiting fan of a replica, on a fake clock and a fake cart.

const OPENS = new Date('2030-06-01T10:00:00Z');
const onSale = (extra: Partial<OnSaleRecord> = {}): OnSaleRecord => ({
  eventId: 'E1',
  opensAt: OPENS,
  queue: true,
  earlyCount: 0,
  admittedThrough: 0,
  ...extra,
});
const caller = { appId: 'app-1', sandbox: false } as never;
const WAITING_TICKET: QueueTicketRecord = {
  id: 'q_1',
  eventId: 'E1',
  status: 'WAITING',
  opensAt: OPENS,
  joinedAt: OPENS,
};

beforeEach(() => {
  vi.useFakeTimers({ now: OPENS });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The fan's answer, the clock moving until it comes (a wait ends up to a fifth early). */
async function answerOf(poll: Promise<QueueTicketRecord>): Promise<QueueTicketRecord> {
  let answer: QueueTicketRecord | undefined;
  void poll.then((a) => (answer = a));
  while (!answer) await vi.advanceTimersByTimeAsync(100);
  return answer;
}

/** A fake cart whose on-sale the test moves; it counts the calls. */
function fakeCart(initial: OnSaleRecord = onSale()) {
  const cart = { current: initial, calls: 0, failWith: undefined as Error | undefined };
  const read = async (eventId: string) => {
    cart.calls += 1;
    if (cart.failWith) throw cart.failWith;
    return { ...cart.current, eventId };
  };
  return { cart, read };
}

describe('waitingMayEnd', () => {
  it('ends a wait on the freeze (no rank yet), on the fan’s admission, a sell-out or the queue off', () => {
    expect(waitingMayEnd(onSale(), undefined)).toBe(false);
    expect(waitingMayEnd(onSale({ frozenAt: OPENS }), undefined)).toBe(true);
    expect(waitingMayEnd(onSale({ frozenAt: OPENS, admittedThrough: 4 }), 5)).toBe(false);
    expect(waitingMayEnd(onSale({ frozenAt: OPENS, admittedThrough: 5 }), 5)).toBe(true);
    expect(waitingMayEnd(onSale({ frozenAt: OPENS, soldOutAt: OPENS }), 500)).toBe(true);
    expect(waitingMayEnd(onSale({ queue: false }), 500)).toBe(true);
  });

  it("ends a held-back fan's wait when its app's admissions reach it, not the queue's", () => {
    const passed = onSale({ frozenAt: OPENS, admittedThrough: 9, heldBackThrough: { 'app-1': 2 } });
    expect(waitingMayEnd(passed, 5)).toBe(true);
    expect(waitingMayEnd(passed, 5, 'app-1')).toBe(false);
    expect(waitingMayEnd(passed, 5, 'app-2')).toBe(false);
    expect(waitingMayEnd({ ...passed, heldBackThrough: { 'app-1': 5 } }, 5, 'app-1')).toBe(true);
    expect(waitingMayEnd({ ...passed, soldOutAt: OPENS }, 5, 'app-1')).toBe(true);
  });
});

describe('the on-sale watch', () => {
  it('reads the on-sale once per poll for all of an event’s waiters, and stops with the last', async () => {
    const { cart, read } = fakeCart(onSale({ frozenAt: OPENS }));
    const watch = createOnSaleWatch(read, { pollMs: 500, onError: () => undefined });
    const answers = Array.from({ length: 1_000 }, (_, i) =>
      watch.until('E1', (o) => waitingMayEnd(o, i + 1), 25_000),
    );
    expect(watch.waiting('E1')).toBe(1_000);
    await vi.advanceTimersByTimeAsync(500);
    expect(cart.calls).toBe(1);
    cart.current = onSale({ frozenAt: OPENS, admittedThrough: 400 });
    await vi.advanceTimersByTimeAsync(500);
    expect(cart.calls).toBe(2);
    expect(watch.waiting('E1')).toBe(600);
    cart.current = onSale({ frozenAt: OPENS, admittedThrough: 400, soldOutAt: OPENS });
    await vi.advanceTimersByTimeAsync(500);
    expect(await Promise.all(answers)).toEqual(Array(1_000).fill(true));
    expect(watch.waiting('E1')).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(cart.calls).toBe(3);
  });

  it('answers false when the time runs out, up to a fifth early at random', async () => {
    const { read } = fakeCart();
    let draw = 0;
    const watch = createOnSaleWatch(read, {
      pollMs: 500,
      onError: () => undefined,
      random: () => [0, 0.999][draw++ % 2]!,
    });
    const settled: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 2; i += 1)
      void watch
        .until('E1', () => false, 10_000)
        .then((changed) => {
          expect(changed).toBe(false);
          settled.push(Date.now() - started);
        });
    await vi.advanceTimersByTimeAsync(8_100);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toBeGreaterThanOrEqual(8_000);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(settled).toHaveLength(2);
    expect(settled[1]).toBe(10_000);
  });

  it('reports a failed read and polls again; an on-sale gone answers every waiter', async () => {
    const { cart, read } = fakeCart();
    const errors: unknown[] = [];
    const watch = createOnSaleWatch(read, { pollMs: 500, onError: (e) => errors.push(e) });
    const answer = watch.until('E1', () => false, 25_000);
    cart.failWith = Object.assign(new Error('unavailable'), { kind: 'unavailable' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveLength(2);
    expect(watch.waiting('E1')).toBe(1);
    cart.failWith = Object.assign(new Error('gone'), { kind: 'not_found' });
    await vi.advanceTimersByTimeAsync(500);
    expect(await answer).toBe(true);
    expect(errors).toHaveLength(2);
  });

  it('answers every waiter when stopped, and each later wait at once', async () => {
    const { cart, read } = fakeCart();
    const watch = createOnSaleWatch(read, { pollMs: 500, onError: () => undefined });
    const waits = [watch.until('E1', () => true, 25_000), watch.until('E2', () => true, 25_000)];
    watch.stop();
    expect(await Promise.all(waits)).toEqual([false, false]);
    expect(await watch.until('E1', () => true, 25_000)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(cart.calls).toBe(0);
  });
});

describe('batched reads of tickets', () => {
  it('reads at once while calls are free, and batches per event what comes meanwhile', async () => {
    const calls: Array<{ eventId: string; ids: string[] }> = [];
    const finish: Array<() => void> = [];
    const backend = {
      readMany: async (eventId: string, refs: ReadonlyArray<{ ticketId: string }>) => {
        calls.push({ eventId, ids: refs.map((r) => r.ticketId) });
        await new Promise<void>((resolve) => finish.push(resolve));
        // The batch leaves out what cart did not find (here: "q_gone").
        return refs
          .filter((r) => r.ticketId !== 'q_gone')
          .map((r) => ({ ...WAITING_TICKET, id: r.ticketId, eventId }));
      },
      read: async () => {
        throw Object.assign(new Error('queue ticket q_gone not found'), { kind: 'not_found' });
      },
    };
    const reads = createTicketReads(backend, { maxBatch: 3, batchesInFlight: 1 });
    const first = reads.read(caller, 'E1', 'q_0');
    const rest = Promise.allSettled(
      ['q_1', 'q_2', 'q_3', 'q_gone'].map((id) => reads.read(caller, 'E1', id)),
    );
    const other = reads.read(caller, 'E2', 'q_9');
    expect(calls).toEqual([{ eventId: 'E1', ids: ['q_0'] }]);
    expect(reads.load()).toEqual({ calls: 1, queued: 5 });
    finish.shift()!();
    expect((await first).id).toBe('q_0');
    await vi.advanceTimersByTimeAsync(0);
    // The next call: up to three of E1's waiting reads, in arrival order.
    expect(calls[1]).toEqual({ eventId: 'E1', ids: ['q_1', 'q_2', 'q_3'] });
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[2]).toEqual({ eventId: 'E1', ids: ['q_gone'] });
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[3]).toEqual({ eventId: 'E2', ids: ['q_9'] });
    finish.shift()!();
    const [one, two, three, gone] = await rest;
    expect([one, two, three].map((r) => r?.status === 'fulfilled' && r.value.id)).toEqual([
      'q_1',
      'q_2',
      'q_3',
    ]);
    expect(gone).toMatchObject({ status: 'rejected', reason: { kind: 'not_found' } });
    expect((await other).eventId).toBe('E2');
    await vi.advanceTimersByTimeAsync(0);
    expect(reads.load()).toEqual({ calls: 0, queued: 0 });
  });

  it('fails every read of a batch whose call failed', async () => {
    const reads = createTicketReads(
      {
        readMany: () => Promise.reject(Object.assign(new Error('down'), { kind: 'unavailable' })),
        read: () => Promise.reject(new Error('not asked')),
      },
      { maxBatch: 10, batchesInFlight: 2 },
    );
    const results = await Promise.allSettled(
      ['q_1', 'q_2'].map((id) => reads.read(caller, 'E1', id)),
    );
    expect(results.map((r) => r.status === 'rejected' && r.reason.kind)).toEqual([
      'unavailable',
      'unavailable',
    ]);
  });
});

describe('long polls held at the edge', () => {
  const WAITING = WAITING_TICKET;

  function setUp(tickets: (reads: number) => QueueTicketRecord, presence?: QueuePresenceTracker) {
    const { cart, read } = fakeCart();
    const watch = createOnSaleWatch(read, { pollMs: 500, onError: () => undefined });
    let reads = 0;
    const backend = {
      read: () => Promise.reject(new Error('not asked')),
      readMany: async () => [tickets((reads += 1))],
    };
    const polls = new QueueLongPolls(backend, watch, {
      maxBatch: 10,
      batchesInFlight: 2,
      ...(presence ? { presence } : {}),
    });
    return { cart, polls, reads: () => reads };
  }

  it('answers the fan’s rank once the opening froze the order, then its admission', async () => {
    const sut = setUp((n) => (n === 1 ? WAITING : { ...WAITING, rank: 3, position: 3 }));
    const first = sut.polls.read(caller, 'E1', 'q_1', 25);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(sut.reads()).toBe(1);
    sut.cart.current = onSale({ frozenAt: OPENS, earlyCount: 5 });
    await vi.advanceTimersByTimeAsync(500);
    expect(await first).toMatchObject({ rank: 3, position: 3 });
    expect(sut.reads()).toBe(2);
  });

  it('waits again when the new read shows the same rank still WAITING, until the wait runs out', async () => {
    const sut = setUp(() => ({ ...WAITING, rank: 3, position: 1 }));
    sut.cart.current = onSale({ frozenAt: OPENS, earlyCount: 5, admittedThrough: 3 });
    const answer = sut.polls.read(caller, 'E1', 'q_1', 2);
    let done = false;
    void answer.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1_600);
    // Woken on each poll (its rank reads admitted), read again, still WAITING: it waits again.
    expect(sut.reads()).toBe(4);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(await answer).toMatchObject({ status: 'WAITING', rank: 3 });
  });

  it('holds a held-back fan passed by the queue until its app admits it, without a read per poll', async () => {
    const heldBack = { ...WAITING, rank: 3, position: 1, heldBack: true as const };
    let admitted = false;
    const sut = setUp(() => (admitted ? { ...WAITING, status: 'ADMITTED' as const } : heldBack));
    const passed = { frozenAt: OPENS, earlyCount: 5, admittedThrough: 5 };
    sut.cart.current = onSale({ ...passed, heldBackThrough: { 'app-1': 1 } });
    const answer = sut.polls.read(caller, 'E1', 'q_1', 25);
    let done = false;
    void answer.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(5_000);
    // `admittedThrough` passed its rank: still one read (the first), no answer.
    expect(sut.reads()).toBe(1);
    expect(done).toBe(false);
    // Another app's held-back fans are admitted: nothing for this fan either.
    sut.cart.current = onSale({ ...passed, heldBackThrough: { 'app-1': 1, 'app-2': 4 } });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sut.reads()).toBe(1);
    admitted = true;
    sut.cart.current = onSale({ ...passed, heldBackThrough: { 'app-1': 3, 'app-2': 4 } });
    await vi.advanceTimersByTimeAsync(500);
    expect(await answer).toMatchObject({ status: 'ADMITTED' });
    expect(sut.reads()).toBe(2);
  });

  it('lets a held-back fan its app passed (not admitted in order) wait for the end only', async () => {
    const sut = setUp(() => ({ ...WAITING, rank: 3, position: 1, heldBack: true as const }));
    sut.cart.current = onSale({
      frozenAt: OPENS,
      earlyCount: 5,
      admittedThrough: 5,
      heldBackThrough: { 'app-1': 4 },
    });
    const answer = sut.polls.read(caller, 'E1', 'q_1', 10);
    await vi.advanceTimersByTimeAsync(5_000);
    // Woken once, read again still held back: it waits for the queue's end or its wait's.
    expect(sut.reads()).toBe(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await answer).toMatchObject({ status: 'WAITING', heldBack: true });
    // The end of the wait reads it once more, as any fan's.
    expect(sut.reads()).toBe(3);
  });

  it('spares a fan asking again right after a WAITING answer its first read', async () => {
    let admitted = false;
    const sut = setUp((n) =>
      n === 1
        ? WAITING
        : admitted
          ? { ...WAITING, status: 'ADMITTED', admissionToken: 't' }
          : { ...WAITING, rank: 3, position: 3 },
    );
    const first = sut.polls.read(caller, 'E1', 'q_1', 25);
    sut.cart.current = onSale({ frozenAt: OPENS, earlyCount: 5 });
    await vi.advanceTimersByTimeAsync(500);
    expect(await first).toMatchObject({ status: 'WAITING', rank: 3 });
    expect(sut.reads()).toBe(2);
    // Asked again at once: the on-sale just polled shows nothing for rank 3, so it waits unread.
    const second = sut.polls.read(caller, 'E1', 'q_1', 25);
    await vi.advanceTimersByTimeAsync(0);
    expect(sut.reads()).toBe(2);
    admitted = true;
    sut.cart.current = onSale({ frozenAt: OPENS, earlyCount: 5, admittedThrough: 3 });
    await vi.advanceTimersByTimeAsync(500);
    expect(await second).toMatchObject({ status: 'ADMITTED' });
    expect(sut.reads()).toBe(3);
    // Another app asking for the same ticket id is read (its answer is cart's, never this one).
    await sut.polls.read({ appId: 'app-2', sandbox: false } as never, 'E1', 'q_1', 25);
    expect(sut.reads()).toBe(4);
  });

  it('answers a sell-out without a read to fans ranked above the admission horizon', async () => {
    let soldOut = false;
    const sut = setUp(() =>
      soldOut
        ? { id: 'q_1', eventId: 'E1', status: 'SOLD_OUT', joinedAt: OPENS }
        : { ...WAITING, rank: 900, position: 800 },
    );
    sut.cart.current = onSale({ frozenAt: OPENS, earlyCount: 2_000, admittedThrough: 100 });
    const far = sut.polls.read(caller, 'E1', 'q_1', 25);
    await vi.advanceTimersByTimeAsync(0);
    expect(sut.reads()).toBe(1);
    // Sold out with the horizon at 500: rank 900 cannot have been admitted, so it is told at once.
    sut.cart.current = onSale({
      frozenAt: OPENS,
      earlyCount: 2_000,
      admittedThrough: 100,
      soldOutAt: OPENS,
      admissionHorizon: 500,
    });
    await vi.advanceTimersByTimeAsync(500);
    expect(await far).toEqual({ id: 'q_1', eventId: 'E1', status: 'SOLD_OUT', joinedAt: OPENS });
    expect(sut.reads()).toBe(1);
    // Within the horizon (or without one, from an older cart) the ticket is read: cart decides.
    for (const admissionHorizon of [1_000, undefined]) {
      soldOut = false;
      sut.cart.current = onSale({
        frozenAt: OPENS,
        admittedThrough: 100,
        soldOutAt: OPENS,
        ...(admissionHorizon ? { admissionHorizon } : {}),
      });
      const before = sut.reads();
      const read = sut.polls.read(caller, 'E1', 'q_1', 25);
      await vi.advanceTimersByTimeAsync(0);
      soldOut = true;
      await vi.advanceTimersByTimeAsync(500);
      expect(await read).toMatchObject({ status: 'SOLD_OUT' });
      expect(sut.reads()).toBe(before + 2);
    }
  });

  it('ends a wait nothing changed without a read while its last read is recent, then reads', async () => {
    const sut = setUp(() => ({ ...WAITING, rank: 900, position: 800, estimatedWaitSeconds: 80 }));
    const frozen = { frozenAt: OPENS, earlyCount: 2_000 };
    // Cart's admission horizon: two batches of 100 past the admitted ranks.
    const at = (admittedThrough: number) => ({
      admittedThrough,
      admissionHorizon: admittedThrough + 200,
    });
    sut.cart.current = onSale({ ...frozen, ...at(100), admissionsPerSecond: 10 });
    const first = sut.polls.read(caller, 'E1', 'q_1', 25);
    await vi.advanceTimersByTimeAsync(10_000);
    // Admissions move on, short of rank 900: nothing wakes the fan.
    sut.cart.current = onSale({ ...frozen, ...at(300), admissionsPerSecond: 10 });
    // Its position and estimate come from the on-sale polled last, as cart would work them out.
    expect(await answerOf(first)).toMatchObject({
      status: 'WAITING',
      rank: 900,
      position: 600,
      estimatedWaitSeconds: 60,
    });
    expect(sut.reads()).toBe(1);
    // Asked again at once, the next wait starts unread and ends 40 to 50 s after the read: it
    // reads, which keeps the fan in the queue at cart.
    expect(await answerOf(sut.polls.read(caller, 'E1', 'q_1', 25))).toMatchObject({
      status: 'WAITING',
      position: 800,
    });
    expect(sut.reads()).toBe(2);
    // The read just made counts: the next wait ends unread again.
    sut.cart.current = onSale({ ...frozen, ...at(500), admissionsPerSecond: 20 });
    expect(await answerOf(sut.polls.read(caller, 'E1', 'q_1', 25))).toMatchObject({
      position: 400,
      estimatedWaitSeconds: 20,
    });
    expect(sut.reads()).toBe(2);
    // Within the horizon a tick may have admitted it unrecorded: the end of each wait reads.
    sut.cart.current = onSale({ ...frozen, ...at(750), admissionsPerSecond: 20 });
    expect(await answerOf(sut.polls.read(caller, 'E1', 'q_1', 25))).toMatchObject({
      position: 800,
    });
    expect(sut.reads()).toBe(3);
    // So does a cart that gives no horizon, or no rate (an earlier release gives neither; it
    // refreshes the fan's presence too seldom for a read every other wait).
    sut.cart.current = onSale({ ...frozen, admittedThrough: 500, admissionsPerSecond: 20 });
    await answerOf(sut.polls.read(caller, 'E1', 'q_1', 25));
    expect(sut.reads()).toBe(4);
    sut.cart.current = onSale({ ...frozen, ...at(500) });
    await answerOf(sut.polls.read(caller, 'E1', 'q_1', 25));
    expect(sut.reads()).toBe(5);
  });

  it('ends a far-back fan’s waits unread however old its last read while cart takes presence reports', async () => {
    const reports: Array<Array<{ ticketId: string; seenAtMs: number }>> = [];
    const cart = { failWith: undefined as Error | undefined };
    const presence = new QueuePresenceTracker(
      {
        reportPresence: async (_eventId, _reporter, fans) => {
          if (cart.failWith) throw cart.failWith;
          reports.push([...fans]);
        },
      },
      { reporter: 'edge-1', onError: () => undefined },
    );
    const sut = setUp(() => ({ ...WAITING, rank: 900, position: 800 }), presence);
    sut.cart.current = onSale({
      frozenAt: OPENS,
      earlyCount: 2_000,
      admittedThrough: 100,
      admissionHorizon: 300,
      admissionsPerSecond: 10,
    });
    const poll = () => answerOf(sut.polls.read(caller, 'E1', 'q_1', 25));
    expect(await poll()).toMatchObject({ status: 'WAITING', position: 800 });
    // The first wait began with a read; the reports (every 15 s) have held the fan since.
    expect(sut.reads()).toBe(1);
    expect(presence.reported('E1')).toBe(true);
    // Four more waits, asked again at once each time (up to 125 s after the read): none is read.
    for (let i = 0; i < 4; i += 1) await poll();
    expect(sut.reads()).toBe(1);
    expect(reports.length).toBeGreaterThanOrEqual(7);
    // Each report holds the fan as of its last ask, never more than a wait before.
    const last = reports.at(-1)!;
    expect(last.map((f) => f.ticketId)).toEqual(['q_1']);
    expect(Date.now() - last[0]!.seenAtMs).toBeLessThanOrEqual(25_000 + 15_000);
    // Cart stops taking them (an earlier release): the wait under way ends with a read, as
    // without reports (its last read is long past).
    cart.failWith = Object.assign(new Error('12 UNIMPLEMENTED'), { kind: 'internal' });
    await poll();
    expect(presence.reported('E1')).toBe(false);
    expect(sut.reads()).toBe(2);
    presence.stop();
  });

  it('answers a wait of 0 with one read and no watch', async () => {
    const sut = setUp(() => WAITING);
    expect(await sut.polls.read(caller, 'E1', 'q_1', 0)).toEqual(WAITING);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sut.cart.calls).toBe(0);
  });
});
