import { describe, expect, it } from 'vitest';
import {
  MAX_HEALTH_INTERVAL_MS,
  healthStateOf,
  nextHealthDelayMs,
} from '../../src/domain/health.js';

describe('healthStateOf', () => {
  it.each([
    [{ kind: 'answer', id: 0, message: '', venuesToSync: [] }, 'HEALTHY'],
    [{ kind: 'answer', id: 901, message: '', venuesToSync: [] }, 'UNAVAILABLE'],
    [{ kind: 'answer', id: 902, message: '', venuesToSync: ['V1'] }, 'SYNC_REQUIRED'],
    [{ kind: 'unreachable', message: 'ECONNREFUSED' }, 'UNREACHABLE'],
    [{ kind: 'unauthorized', message: '401' }, 'UNAUTHORIZED'],
  ] as const)('%j → %s', (observation, state) => {
    expect(healthStateOf(observation)).toBe(state);
  });
});

describe('nextHealthDelayMs', () => {
  it('doubles while unavailable up to 10 minutes, back to the base otherwise', () => {
    expect(nextHealthDelayMs('UNAVAILABLE', 30_000, 30_000)).toBe(60_000);
    expect(nextHealthDelayMs('UNAVAILABLE', 400_000, 30_000)).toBe(MAX_HEALTH_INTERVAL_MS);
    expect(nextHealthDelayMs('HEALTHY', 480_000, 30_000)).toBe(30_000);
  });
});
