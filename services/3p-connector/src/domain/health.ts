import type { HealthState } from './partner.js';

/** What one healthcheck poll observed. */
export type HealthObservation =
  | { kind: 'answer'; id: number; message: string; venuesToSync: readonly string[] }
  | { kind: 'unreachable'; message: string }
  | { kind: 'unauthorized'; message: string };

export function healthStateOf(observation: HealthObservation): HealthState {
  switch (observation.kind) {
    case 'unreachable':
      return 'UNREACHABLE';
    case 'unauthorized':
      return 'UNAUTHORIZED';
    case 'answer':
      if (observation.id === 0) return 'HEALTHY';
      if (observation.id === 901) return 'UNAVAILABLE';
      if (observation.id === 902) return 'SYNC_REQUIRED';
      return 'UNREACHABLE';
  }
}

export const MAX_HEALTH_INTERVAL_MS = 10 * 60_000;

/** The next poll delay: doubled while the partner says 901 (up to 10 min), the base otherwise. */
export function nextHealthDelayMs(state: HealthState, currentMs: number, baseMs: number): number {
  if (state !== 'UNAVAILABLE') return baseMs;
  return Math.min(MAX_HEALTH_INTERVAL_MS, Math.max(baseMs, currentMs * 2));
}
