import { describe, expect, it } from 'vitest';
import { StallWatch } from '../../src/waiting-room/domain/stall.js';

const seconds = (watch: StallWatch, nowMs: number) =>
  Object.fromEntries(watch.stalledSeconds(nowMs).map((s) => [s.eventId, s.seconds]));

describe('StallWatch', () => {
  it('grows while fans wait and nobody is admitted, and restarts at an admission', () => {
    const watch = new StallWatch();
    watch.opened('e1', 0);
    watch.ticked('e1', { admitted: 0, soldOut: false, waiting: 40 }, 1_000);
    watch.ticked('e1', { admitted: 0, soldOut: false, waiting: 40 }, 2_000);
    expect(seconds(watch, 90_000)).toEqual({ e1: 90 });
    watch.ticked('e1', { admitted: 3, soldOut: false, waiting: 37 }, 91_000);
    expect(seconds(watch, 95_500)).toEqual({ e1: 4.5 });
  });

  it('counts a sold-out queue and an empty one as moving', () => {
    const watch = new StallWatch();
    watch.opened('sold', 0);
    watch.opened('empty', 0);
    watch.ticked('sold', { admitted: 0, soldOut: true, waiting: 500 }, 60_000);
    watch.ticked('empty', { admitted: 0, soldOut: false, waiting: 0 }, 60_000);
    expect(seconds(watch, 60_000)).toEqual({ sold: 0, empty: 0 });
  });

  it('keeps growing when ticks stop (a failing admitter) and starts at the first tick seen', () => {
    const watch = new StallWatch();
    watch.ticked('late', { admitted: 0, soldOut: false, waiting: undefined }, 10_000);
    expect(seconds(watch, 10_000)).toEqual({ late: 0 });
    expect(seconds(watch, 400_000)).toEqual({ late: 390 });
  });

  it('drops a queue this replica no longer admits for, and watches it anew if it comes back', () => {
    const watch = new StallWatch();
    watch.opened('e1', 0);
    watch.opened('e2', 0);
    watch.forget('e1');
    watch.forget('never-watched');
    expect(seconds(watch, 1_000)).toEqual({ e2: 1 });
    watch.opened('e3', 0);
    watch.retain(new Set(['e3', 'e4']));
    expect(seconds(watch, 2_000)).toEqual({ e3: 2 });
    watch.ticked('e1', { admitted: 0, soldOut: false, waiting: 9 }, 5_000);
    expect(seconds(watch, 65_000)).toEqual({ e1: 60, e3: 65 });
  });
});
