/**
 * pretix as the cart benchmarks' peer: started by `bench/pretix/pretix.sh` (PyPI's pretix under
 * gunicorn on a private PostgreSQL cluster, both on loopback), driven on its cart-position API
 * (`POST`/`DELETE /api/v1/organizers/{o}/events/{e}/cartpositions/`) by the same closed-loop load
 * generator as our side (`../cart/closed-loop.ts`), and a burst of reserves sent at once for a
 * small quota. Used by `cart-reserve` (CART_BENCH_PEER=pretix) and `pretix`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { count, type Tally } from '../cart/partner-cart-driver.ts';
import {
  closedLoop,
  cpuMsPerLoop,
  ownCpuSeconds,
  round,
  type ClosedLoopOptions,
} from '../cart/closed-loop.ts';
import { percentile } from '../stats.ts';

const script = fileURLToPath(new URL('./pretix.sh', import.meta.url));

export interface PretixPeer {
  url: string;
  token: string;
  organizer: string;
  price: string;
  reserve: { event: string; item: number; places: number };
  burst: { event: string; item: number; places: number };
  /** The gunicorn master and the postmaster, by name. */
  roots: Map<string, number>;
  /** Stops pretix and PostgreSQL when this run started them (idempotent). */
  stop(): void;
}

const run = (args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      'bash',
      [script, ...args],
      { env, timeout: timeoutMs, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        process.stderr.write(stderr);
        if (error) reject(new Error(`pretix.sh ${args.join(' ')}: ${error.message}`));
        else resolve(stdout);
      },
    );
  });

/**
 * Starts pretix (installing it and making its cluster the first time: several minutes) with a
 * quota of `burstPlaces` for the burst, and returns where it answers. Stopped when the process
 * exits, whatever the reason, if this call started it.
 */
export async function startPretix(burstPlaces: number, timeoutMs: number): Promise<PretixPeer> {
  const out = await run(['start'], timeoutMs, {
    ...process.env,
    PRETIX_BURST_PLACES: String(burstPlaces),
  });
  const vars: Record<string, string> = {};
  for (const [, name, value] of out.matchAll(/^export (\w+)=(.*)$/gm)) vars[name!] = value!;
  const need = (name: string) => {
    const value = vars[name];
    if (!value) throw new Error(`pretix.sh start printed no ${name}`);
    return value;
  };
  const roots = new Map<string, number>();
  for (const [, name, pid] of (await run(['pids'], 10_000)).matchAll(/^(\w+) (\d+)$/gm))
    roots.set(name!, Number(pid));
  let stopped = need('PRETIX_STARTED') !== '1';
  const stop = () => {
    if (stopped) return;
    stopped = true;
    spawnSync('bash', [script, 'stop'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 150_000,
    });
  };
  process.once('exit', stop);
  return {
    url: need('PRETIX_URL'),
    token: need('PRETIX_TOKEN'),
    organizer: need('PRETIX_ORGANIZER'),
    price: need('PRETIX_PRICE'),
    reserve: {
      event: need('PRETIX_RESERVE_EVENT'),
      item: Number(need('PRETIX_RESERVE_ITEM')),
      places: Number(need('PRETIX_RESERVE_PLACES')),
    },
    burst: {
      event: need('PRETIX_BURST_EVENT'),
      item: Number(need('PRETIX_BURST_ITEM')),
      places: Number(need('PRETIX_BURST_PLACES')),
    },
    roots,
    stop,
  };
}

/**
 * CPU seconds (user + system) of each named process and all its descendants so far, those that
 * exited included (a parent's cutime and cstime hold its reaped children's): gunicorn's master and
 * workers, the postmaster and every backend. From /proc (Linux).
 */
export function treeCpuSeconds(roots: Map<string, number>): Map<string, number> {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const parent = Number(fields[1]);
      children.set(parent, [...(children.get(parent) ?? []), pid]);
      // utime, stime, cutime, cstime: the 12th to 15th fields after the name, in 1/100 s.
      ticks.set(
        pid,
        fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0),
      );
    } catch {
      // Gone meanwhile.
    }
  }
  const used = new Map<string, number>();
  for (const [name, root] of roots) {
    let total = 0;
    for (const queue = [root]; queue.length > 0;) {
      const pid = queue.pop()!;
      total += ticks.get(pid) ?? 0;
      queue.push(...(children.get(pid) ?? []));
    }
    used.set(name, total / 100);
  }
  return used;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cartPositions(peer: PretixPeer, event: string) {
  const path = `/api/v1/organizers/${peer.organizer}/events/${event}/cartpositions/`;
  const headers = { authorization: `Token ${peer.token}` };
  return {
    create: (pool: Pool, item: number, signal?: AbortSignal) =>
      pool.request({
        path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ item, price: peer.price }),
        ...(signal ? { signal } : {}),
      }),
    remove: (pool: Pool, id: number) =>
      pool.request({ path: `${path}${id}/`, method: 'DELETE', headers }),
    /** How many API cart positions the event has (its list's `count`). */
    async held(pool: Pool): Promise<number> {
      const listed = await pool.request({ path: `${path}?page_size=1`, method: 'GET', headers });
      const text = await listed.body.text();
      if (listed.statusCode !== 200)
        throw new Error(`cart positions: ${listed.statusCode} ${text}`);
      return (JSON.parse(text) as { count: number }).count;
    },
  };
}

/**
 * The reserve-and-release loop on pretix's reserve event: each client creates a cart position of
 * one admission, then deletes it, so the quota never runs out. A reserve counts when it answered 201
 * in the clock; CPU per reserve is that of gunicorn (master and workers), PostgreSQL (postmaster
 * and backends) and the load generator.
 */
export async function pretixReserveLoop(
  peer: PretixPeer,
  options: Omit<ClosedLoopOptions, 'sampleCpu'>,
) {
  const pool = new Pool(peer.url, { connections: options.clients });
  const positions = cartPositions(peer, peer.reserve.event);
  const answers: Tally = {};
  const releases: Tally = {};
  const examples: Record<string, string> = {};
  let networkErrors = 0;
  const loop = await closedLoop(
    async (_client, _iteration, rec) => {
      const sent = performance.now();
      try {
        const response = await positions.create(pool, peer.reserve.item);
        const text = await response.body.text();
        const done = performance.now();
        const inClock = rec.measured(sent);
        if (inClock) {
          count(answers, response.statusCode);
          rec.reserveMs.push(done - sent);
        }
        if (response.statusCode !== 201) {
          examples[`reserve ${response.statusCode}`] ??= text.slice(0, 300);
          await delay(100);
          return;
        }
        if (rec.measured(done)) rec.heldCount += 1;
        const released = await positions.remove(pool, (JSON.parse(text) as { id: number }).id);
        const releasedText = await released.body.text();
        if (released.statusCode !== 204)
          examples[`release ${released.statusCode}`] ??= releasedText.slice(0, 300);
        if (inClock) count(releases, released.statusCode);
      } catch {
        if (rec.measured(sent)) networkErrors += 1;
        await delay(100);
      }
    },
    {
      ...options,
      sampleCpu: () => treeCpuSeconds(peer.roots).set('load generator', ownCpuSeconds()),
    },
  );
  const heldAfterRelease = await positions.held(pool);
  await pool.close();
  return {
    reservesPerSecond: loop.completedPerSecond,
    reserves: loop.completed,
    reserveLatencyMs: loop.latencyMs,
    answers,
    releases,
    networkErrors,
    examples,
    clientsUnfinishedAfterDrain: loop.clientsUnfinishedAfterDrain,
    heldAfterRelease,
    cpuSecondsInClock: loop.cpuSecondsInClock,
    cpuMsPerReserve: cpuMsPerLoop(loop.cpuSecondsInClock, loop.completed),
  };
}

/**
 * `size` reserves of one admission sent at once (one connection each) on the burst event, whose
 * quota has `peer.burst.places`: how many were held, told sold out (pretix's 400 "not enough
 * quota"), failed otherwise; the event's cart positions counted afterwards (oversold: held beyond
 * the quota), then every held position released. Each request is given up after `timeoutMs`.
 */
export async function pretixBurst(peer: PretixPeer, size: number, timeoutMs: number) {
  const positions = cartPositions(peer, peer.burst.event);
  const pool = new Pool(peer.url, { connections: size });
  const held: number[] = [];
  const answers: Tally = {};
  const examples: Record<string, string> = {};
  const answerMs: number[] = [];
  let soldOut = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: size }, async () => {
      const sent = performance.now();
      try {
        const response = await positions.create(
          pool,
          peer.burst.item,
          AbortSignal.timeout(timeoutMs),
        );
        const text = await response.body.text();
        answerMs.push(performance.now() - sent);
        count(answers, response.statusCode);
        if (response.statusCode === 201) held.push((JSON.parse(text) as { id: number }).id);
        else if (response.statusCode === 400 && text.includes('quota')) soldOut += 1;
        else {
          errors += 1;
          examples[response.statusCode] ??= text.slice(0, 300);
        }
      } catch (error) {
        errors += 1;
        count(answers, 'network error');
        examples['network error'] ??= String(error).slice(0, 300);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  const small = new Pool(peer.url, { connections: 8 });
  const positionsAfterBurst = await positions.held(small);
  const releases: Tally = {};
  for (let next = 0; next < held.length;) {
    await Promise.all(
      held.slice(next, (next += 8)).map(async (id) => {
        const released = await positions.remove(small, id);
        await released.body.dump();
        count(releases, released.statusCode);
      }),
    );
  }
  const positionsAfterRelease = await positions.held(small);
  await small.close();
  answerMs.sort((a, b) => a - b);
  return {
    reserves: size,
    places: peer.burst.places,
    seconds: round(seconds),
    held: held.length,
    soldOut,
    errors,
    answers,
    examples,
    answerLatencyMs: {
      p50: round(percentile(answerMs, 50)),
      p99: round(percentile(answerMs, 99)),
      max: round(answerMs[answerMs.length - 1] ?? 0),
    },
    positionsAfterBurst,
    oversold: Math.max(0, positionsAfterBurst - peer.burst.places, held.length - peer.burst.places),
    releases,
    positionsAfterRelease,
  };
}

/** The reserve-and-release loop, then (when `burst.size` > 0) the burst: pretix's whole report. */
export async function pretixPhase(
  peer: PretixPeer,
  options: Omit<ClosedLoopOptions, 'sampleCpu'>,
  burst: { size: number; timeoutMs: number },
) {
  const reserve = await pretixReserveLoop(peer, options);
  return {
    ...reserve,
    burst: burst.size > 0 ? await pretixBurst(peer, burst.size, burst.timeoutMs) : undefined,
  };
}

/** A whole number from the environment (`fallback` when unset), or exit 2 when out of range. */
export function wholeFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`${name} is a whole number from ${min} to ${max}`);
    process.exit(2);
  }
  return value;
}

/** The burst's options, shared by `pretix` and `cart-reserve` (CART_BENCH_PEER=pretix). */
export const burstOptionsFromEnv = () => ({
  size: wholeFromEnv('PRETIX_BENCH_BURST', 2000, 0, 5000),
  places: wholeFromEnv('PRETIX_BENCH_BURST_PLACES', 200, 1, 100_000),
  timeoutMs: wholeFromEnv('PRETIX_BENCH_BURST_TIMEOUT_SECONDS', 300, 1, 900) * 1000,
});
