import { ConfigError } from '@marquee/platform/config';
import { describe, expect, it } from 'vitest';
import { loadCartConfig } from '../src/config.js';

describe('resuming pending reserves', () => {
  it('resumes after 15 s by default, longer than one attempt and its retry pause', () => {
    const config = loadCartConfig({});
    expect(config.CART_PENDING_RESUME_MS).toBe(15_000);
    expect(config.CART_PENDING_RESUME_MS).toBeGreaterThan(
      config.CONNECTOR_DEADLINE_MS + config.CART_RESERVE_RETRY_MS * 2,
    );
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
    expect(
      loadCartConfig({ CART_RESERVE_ATTEMPTS: '4', CART_PENDING_RESUME_MS: '12001' })
        .CART_PENDING_RESUME_MS,
    ).toBe(12_001);
  });
});
