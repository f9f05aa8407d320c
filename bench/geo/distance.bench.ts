/**
 * Great-circle distance on the geo-search hot paths (@marquee/geo): nanoseconds per call and young
 * collections per million calls, for the call shapes the services use.
 *
 *  - `distanceKm(point, point)`: catalog-indexer's radius search and distance sort (points it keeps).
 *  - `haversineKm(numbers)`: deals' `latlong` + `radius` filter over its search keys.
 *  - `distanceKm(point, { ...key })`: the shape deals had before, a point object per candidate, for
 *    comparison. V8 removes that allocation when it inlines the call (escape analysis; then the
 *    collections column stays 0), which nothing guarantees on a busier call site.
 *
 * The constants inside @marquee/geo are module-private on purpose: reading an exported binding in
 * the function cost about 6 ns a call (28 %) on Node 24.
 *
 * Usage: pnpm --filter @marquee/bench geo   (after `pnpm -s turbo run build --filter=@marquee/bench...`)
 * Env: GEO_BENCH_CALLS (20000000 per shape), GEO_BENCH_ROUNDS (5; the best round is reported).
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { distanceKm, haversineKm, type Point } from '@marquee/geo';
import { random } from '../random.ts';

const next = random(4242);

const CALLS = Number(process.env.GEO_BENCH_CALLS ?? 20_000_000);
const ROUNDS = Number(process.env.GEO_BENCH_ROUNDS ?? 5);

/** 4,096 venues over the contiguous United States, as plain points and as search-key-like objects. */
const points: Point[] = [];
const keys: Array<{ id: string; latitude: number; longitude: number; startMs: number }> = [];
for (let i = 0; i < 4096; i++) {
  const latitude = 25 + next() * 24;
  const longitude = -124 + next() * 57;
  points.push({ latitude, longitude });
  keys.push({ id: `e${i}`, latitude, longitude, startMs: i });
}
const center: Point = { latitude: 40.758, longitude: -73.9855 };
const mask = points.length - 1;

let minorCollections = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as { detail?: { kind?: number } };
    if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minorCollections++;
  }
}).observe({ entryTypes: ['gc'] });

const shapes: Record<string, () => number> = {
  'distanceKm(point, point)': () => {
    let within = 0;
    for (let i = 0; i < CALLS; i++) if (distanceKm(center, points[i & mask]!) <= 500) within++;
    return within;
  },
  'haversineKm(numbers)': () => {
    let within = 0;
    for (let i = 0; i < CALLS; i++) {
      const key = keys[i & mask]!;
      if (haversineKm(center.latitude, center.longitude, key.latitude, key.longitude) <= 500)
        within++;
    }
    return within;
  },
  'distanceKm(point, { ...key }) (a point per call)': () => {
    let within = 0;
    for (let i = 0; i < CALLS; i++) {
      const key = keys[i & mask]!;
      if (distanceKm(center, { latitude: key.latitude, longitude: key.longitude }) <= 500) within++;
    }
    return within;
  },
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const results: Record<string, { nsPerCall: number; minorCollectionsPerMillionCalls: number }> = {};
for (const [name, run] of Object.entries(shapes)) {
  run(); // warm up: optimised code, not the interpreter, is measured
  let best = Number.POSITIVE_INFINITY;
  let collections = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await settle();
    const before = minorCollections;
    const started = process.hrtime.bigint();
    run();
    const ns = Number(process.hrtime.bigint() - started);
    await settle(); // the observer reports a collection after the loop yields
    collections += minorCollections - before;
    best = Math.min(best, ns);
  }
  results[name] = {
    nsPerCall: Math.round((best / CALLS) * 100) / 100,
    minorCollectionsPerMillionCalls:
      Math.round((collections / ROUNDS / (CALLS / 1_000_000)) * 100) / 100,
  };
}
console.log(
  JSON.stringify({ calls: CALLS, rounds: ROUNDS, node: process.version, results }, null, 2),
);
