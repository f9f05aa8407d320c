/**
 * Paced clients: `clients` concurrent keep-alive HTTP clients, each asking once every
 * `1 / ratePerClient` seconds at its own phase — what many independent API users that keep to
 * their quota look like. autocannon's `connectionRate` is not that: each of its connections sends
 * its whole per-second budget back to back when a shared one-second tick resets it, so 100
 * connections at 5 req/s arrive as a burst of 500 requests at the top of every second.
 *
 * Each client has one request in flight at a time. Latency is measured from when a request was
 * due, not from when it was sent: a client held up by a slow answer sends late, and that delay
 * counts (the coordinated-omission correction of wrk2), so a stalled server cannot hide its backlog.
 */
import { Pool } from 'undici';
import { random } from './random.ts';
import { percentile } from './stats.ts';

export interface PacedOptions {
  origin: string;
  clients: number;
  ratePerClient: number;
  seconds: number;
  /** The path (with query) of the next request. */
  nextPath: () => string;
  /** Seed of the clients' phases. */
  seed?: number;
  /**
   * Seconds the same clients run first, unmeasured (default 0): what a process does after it
   * starts (caches filling, code being compiled) is not its steady state.
   */
  warmupSeconds?: number;
}

export interface PacedResult {
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  /** Per second of the run (by when requests were due): requests, p50, p99 and max latency, ms. */
  timeline: { second: number; requests: number; p50: number; p99: number; max: number }[];
  /** When the measured part began (epoch ms): second 0 of `timeline`. */
  measuredFromEpochMs: number;
}

export async function runPaced(options: PacedOptions): Promise<PacedResult> {
  const { origin, clients, ratePerClient, seconds, nextPath } = options;
  const interval = 1000 / ratePerClient;
  // undici's pool: a fraction of node:http's CPU per request, which matters when the load
  // generator shares the machine's cores with what it measures.
  const pool = new Pool(origin, { connections: clients });
  const phase = random(options.seed ?? 1);
  const latencies: number[] = [];
  const bySecond: number[][] = [];
  let non2xx = 0;
  let errors = 0;
  const ask = async (path: string) => {
    const { statusCode, body } = await pool.request({ path, method: 'GET' });
    await body.dump();
    return statusCode;
  };
  const warmupMs = (options.warmupSeconds ?? 0) * 1000;
  const start = performance.now() + 20 + warmupMs;
  const end = start + seconds * 1000;
  const client = async () => {
    for (let due = start - warmupMs + phase() * interval; due < end; due += interval) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const status = await ask(nextPath());
        if ((status < 200 || status >= 300) && due >= start) non2xx++;
      } catch {
        if (due >= start) errors++;
      }
      if (due < start) continue;
      const latency = performance.now() - due;
      latencies.push(latency);
      (bySecond[Math.floor((due - start) / 1000)] ??= []).push(latency);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const elapsedS = Math.max(seconds, (performance.now() - start) / 1000);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number, list = latencies) => Math.round(percentile(list, p) * 10) / 10;
  const timeline = bySecond.map((list, second) => {
    list.sort((a, b) => a - b);
    return {
      second,
      requests: list.length,
      p50: at(50, list),
      p99: at(99, list),
      max: at(100, list),
    };
  });
  return {
    requests: latencies.length,
    requestsPerSecond: Math.round(latencies.length / elapsedS),
    latencyMs: { p50: at(50), p90: at(90), p99: at(99), max: at(100) },
    non2xx,
    errors,
    timeline,
    measuredFromEpochMs: Math.round(performance.timeOrigin + start),
  };
}
