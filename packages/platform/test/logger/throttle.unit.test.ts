import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../src/logger/throttle.js';

describe('LogThrottle', () => {
  it('admits one line per key and interval and counts the ones left out', () => {
    let now = 1_000;
    const throttle = new LogThrottle(1_000, 16, () => now);

    expect(throttle.admit('a')).toBe(0);
    expect(throttle.admit('a')).toBeUndefined();
    expect(throttle.admit('a')).toBeUndefined();
    // Another key has its own interval.
    expect(throttle.admit('b')).toBe(0);
    now += 999;
    expect(throttle.admit('a')).toBeUndefined();
    now += 1;
    // The next line written says how many were left out since the last one.
    expect(throttle.admit('a')).toBe(3);
    expect(throttle.admit('a')).toBeUndefined();
    now += 5_000;
    expect(throttle.admit('a')).toBe(1);
    expect(throttle.admit('b')).toBe(0);
  });

  it('forgets the least recently used key beyond its bound', () => {
    let now = 0;
    const throttle = new LogThrottle(1_000, 2, () => now);
    throttle.admit('a');
    throttle.admit('a'); // left out: counted under a
    throttle.admit('b');
    throttle.admit('c'); // a, the oldest, is forgotten with its count
    now += 10;
    expect(throttle.admit('b')).toBeUndefined();
    // a starts afresh: admitted at once, its earlier count lost.
    expect(throttle.admit('a')).toBe(0);
  });
});
