/**
 * The cart benchmarks' load generator: N closed-loop clients, each running one reserve-and-release
 * loop after the other, an unmeasured warm-up, a measured clock, and the CPU each measured process
 * used in that clock. `cart-reserve` drives partner-reference, the edge and (with
 * CART_BENCH_PEER=pretix) pretix with it; `pretix` drives pretix alone.
 */
import { percentile } from '../stats.ts';

/** What a phase's clients record; `measured(t)` says whether time t is inside the clock. */
export interface Recorder {
  measured(at: number): boolean;
  stopped(): boolean;
  reserveMs: number[];
  heldCount: number;
}

export interface ClosedLoopOptions {
  clients: number;
  seconds: number;
  warmupSeconds: number;
  /** After the clock stops: how long the loops still running may take to finish. */
  drainMs: number;
  /** CPU seconds each measured process used so far, read when the clock starts and stops. */
  sampleCpu: () => Map<string, number>;
}

/** A delay that does not keep the process alive (the losing side of a race). */
const bound = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** CPU seconds of this process (the load generator) so far. */
export const ownCpuSeconds = () => {
  const self = process.cpuUsage();
  return (self.user + self.system) / 1e6;
};

/**
 * CPU milliseconds per completed loop of each process, from the CPU seconds in the clock, and of
 * all of them but the load generator.
 */
export function cpuMsPerLoop(cpu: Record<string, number>, loops: number): Record<string, number> {
  const perLoop: Record<string, number> = {};
  if (loops === 0) return perLoop;
  let services = 0;
  for (const [name, seconds] of Object.entries(cpu)) {
    perLoop[name] = round((seconds * 1000) / loops, 2);
    if (name !== 'load generator') services += seconds;
  }
  perLoop['all but the load generator'] = round((services * 1000) / loops, 2);
  return perLoop;
}

/**
 * `options.clients` clients, each running `loop` one iteration after the other: warmupSeconds
 * unmeasured, then seconds measured; no iteration starts after the clock stops, and those running
 * may finish within drainMs. Returns what the clients recorded in the clock and the CPU each process
 * used in it.
 */
export async function closedLoop(
  loop: (client: number, iteration: number, recorder: Recorder) => Promise<void>,
  options: ClosedLoopOptions,
) {
  const { clients: count, seconds, warmupSeconds, drainMs, sampleCpu } = options;
  const from = performance.now() + warmupSeconds * 1000;
  const to = from + seconds * 1000;
  let cpuAtStart: Map<string, number> | undefined;
  const startClock = setTimeout(() => (cpuAtStart = sampleCpu()), warmupSeconds * 1000);
  let cpuAtStop: Map<string, number> | undefined;
  const stopClock = setTimeout(() => (cpuAtStop = sampleCpu()), to - performance.now());
  let abandoned = false;
  const recorder: Recorder = {
    measured: (at) => at >= from && at < to,
    stopped: () => abandoned,
    reserveMs: [],
    heldCount: 0,
  };
  let running = 0;
  const clients = Array.from({ length: count }, async (_, client) => {
    running += 1;
    try {
      for (let iteration = 0; performance.now() < to && !abandoned; iteration++)
        await loop(client, iteration, recorder);
    } finally {
      running -= 1;
    }
  });
  const all = Promise.all(clients);
  await Promise.race([all, bound(to - performance.now() + drainMs)]);
  abandoned = true;
  clearTimeout(startClock);
  clearTimeout(stopClock);
  const unfinished = running;
  // A client left running past the drain stops at its next step.
  await Promise.race([all, bound(10_000)]);
  const cpu: Record<string, number> = {};
  if (cpuAtStart && cpuAtStop)
    for (const [name, used] of cpuAtStop) cpu[name] = round(used - (cpuAtStart.get(name) ?? 0), 2);
  recorder.reserveMs.sort((a, b) => a - b);
  const latency = recorder.reserveMs;
  return {
    completedPerSecond: round(recorder.heldCount / seconds),
    completed: recorder.heldCount,
    latencyMs: {
      p50: round(percentile(latency, 50), 2),
      p90: round(percentile(latency, 90), 2),
      p99: round(percentile(latency, 99), 2),
      max: round(latency[latency.length - 1] ?? 0, 2),
    },
    clientsUnfinishedAfterDrain: unfinished,
    cpuSecondsInClock: cpu,
  };
}
