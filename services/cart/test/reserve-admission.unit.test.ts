import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ReserveAdmission,
  type ReserveAdmissionSettings,
} from '../src/app/core/reserve-admission.js';
import { InMemorySoldOutBook } from '../src/app/core/sold-out-book.js';
import type { Reserve } from '../src/domain/reserve.js';

const EVENT = 'E0000000000001A';
const OTHER = 'E0000000000002B';

const overloaded = { kind: 'unavailable', details: { reason: 'overloaded' } };

/** A best-available reserve of one ticket of `priceLevelId` (any level when empty). */
const oneTicket = (priceLevelId = ''): Reserve => ({
  tickets: [{ priceTypeId: '000001', quantity: 1, priceLevelId }],
  areaIds: [],
  section: '',
  row: '',
  beginSeat: 0,
  endSeat: 0,
  acceptBestAvailable: true,
});

function admission(settings: ReserveAdmissionSettings) {
  const book = new InMemorySoldOutBook({ now: () => new Date() }, 5_000);
  return new ReserveAdmission(settings, book);
}

/** What `fn` throws (undefined when it returns). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The outcome of `promise` as far as it has settled now ('waiting' while it has not). */
async function state<T>(promise: Promise<T>): Promise<T | 'waiting' | { error: unknown }> {
  const marker = Symbol('waiting');
  const settled = await Promise.race([
    promise.then(
      (value) => value,
      (error: unknown) => ({ error }),
    ),
    Promise.resolve().then(() => marker),
  ]);
  return settled === marker ? 'waiting' : (settled as T | { error: unknown });
}

describe('ReserveAdmission: the line for a reserve place', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hands freed places to the waiting requests in the order they came', async () => {
    const places = admission({ maxReservesInFlight: 2, reserveQueueWaitMs: 2_000 });
    const first = await places.awaitSlot(EVENT);
    const second = await places.awaitSlot(EVENT);
    const order: string[] = [];
    const third = places.awaitSlot(EVENT).then((release) => (order.push('third'), release));
    const fourth = places.awaitSlot(EVENT).then((release) => (order.push('fourth'), release));
    expect(places.waiting).toBe(2);
    // No place free: a request that does not wait is refused, and does not pass the line.
    expect(thrown(() => places.takeSlot())).toMatchObject(overloaded);

    first!();
    first!(); // giving a place back twice frees it once
    expect(typeof (await third)).toBe('function');
    expect(await state(fourth)).toBe('waiting');
    second!();
    expect(typeof (await fourth)).toBe('function');
    expect(order).toEqual(['third', 'fourth']);
    expect(places.waiting).toBe(0);
  });

  it('refuses a request that waited its longest, and one beyond the line’s length, overloaded', async () => {
    const places = admission({
      maxReservesInFlight: 1,
      reserveQueueMax: 1,
      reserveQueueWaitMs: 1_500,
    });
    await places.awaitSlot(EVENT);
    const waiting = places.awaitSlot(EVENT);
    waiting.catch(() => undefined);
    await expect(places.awaitSlot(EVENT)).rejects.toMatchObject({
      ...overloaded,
      details: { retryAfterMs: expect.any(Number) },
    });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(await state(waiting)).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    await expect(waiting).rejects.toMatchObject(overloaded);
    expect(places.waiting).toBe(0);
  });

  it('waits no longer than leaves the reserve its PENDING wait and writes within the deadline', async () => {
    const places = admission({ maxReservesInFlight: 1 });
    await places.awaitSlot(EVENT, 5_000);
    // 3.5 s left: 3 s for the PENDING answer's wait and the writes leave 0.5 s in line.
    const short = places.awaitSlot(EVENT, 3_500);
    short.catch(() => undefined);
    // 3 s left or less: no time in line at all.
    await expect(places.awaitSlot(EVENT, 3_000)).rejects.toMatchObject(overloaded);
    await vi.advanceTimersByTimeAsync(499);
    expect(await state(short)).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    await expect(short).rejects.toMatchObject(overloaded);
  });

  it('shrinks the line when served requests take long (a slow store), down to none', async () => {
    const places = admission({ maxReservesInFlight: 1 });
    const slow = await places.awaitSlot(EVENT, 5_000);
    await vi.advanceTimersByTimeAsync(2_600); // held its place 2.6 s: 5.2 s kept after the line
    slow!();
    await places.awaitSlot(EVENT, 5_000);
    await expect(places.awaitSlot(EVENT, 5_000)).rejects.toMatchObject(overloaded);
    // With 5.6 s left, 0.4 s in line.
    const short = places.awaitSlot(EVENT, 5_600);
    short.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(399);
    expect(await state(short)).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    await expect(short).rejects.toMatchObject(overloaded);
  });

  it('with no line (wait 0) refuses at once when every place is taken', async () => {
    const places = admission({ maxReservesInFlight: 1, reserveQueueWaitMs: 0 });
    const release = await places.awaitSlot(EVENT);
    await expect(places.awaitSlot(EVENT)).rejects.toMatchObject(overloaded);
    release!();
    expect(typeof (await places.awaitSlot(EVENT))).toBe('function');
  });

  it('counts a reserve answered PENDING until it ends, then hands its place on', async () => {
    const places = admission({ maxReservesInFlight: 1 });
    const release = await places.awaitSlot(EVENT);
    let finish!: () => void;
    places.keepPlaceUntil(new Promise<void>((resolve) => (finish = resolve)));
    release!(); // the request was answered; its reserve goes on
    const next = places.awaitSlot(EVENT);
    await vi.advanceTimersByTimeAsync(10);
    expect(await state(next)).toBe('waiting');
    finish();
    expect(typeof (await next)).toBe('function');
  });

  it('sends the event’s waiters to the sold-out book the moment it is marked, others keep waiting', async () => {
    const places = admission({ maxReservesInFlight: 1 });
    const release = await places.awaitSlot(EVENT);
    const ofEvent = [places.awaitSlot(EVENT), places.awaitSlot(EVENT)];
    const ofOther = places.awaitSlot(OTHER);
    // A refusal of a reserve asking for seats by area marks nothing: the waiters stay in line.
    places.noteSoldOut(EVENT, [{ ...oneTicket('PL1'), areaIds: ['A1'] }]);
    expect(await state(ofEvent[0]!)).toBe('waiting');

    places.noteSoldOut(EVENT, [oneTicket('PL1')]);
    expect(await Promise.all(ofEvent)).toEqual([undefined, undefined]);
    expect(places.waiting).toBe(1);
    // The book covers a waiter's reserve of that level; another level still goes to the partner.
    expect(thrown(() => places.refuseIfSoldOut(EVENT, [oneTicket('PL1')]))).toMatchObject({
      kind: 'resource_exhausted',
      details: { reason: '20052', event_id: EVENT },
    });
    expect(thrown(() => places.refuseIfSoldOut(EVENT, [oneTicket('PL2')]))).toBeUndefined();

    release!();
    expect(typeof (await ofOther)).toBe('function');
  });

  it('checks at most 32 requests against the book at once, the next in turn within the deadline', async () => {
    const places = admission({});
    const turns = await Promise.all(Array.from({ length: 32 }, () => places.awaitBookCheck(5_000)));
    const next = places.awaitBookCheck(5_000);
    const late = places.awaitBookCheck(1_500); // 0.5 s to wait before its read's last second
    late.catch(() => undefined);
    await expect(places.awaitBookCheck(1_000)).rejects.toMatchObject(overloaded);
    await vi.advanceTimersByTimeAsync(499);
    expect(await state(late)).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    await expect(late).rejects.toMatchObject(overloaded);
    expect(await state(next)).toBe('waiting');
    turns[0]!();
    turns[0]!(); // a turn given back twice frees one
    expect(typeof (await next)).toBe('function');
    expect(await state(places.awaitBookCheck(5_000))).toBe('waiting');
  });
});
