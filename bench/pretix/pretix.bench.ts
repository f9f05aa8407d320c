/**
 * pretix's cart-position API alone (`bench/pretix/pretix.sh`: PyPI's pretix under gunicorn on
 * PostgreSQL, on loopback): the reserve-and-release loop of `cart-reserve`'s peer phase, then the
 * burst. Prints one JSON report; pretix and PostgreSQL are stopped at the end when this run started
 * them. The same run as our side: `CART_BENCH_PEER=pretix pnpm --filter @marquee/bench cart-reserve`.
 *
 * Usage: pnpm --filter @marquee/bench pretix
 * Env: PRETIX_BENCH_CLIENTS (16), PRETIX_BENCH_SECONDS (20), PRETIX_BENCH_WARMUP_SECONDS (3),
 *      PRETIX_BENCH_BURST (2000 reserves at once; 0: no burst), PRETIX_BENCH_BURST_PLACES (200),
 *      PRETIX_BENCH_BURST_TIMEOUT_SECONDS (300: a burst reserve not answered by then is an error),
 *      PRETIX_BENCH_DEADLINE_SECONDS (1200: the whole run, install and migration included).
 */
import os from 'node:os';
import { round } from '../cart/closed-loop.ts';
import { pretixBurst, pretixReserveLoop, startPretix } from './pretix-peer.ts';

const whole = (name: string, fallback: number, min: number, max: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`${name} is a whole number from ${min} to ${max}`);
    process.exit(2);
  }
  return value;
};

const CLIENTS = whole('PRETIX_BENCH_CLIENTS', 16, 1, 512);
const SECONDS = whole('PRETIX_BENCH_SECONDS', 20, 1, 600);
const WARMUP_SECONDS = whole('PRETIX_BENCH_WARMUP_SECONDS', 3, 1, 60);
const BURST = whole('PRETIX_BENCH_BURST', 2000, 0, 5000);
const BURST_PLACES = whole('PRETIX_BENCH_BURST_PLACES', 200, 1, 100_000);
const BURST_TIMEOUT_SECONDS = whole('PRETIX_BENCH_BURST_TIMEOUT_SECONDS', 300, 1, 900);
const DEADLINE_SECONDS = whole('PRETIX_BENCH_DEADLINE_SECONDS', 1200, 60, 3600);

// The 'exit' handler of startPretix stops what it started, also on a deadline or a signal.
setTimeout(() => {
  console.error(`pretix bench: not done after ${DEADLINE_SECONDS} s, stopping`);
  process.exit(1);
}, DEADLINE_SECONDS * 1000).unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => process.exit(130));

try {
  const setupStarted = performance.now();
  const peer = await startPretix(BURST_PLACES, DEADLINE_SECONDS * 1000);
  const setupSeconds = round((performance.now() - setupStarted) / 1000);
  const reserve = await pretixReserveLoop(peer, {
    clients: CLIENTS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    drainMs: 60_000,
  });
  const burst = BURST > 0 ? await pretixBurst(peer, BURST, BURST_TIMEOUT_SECONDS * 1000) : undefined;
  peer.stop();
  console.log(
    JSON.stringify(
      {
        bench: 'pretix cart positions: reserve-and-release loop and burst',
        clients: CLIENTS,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        setupSeconds,
        pretix: { ...reserve, burst },
        machine: {
          cpus: os.cpus().length,
          node: process.version,
          loadAverage: os.loadavg().map((l) => round(l, 2)),
        },
      },
      null,
      2,
    ),
  );
} catch (error) {
  console.error('pretix bench failed:', error);
  process.exitCode = 1;
}
