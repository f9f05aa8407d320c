import { describe, expect, it } from 'vitest';
import { loadReconcilerConfig } from '../src/config.js';

describe('TRANSACTION_RETENTION_HOURS', () => {
  it('keeps settled transactions 30 days by default, 0 keeps them for good', () => {
    expect(loadReconcilerConfig({}).TRANSACTION_RETENTION_HOURS).toBe(720);
    expect(
      loadReconcilerConfig({ TRANSACTION_RETENTION_HOURS: '0' }).TRANSACTION_RETENTION_HOURS,
    ).toBe(0);
  });

  it('must outlast the report look-back, so a report never misses a transaction', () => {
    expect(() => loadReconcilerConfig({ TRANSACTION_RETENTION_HOURS: '168' })).toThrow(
      /TRANSACTION_RETENTION_HOURS: must be longer than REPORT_LOOKBACK_MS \(168 hours\)/,
    );
    expect(
      loadReconcilerConfig({ TRANSACTION_RETENTION_HOURS: '48', REPORT_LOOKBACK_MS: '86400000' })
        .TRANSACTION_RETENTION_HOURS,
    ).toBe(48);
  });
});
