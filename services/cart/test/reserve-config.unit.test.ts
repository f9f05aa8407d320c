import { ConfigError } from '@marquee/platform/config';
import { describe, expect, it } from 'vitest';
import { loadCartConfig, pendingResumeMs } from '../src/config.js';

describe('resuming pending reserves', () => {
  it('resumes after 15 s by default: one attempt, the retry pause after it, and 4 s', () => {
    const config = loadCartConfig({});
    expect(config.CART_PENDING_RESUME_MS).toBeUndefined();
    expect(pendingResumeMs(config)).toBe(15_000);
  });

  it('follows a longer connector deadline when no resume is set', () => {
    // 25 s deadline, then the pause before the third attempt (1 s), then 4 s.
    expect(pendingResumeMs(loadCartConfig({ CONNECTOR_DEADLINE_MS: '25000' }))).toBe(30_000);
  });

  it('refuses a resume that would run a live reserve twice, naming the bound', () => {
    const load = () =>
      loadCartConfig({
        CONNECTOR_DEADLINE_MS: '10000',
        CART_RESERVE_ATTEMPTS: '4',
        CART_RESERVE_RETRY_MS: '500',
        CART_PENDING_RESUME_MS: '12000',
      });
    expect(load).toThrow(ConfigError);
    // One attempt (10 s) and the pause before the fourth (2 s).
    expect(load).toThrow(/CART_PENDING_RESUME_MS: must be longer than .* \(12000 ms\)/);
    const accepted = loadCartConfig({
      CART_RESERVE_ATTEMPTS: '4',
      CART_PENDING_RESUME_MS: '12001',
    });
    expect(pendingResumeMs(accepted)).toBe(12_001);
  });
});
