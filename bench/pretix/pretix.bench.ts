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
import { burstOptionsFromEnv, pretixPhase, startPretix, wholeFromEnv } from './pretix-peer.ts';

const CLIENTS = wholeFromEnv('PRETIX_BENCH_CLIENTS', 16, 1, 512);
const SECONDS = wholeFromEnv('PRETIX_BENCH_SECONDS', 20, 1, 600);
const WARMUP_SECONDS = wholeFromEnv('PRETIX_BENCH_WARMUP_SECONDS', 3, 1, 60);
const BURST = burstOptionsFromEnv();
const DEADLINE_SECONDS = wholeFromEnv('PRETIX_BENCH_DEADLINE_SECONDS', 1200, 60, 3600);

// The 'exit' handler of startPretix stops what it started, also on a deadline or a signal.
setTimeout(() => {
  console.error(`pretix bench: not done after ${DEADLINE_SECONDS} s, stopping`);
  process.exit(1);
}, DEADLINE_SECONDS * 1000).unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

try {
  const setupStarted = performance.now();
  const peer = await startPretix(BURST.places, DEADLINE_SECONDS * 1000);
  const setupSeconds = round((performance.now() - setupStarted) / 1000);
  const pretix = await pretixPhase(
    peer,
    { clients: CLIENTS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, drainMs: 60_000 },
    BURST,
  );
  peer.stop();
  console.log(
    JSON.stringify(
      {
        bench: 'pretix cart positions: reserve-and-release loop and burst',
        clients: CLIENTS,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        setupSeconds,
        pretix,
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
