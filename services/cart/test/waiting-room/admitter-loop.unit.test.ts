import { metricsText } from '@marquee/platform/metrics';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { admitterLoop } from '../../src/waiting-room/adapters/admitter-loop.js';
import type { AdmitTick, TickOutcome } from '../../src/waiting-room/app/admit.js';

/** A gauge's value for the event, as a scrape reads it. */
async function gauge(name: string, eventId: string): Promise<number | undefined> {
  const prefix = `${name}{event_id="${eventId}"} `;
  const line = (await metricsText()).split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

const stalled = (eventId: string) => gauge('marquee_queue_stalled_seconds', eventId);

const admitted = (count: number, soldOut = false): TickOutcome => ({
  kind: 'admitted',
  admitted: count,
  left: 0,
  heldBack: 0,
  window: 10,
  waitsMs: [],
  soldOut,
});

describe('admitterLoop: marquee_queue_stalled_seconds', () => {
  let stop: (() => Promise<void>) | undefined;
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(async () => {
    await stop?.();
    vi.useRealTimers();
  });

  it('grows while waiting fans get no admission, and not for sold-out, held-back or closed queues', async () => {
    let queued = ['stuck', 'sold'];
    let stuck: () => TickOutcome = () => admitted(0);
    let heldBack = 0;
    const opened = new Set<string>();
    const admitter = {
      handle: async (eventId: string): Promise<TickOutcome> => {
        if (!opened.has(eventId)) {
          opened.add(eventId);
          return { kind: 'frozen', earlyCount: 10 };
        }
        return eventId === 'sold' ? admitted(0, true) : stuck();
      },
    } as unknown as AdmitTick;
    const loop = admitterLoop({
      admitter,
      onSales: { queued: async () => queued },
      tickets: { countWaiting: async () => 10, countHeldBack: async () => heldBack },
      tickMs: 1_000,
      onError: () => {},
    });
    stop = async () => {
      await loop.stop();
      loop.stopGauge();
    };
    loop.start();

    await vi.advanceTimersByTimeAsync(61_000);
    expect(await stalled('stuck')).toBeGreaterThanOrEqual(59);
    expect(await stalled('stuck')).toBeLessThanOrEqual(61);
    expect(await stalled('sold')).toBe(0);

    // Ticks that fail leave the stall growing.
    stuck = () => {
      throw new Error('store down');
    };
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await stalled('stuck')).toBeGreaterThanOrEqual(89);

    // An admission: moving again.
    stuck = () => admitted(2);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await stalled('stuck')).toBeLessThanOrEqual(2);

    // Every fan left is held back by its app's quota: not a stall, from the next count on.
    stuck = () => admitted(0);
    heldBack = 10;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await stalled('stuck')).toBeLessThanOrEqual(16);

    // Fans whose turn can come again, and none admitted: stalled once more.
    heldBack = 0;
    await vi.advanceTimersByTimeAsync(45_000);
    expect(await stalled('stuck')).toBeGreaterThanOrEqual(25);
    expect(await gauge('marquee_queue_waiting', 'stuck')).toBe(10);

    // A tick whose lease write raced another write of the on-sale (a sell-out marked) changes
    // nothing: the series stays until a tick tells whether this replica still admits.
    const before = (await stalled('stuck'))!;
    stuck = () => ({ kind: 'contended' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await stalled('stuck')).toBeGreaterThanOrEqual(before + 1);

    // The queue turned off: its series read 0 (the exporter keeps a series once seen).
    queued = ['sold'];
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await stalled('stuck')).toBe(0);
    expect(await gauge('marquee_queue_waiting', 'stuck')).toBe(0);
    expect(await stalled('sold')).toBe(0);
  });
});
