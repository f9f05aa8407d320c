import { describe, expect, it } from 'vitest';
import { cancelBackoffMs, queuedCancelId } from '../../src/domain/cancel-queue.js';

describe('cancelBackoffMs', () => {
  it('starts at 1 s, doubles, and stops at the maximum', () => {
    expect([1, 2, 3, 4].map((n) => cancelBackoffMs(n, 300_000))).toEqual([
      1_000, 2_000, 4_000, 8_000,
    ]);
    expect(cancelBackoffMs(20, 300_000)).toBe(300_000);
    expect(cancelBackoffMs(500, 300_000)).toBe(300_000);
  });

  it('gives the same cancel the same queue id', () => {
    expect(queuedCancelId('p1', 'O1')).toBe(queuedCancelId('p1', 'O1'));
    expect(queuedCancelId('p1', 'O1')).not.toBe(queuedCancelId('p2', 'O1'));
  });
});
