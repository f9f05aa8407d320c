import { describe, expect, it } from 'vitest';
import { skipIsFailure } from '../../src/testing/strict.js';

describe('skipIsFailure', () => {
  it('turns a skip into a failure under CI and in pnpm test (MARQUEE_TEST_STRICT=1)', () => {
    expect(skipIsFailure({ CI: 'true' })).toBe(true);
    expect(skipIsFailure({ CI: '1' })).toBe(true);
    expect(skipIsFailure({ MARQUEE_TEST_STRICT: '1' })).toBe(true);
  });

  it('lets a suite run by hand skip itself', () => {
    expect(skipIsFailure({})).toBe(false);
    expect(skipIsFailure({ CI: 'false', MARQUEE_TEST_STRICT: '0' })).toBe(false);
  });
});
