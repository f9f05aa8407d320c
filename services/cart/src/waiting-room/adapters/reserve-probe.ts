import type { ReservePathSample } from '../domain/admission.js';
import type { ReservePathProbe } from '../app/ports.js';
import type { ReserveRecorder } from '../app/reserve-gate.js';

/** Latencies kept per event between two samples at most (the newest win). */
const MAX_LATENCIES = 4_096;

interface Window {
  reserves: number;
  overloaded: number;
  latencies: number[];
}

/**
 * What admitted fans' reserves met on this replica, per event, since the admitter last sampled
 * it. Each replica measures its own reserves; the admitter of an event runs on one replica at a
 * time and sees that replica's share, which carries the same latency and, under load, refusals
 * of its own (the path is shared).
 */
export function createReserveProbe(): ReservePathProbe & ReserveRecorder {
  const windows = new Map<string, Window>();
  return {
    record(eventId, latencyMs, overloaded) {
      let window = windows.get(eventId);
      if (!window) windows.set(eventId, (window = { reserves: 0, overloaded: 0, latencies: [] }));
      window.reserves += 1;
      if (overloaded) window.overloaded += 1;
      if (window.latencies.length >= MAX_LATENCIES) window.latencies.shift();
      window.latencies.push(latencyMs);
    },
    sample(eventId): ReservePathSample {
      const window = windows.get(eventId);
      windows.delete(eventId);
      if (!window || window.reserves === 0) return { reserves: 0, overloaded: 0, p95LatencyMs: 0 };
      const sorted = window.latencies.sort((a, b) => a - b);
      const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
      return { reserves: window.reserves, overloaded: window.overloaded, p95LatencyMs: p95 };
    },
  };
}
