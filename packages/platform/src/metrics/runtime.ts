import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { metrics } from './registry.js';

let users = 0;
let stop: (() => void) | undefined;

/**
 * Event-loop delay and memory of the process, observed at each scrape. The delay histogram is
 * reset after each scrape, so its percentiles describe the interval since the previous one.
 * Reference-counted: the runtime metrics run while at least one metrics server does.
 */
export function startRuntimeMetrics(): () => void {
  users += 1;
  if (users === 1) {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const nsToSeconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
    let pending = 0;
    // The delay gauges are read one after the other at a scrape: reset after the last of them.
    const readDelay = (pick: () => number) => () => {
      const value = nsToSeconds(pick());
      pending += 1;
      if (pending === 3) {
        pending = 0;
        delay.reset();
      }
      return value;
    };
    const stops = [
      metrics.gauge(
        'nodejs_eventloop_delay_p50_seconds',
        { description: 'Event-loop delay, median since the previous scrape', unit: 's' },
        readDelay(() => delay.percentile(50)),
      ),
      metrics.gauge(
        'nodejs_eventloop_delay_p99_seconds',
        { description: 'Event-loop delay, 99th percentile since the previous scrape', unit: 's' },
        readDelay(() => delay.percentile(99)),
      ),
      metrics.gauge(
        'nodejs_eventloop_delay_max_seconds',
        { description: 'Event-loop delay, maximum since the previous scrape', unit: 's' },
        readDelay(() => delay.max),
      ),
      metrics.gauge(
        'v8js_memory_heap_used_bytes',
        { description: 'V8 heap in use', unit: 'By' },
        () => getHeapStatistics().used_heap_size,
      ),
      metrics.gauge(
        'v8js_memory_heap_limit_bytes',
        { description: 'V8 heap size limit', unit: 'By' },
        () => getHeapStatistics().heap_size_limit,
      ),
      metrics.gauge(
        'process_resident_memory_bytes',
        { description: 'Resident set size of the process', unit: 'By' },
        () => process.memoryUsage.rss(),
      ),
    ];
    stop = () => {
      delay.disable();
      for (const each of stops) each();
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users -= 1;
    if (users === 0) {
      stop?.();
      stop = undefined;
    }
  };
}
