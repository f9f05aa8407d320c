/**
 * An on-sale behind the waiting room, on the distributed stack (every service its own process,
 * real Kafka and the Mongo-wire server): FANS simulated fans of APPS apps, one identity each, join
 * the queue of an event of PLACES places before its opening; at the opening each follows its queue
 * ticket with long polls, and an admitted fan reserves one ticket with its admission. A fan ends
 * with a held cart or SOLD_OUT.
 *
 * What it checks and prints (docs/performance.md, "On-sale behind the waiting room"):
 * - oversold: the partner's held places against the held carts (0), and the answers by status
 *   (no 5xx);
 * - join latency (p50, p99; the goal is p99 <= 200 ms);
 * - every fan's end (held or SOLD_OUT), and how long after the last place was held each waiting
 *   fan learned SOLD_OUT (the goal is within 5 s);
 * - fairness: Spearman's rank correlation between the join order of the fans who joined before
 *   the opening and their place at it (the goal is |rho| < 0.05);
 * - what the on-sale asks of each process: CPU (millicores) and the highest resident set sampled
 *   while the fans join and from the opening to the last fan's end (every fan holding a long poll
 *   at the edge), and each process's peak (VmHWM) at the end (docs/operations.md, "On-sales").
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*
 *        pnpm --filter @marquee/bench onsale
 * Env: ONSALE_FANS (10000), ONSALE_PLACES (1000), ONSALE_APPS (5), ONSALE_JOIN_RATE (500 joins a
 *      second, arriving on their own clock; `closed` for back-to-back joins), ONSALE_JOIN_CONCURRENCY
 *      (200: joins in flight at most), ONSALE_WARMUP_SECONDS (3: joins to another event first, not
 *      measured; 0 for none),
 *      ONSALE_DEADLINE_SECONDS (1200: the whole run, start-up included), ONSALE_HEAP_MIB (the edge's
 *      and cart's old-space limit, as a pod's memory limit would set it), ONSALE_LOGS=<dir> (each
 *      service's last output, written there at the end).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Agent, type Dispatcher } from 'undici';
import { grantPartnerDistribution, importPartnerEvent } from '../../test/support/partner-event.ts';
import { infraPids, partnerAccessToken, runOnStack } from '../stack-run.ts';
import { byProcess, measure } from '../process-use.ts';
import { percentile } from '../stats.ts';
import { count, type Tally } from '../cart/partner-cart-driver.ts';
import { spearman } from './spearman.ts';
import { positive } from '../env.ts';

const FANS = positive('ONSALE_FANS', 10_000, 15_000);
const PLACES = positive('ONSALE_PLACES', 1_000, 100_000);
const APPS = positive('ONSALE_APPS', 5, 50);
const JOIN_CONCURRENCY = positive('ONSALE_JOIN_CONCURRENCY', 200, 2_000);
/**
 * Joins a second, arriving on their own clock (fans do not wait for each other's answers), or
 * undefined (`closed`): each of JOIN_CONCURRENCY clients joins again as soon as answered. A closed
 * loop measures throughput, not latency: with 200 in flight its latency is 200 / throughput.
 */
const JOIN_RATE =
  process.env.ONSALE_JOIN_RATE === 'closed'
    ? undefined
    : positive('ONSALE_JOIN_RATE', 500, 100_000);
/**
 * Seconds of joins to another queued event first, at the same rate, not measured: the stack has
 * just started (code not yet compiled, connections and caches empty), which an on-sale's stack,
 * running for hours, is not. 0 for none.
 */
const WARMUP_SECONDS =
  process.env.ONSALE_WARMUP_SECONDS === '0' ? 0 : positive('ONSALE_WARMUP_SECONDS', 3, 60);
const DEADLINE_SECONDS = positive('ONSALE_DEADLINE_SECONDS', 1_200, 3_600);
/**
 * The old-space limit in MiB of the two processes an on-sale loads, the edge and cart, as a pod's
 * memory limit sets it: under a container's limit Node sizes its heap at about half of it (576 for
 * a 1152Mi limit). Unset, the machine's memory sets it, and V8 lets garbage pile up far longer
 * than in a pod, so resident memory overstates what the process needs.
 */
const HEAP_MIB = process.env.ONSALE_HEAP_MIB ? positive('ONSALE_HEAP_MIB', 576, 16_384) : undefined;
/** The long poll each fan asks for (the API's longest). */
const WAIT_SECONDS = 25;

const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('onsale needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fan {
  index: number;
  app: number;
  deviceId: string;
  ticketId?: string;
  /** The join's place in the order the joins were answered, from 0. */
  joinedOrder?: number;
  /** The first position the fan read once the opening ordered the early joiners. */
  firstPosition?: number;
  /** When the admitter let it through (performance.now()), as the fan learnt it. */
  admittedAt?: number;
  end?: 'held' | 'sold-out' | 'expired' | 'failed';
  endedAt?: number;
  failure?: string;
}

/** Runs `task` over `items`, at most `width` at a time. */
/**
 * Runs `task` for every item, at most `width` at once. With `ratePerSecond`, item i is due at
 * i / rate seconds from the start and is not started before; `task` gets when it was due, so that
 * a join held up by the joins in flight counts its wait (the coordinated-omission correction).
 */
async function pooled<T>(
  items: readonly T[],
  width: number,
  task: (item: T, dueAt: number) => Promise<void>,
  ratePerSecond?: number,
) {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        const dueAt =
          ratePerSecond === undefined
            ? performance.now()
            : started + (index * 1000) / ratePerSecond;
        const early = dueAt - performance.now();
        if (early > 0) await delay(early);
        await task(items[index]!, dueAt);
      }
    }),
  );
}

await runOnStack('onsale', DEADLINE_SECONDS, async (startStack) => {
  const setupStarted = performance.now();
  const sut = await startStack({
    kafkaBrokers: brokers,
    mongoUrl,
    serviceEnv: {
      // The partner's own system in memory: what is measured is the platform in front of it.
      'partner-reference': { MONGO_URL: '', NODE_ENV: 'development', PARTNER_SEED_DEMO: 'false' },
      ...(HEAP_MIB
        ? {
            'edge-gateway': { NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` },
            cart: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` },
          }
        : {}),
    },
  });
  const admin = { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' };
  const marker = `ons${randomBytes(4).toString('hex')}`;
  const expectStatus = async <T>(response: Response, status: number, what: string) => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`${what}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
  const apps: Array<{ apiKey: string; appId: string }> = [];
  for (let i = 0; i < APPS; i += 1) {
    const app = await expectStatus<{ apiKey: string; appId: string }>(
      await fetch(`${sut.baseUrl}/admin/v1/apps`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          name: `onsale bench ${i}`,
          redirectUris: ['https://bench.example/cb'],
          quota: { perSecond: 100_000, perDay: 100_000_000, heldTicketsPerEvent: 0 },
        }),
      }),
      201,
      'app',
    );
    await grantPartnerDistribution(sut, app.appId);
    apps.push(app);
  }
  const { eventId, partnerEventId } = await importPartnerEvent(sut, {
    apiKey: apps[0]!.apiKey,
    marker,
    capacity: PLACES,
    discoveryTimeoutMs: 60_000,
    sellableTimeoutMs: 120_000,
  });
  const onSale = (opensAt: Date) =>
    fetch(`${sut.baseUrl}/admin/v1/events/${eventId}/onsale`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ opensAt: opensAt.toISOString(), queue: true }),
    });
  await expectStatus(await onSale(new Date(Date.now() + 3_600_000)), 200, 'queue on');
  // The warm-up's event: queued, never opened.
  const warmup = WARMUP_SECONDS
    ? await importPartnerEvent(sut, {
        apiKey: apps[0]!.apiKey,
        marker: `${marker}w`,
        capacity: 10,
        discoveryTimeoutMs: 60_000,
        sellableTimeoutMs: 120_000,
      })
    : undefined;
  if (warmup)
    await expectStatus(
      await fetch(`${sut.baseUrl}/admin/v1/events/${warmup.eventId}/onsale`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({
          opensAt: new Date(Date.now() + 3_600_000).toISOString(),
          queue: true,
        }),
      }),
      200,
      'warm-up queue on',
    );
  const setupSeconds = round((performance.now() - setupStarted) / 1000);
  // Each service's process, and Kafka's and the Mongo-wire server's when infra.sh started them.
  const pids = new Map<string, number | undefined>([
    ...[...sut.services].map(([name, s]) => [name, s.child.pid] as const),
    ...infraPids(),
  ]);

  // One connection per fan: every fan holds a long poll at once.
  const agent = new Agent({ connections: FANS + 64, pipelining: 1, keepAliveTimeout: 60_000 });
  const answers: Tally = {};
  const examples: Record<string, string> = {};
  let networkErrors = 0;
  const call = async (
    method: Dispatcher.HttpMethod,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await agent.request({
          origin: sut.baseUrl,
          path,
          method,
          headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
          headersTimeout: (WAIT_SECONDS + 15) * 1000,
        });
        const text = await response.body.text();
        count(answers, `${method} ${path.split('/')[5] ?? ''} ${response.statusCode}`);
        if (response.statusCode >= 500) examples[`${response.statusCode}`] ??= text.slice(0, 300);
        return { status: response.statusCode, json: text ? JSON.parse(text) : {} };
      } catch (error) {
        networkErrors += 1;
        if (attempt >= 5) throw error;
        await delay(500);
      }
    }
  };

  // The warm-up: joins to the other event, at the same rate, their latency kept apart.
  const warmupMs: number[] = [];
  if (warmup) {
    const rate = JOIN_RATE ?? 500;
    const warmupFans = Array.from({ length: WARMUP_SECONDS * rate }, (_, index) => index);
    await pooled(
      warmupFans,
      JOIN_CONCURRENCY,
      async (index, dueAt) => {
        await call(
          'POST',
          `/partners/v1/events/${warmup.eventId}/queue`,
          { 'x-api-key': apps[index % APPS]!.apiKey },
          { device_id: `${marker}-w${index}` },
        );
        warmupMs.push(performance.now() - dueAt);
      },
      rate,
    );
    warmupMs.sort((a, b) => a - b);
  }

  // Joins, before the opening.
  const fans: Fan[] = Array.from({ length: FANS }, (_, index) => ({
    index,
    app: index % APPS,
    deviceId: `${marker}-d${index}`,
  }));
  const joinMs: number[] = [];
  /** Join latencies by the second they were due in, from the first join. */
  const joinsBySecond: number[][] = [];
  let joined = 0;
  const joinsStarted = performance.now();
  const joinUse = await measure(pids, 0, () =>
    pooled(
      fans,
      JOIN_CONCURRENCY,
      async (fan, dueAt) => {
        const { status, json } = await call(
          'POST',
          `/partners/v1/events/${eventId}/queue`,
          { 'x-api-key': apps[fan.app]!.apiKey },
          { device_id: fan.deviceId },
        );
        const tookMs = performance.now() - dueAt;
        joinMs.push(tookMs);
        (joinsBySecond[Math.floor((dueAt - joinsStarted) / 1000)] ??= []).push(tookMs);
        if (status !== 201) {
          fan.end = 'failed';
          fan.failure = `join ${status}`;
          examples[`join ${status}`] ??= JSON.stringify(json).slice(0, 300);
          return;
        }
        fan.ticketId = json.id as string;
        fan.joinedOrder = joined++;
      },
      JOIN_RATE,
    ),
  );
  const joinSeconds = (performance.now() - joinsStarted) / 1000;
  const joinsSorted = [...joinMs].sort((a, b) => a - b);
  console.error(
    `onsale: ${joined} joins in ${round(joinSeconds)} s, p50 ${round(percentile(joinsSorted, 50))} ms, p99 ${round(percentile(joinsSorted, 99))} ms; opening`,
  );

  // The opening: two seconds from now; each fan long-polls its ticket from then on.
  await expectStatus(await onSale(new Date(Date.now() + 2_000)), 200, 'opening');
  const opened = performance.now();
  let admissionOrder = 0;
  const admittedOrder = new Map<number, number>();
  let lastHeldAt = 0;
  const reserveAnswers: Tally = {};

  const follow = async (fan: Fan) => {
    const headers = { 'x-api-key': apps[fan.app]!.apiKey };
    const path = `/partners/v1/events/${eventId}/queue/${fan.ticketId}?wait=${WAIT_SECONDS}`;
    for (;;) {
      const { status, json } = await call('GET', path, headers);
      if (status !== 200) {
        fan.end = 'failed';
        fan.failure = `read ${status}`;
        return;
      }
      if (json.status === 'WAITING') {
        if (typeof json.position === 'number') fan.firstPosition ??= json.position;
        continue;
      }
      fan.endedAt = performance.now();
      if (json.status === 'SOLD_OUT') fan.end = 'sold-out';
      else if (json.status === 'EXPIRED') fan.end = 'expired';
      else {
        fan.admittedAt = fan.endedAt;
        admittedOrder.set(fan.index, admissionOrder++);
        await reserve(fan, json.admission_token as string, headers);
      }
      return;
    }
  };

  const reserve = async (fan: Fan, token: string, headers: Record<string, string>) => {
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      const { status, json } = await call(
        'POST',
        `/partners/v1/events/${eventId}/cart`,
        {
          ...headers,
          'x-admission-token': token,
          'x-device-id': fan.deviceId,
          'idempotency-key': `${marker}-r${fan.index}`,
        },
        { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
      );
      const code = (json.error as { code?: string } | undefined)?.code;
      count(reserveAnswers, `${status}${code ? `/${code}` : ''}`);
      fan.endedAt = performance.now();
      if (status === 200) {
        fan.end = 'held';
        lastHeldAt = Math.max(lastHeldAt, fan.endedAt);
        return;
      }
      if (status === 202) {
        const cartId = json.cart_id as string;
        for (;;) {
          await delay(1_000);
          const polled = await call(
            'GET',
            `/partners/v1/events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`,
            headers,
          );
          if (polled.status === 202) continue;
          fan.endedAt = performance.now();
          if (polled.status === 200) {
            fan.end = 'held';
            lastHeldAt = Math.max(lastHeldAt, fan.endedAt);
          } else fan.end = polled.status === 409 ? 'sold-out' : 'failed';
          return;
        }
      }
      if (status === 409 && code === '20052') {
        fan.end = 'sold-out';
        return;
      }
      if (status === 429 || status === 503) {
        await delay(Math.max(1, Number(json.retry_after ?? 1)) * 1000);
        continue;
      }
      fan.end = 'failed';
      fan.failure = `reserve ${status}/${code ?? ''}`;
      return;
    }
  };

  // Progress every 30 s on stderr: a sale of 10,000 fans takes minutes.
  const progress = setInterval(() => {
    const ended: Tally = {};
    for (const fan of fans) count(ended, fan.end ?? 'waiting');
    console.error(
      `onsale: ${round((performance.now() - opened) / 1000, 0)} s after the opening: ${JSON.stringify(ended)}`,
    );
  }, 30_000).unref();
  const onSaleUse = await measure(pids, 0, () =>
    Promise.all(fans.filter((fan) => fan.ticketId).map((fan) => follow(fan))),
  );
  clearInterval(progress);
  const use = byProcess(pids, { join: joinUse, onSale: onSaleUse });
  const onSaleSeconds = (performance.now() - opened) / 1000;
  // Each service's last output and whether it is still running, for a look after a bad run.
  const services = Object.fromEntries(
    [...sut.services].map(([name, s]) => [
      name,
      s.child.exitCode ?? s.child.signalCode ?? 'running',
    ]),
  );
  if (process.env.ONSALE_LOGS) {
    const { writeFileSync } = await import('node:fs');
    for (const [name, service] of sut.services)
      writeFileSync(`${process.env.ONSALE_LOGS}/${name}.log`, service.output.join(''));
  }
  await agent.close();

  // Oversold: the partner holds exactly the held carts' places, never more than PLACES.
  const token = await partnerAccessToken(sut);
  const availability = await expectStatus<{ areas: Array<{ unavailable: number }> }>(
    await fetch(`${sut.partner.baseUrl}/events/${partnerEventId}/availability`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    200,
    'partner availability',
  );
  const partnerHeld = availability.areas.reduce((sum, area) => sum + area.unavailable, 0);

  const ends: Tally = {};
  for (const fan of fans) count(ends, fan.end ?? 'none');
  const held = ends.held ?? 0;
  const learnedSoldOut = fans
    .filter((fan) => fan.end === 'sold-out' && fan.endedAt !== undefined && !fan.admittedAt)
    .map((fan) => Math.max(0, fan.endedAt! - lastHeldAt))
    .sort((a, b) => a - b);
  // Every fan joined before the opening, so its place comes from the draw. At the opening each
  // long poll is answered with the fan's position while nobody is admitted yet (the rank); the
  // first fans admitted read ADMITTED at once, and their admission order stands for their rank.
  const placeOf = (fan: Fan) =>
    fan.firstPosition ??
    (admittedOrder.has(fan.index) ? admittedOrder.get(fan.index)! + 1 : undefined);
  const early = fans.filter((fan) => fan.joinedOrder !== undefined && placeOf(fan) !== undefined);
  const rho = spearman(
    early.map((fan) => fan.joinedOrder!),
    early.map((fan) => placeOf(fan)!),
  );
  joinMs.sort((a, b) => a - b);
  const serverErrors = Object.entries(answers)
    .filter(([label]) => Number(label.split(' ').pop()) >= 500)
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    bench: 'on-sale behind the waiting room (distributed stack)',
    fans: FANS,
    places: PLACES,
    apps: APPS,
    setupSeconds,
    joins: {
      seconds: round(joinSeconds),
      perSecond: round(FANS / joinSeconds),
      arrivals: JOIN_RATE === undefined ? 'closed loop' : `${JOIN_RATE} a second`,
      concurrency: JOIN_CONCURRENCY,
      latencyMs: {
        p50: round(percentile(joinMs, 50)),
        p99: round(percentile(joinMs, 99)),
        max: round(joinMs[joinMs.length - 1] ?? 0),
      },
      /** The warm-up's joins (another event, not measured above): how a cold stack answers. */
      warmup: {
        seconds: WARMUP_SECONDS,
        joins: warmupMs.length,
        p50: round(percentile(warmupMs, 50)),
        p99: round(percentile(warmupMs, 99)),
        max: round(warmupMs[warmupMs.length - 1] ?? 0),
      },
      /** Per second of the joins (by when each was due): joins, p99 and max, ms. */
      timeline: Array.from({ length: joinsBySecond.length }, (_, index) => {
        const sorted = [...(joinsBySecond[index] ?? [])].sort((a, b) => a - b);
        return {
          second: index,
          joins: sorted.length,
          p99: round(percentile(sorted, 99)),
          max: round(sorted[sorted.length - 1] ?? 0),
        };
      }),
    },
    onSaleSeconds: round(onSaleSeconds),
    services,
    ends,
    reserveAnswers,
    answers,
    serverErrors,
    networkErrors,
    examples,
    oversold: { partnerHeld, heldCarts: held, oversold: Math.max(0, partnerHeld - PLACES) },
    soldOutLearnedAfterLastHeldMs: {
      fans: learnedSoldOut.length,
      p50: round(percentile(learnedSoldOut, 50)),
      p99: round(percentile(learnedSoldOut, 99)),
      max: round(learnedSoldOut[learnedSoldOut.length - 1] ?? 0),
    },
    fairness: { earlyJoinersPlaced: early.length, spearmanJoinOrderVsPlace: round(rho, 4) },
    /** Per process: CPU over the joins and over the on-sale, memory (peak sampled, and VmHWM). */
    resources: {
      edgeAndCartHeapMiB: HEAP_MIB ?? "the machine's default",
      joinSeconds: joinUse.seconds,
      onSaleSeconds: onSaleUse.seconds,
      processes: use,
    },
    goals: {
      noOversold: partnerHeld <= PLACES && partnerHeld === held,
      no5xx: serverErrors === 0,
      everyFanEnded: (ends.held ?? 0) + (ends['sold-out'] ?? 0) === FANS,
      joinP99Under200Ms: percentile(joinMs, 99) <= 200,
      soldOutKnownWithin5s: (learnedSoldOut[learnedSoldOut.length - 1] ?? 0) <= 5_000,
      spearmanUnder005: Math.abs(rho) < 0.05,
    },
    machine: {
      cpus: os.cpus().length,
      node: process.version,
      loadAverage: os.loadavg().map((l) => round(l, 2)),
    },
  };
});
