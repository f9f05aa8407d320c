/**
 * Publish latency at a steady rate with few and with many stored events: `POST /publish/v2/events`
 * through the edge (edge → auth-gateway key check and quota → publisher gRPC → its store on the
 * Mongo-wire server), 10 publishes a second, once without and once with an `Idempotency-Key`, after
 * the publisher's collection was filled to 100 and then to 100,000 events.
 *
 * The stored events are written straight into publisher's `published_events` collection, in
 * batches, in the platform store's document shape (`packages/platform/src/store/mongo-store.ts`:
 * `{ _id, version, data, tombstone, outbox, outboxPending }`, `data` as publisher's repository
 * writes it), spread over 100 other apps and the last 24 hours: a publication through the API
 * costs a few milliseconds and would take minutes for 100,000, and what a publish reads does not
 * depend on how the documents got there. One seeded event belongs to the measured app and is read
 * back through the edge before measuring, so a shape publisher does not read would stop the run.
 *
 * At each size, first `oneAtATime`: three publishes without and three with a key, each answered
 * before the next (what one publish costs). Then the paced runs, open loop: publishes are due
 * every 1/rate s whatever the answers; a publish waits for one of `PUBLISH_BENCH_MAX_IN_FLIGHT`
 * slots and its latency counts from when it was due, so a server that falls behind shows its
 * backlog (coordinated omission). `latencyFromDueMs` percentiles are over every scheduled publish;
 * one not answered 200 (an error, or still unsent when the window ended) ranks last, and a
 * percentile that falls on those is null. `serviceMs` is send to answer of what was sent. The
 * edge's backend deadline is raised to `PUBLISH_BENCH_DEADLINE_MS` (60 s) so a slow publish is
 * measured instead of answered 504 at the default 5 s (the in-flight cap then also bounds the work
 * queued on the Mongo-wire server).
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*;
 *        pnpm --filter @marquee/bench publish-latency
 * Env: PUBLISH_BENCH_SECONDS (15), PUBLISH_BENCH_RATE (10), PUBLISH_BENCH_STORED (100,100000),
 *      PUBLISH_BENCH_MAX_IN_FLIGHT (8), PUBLISH_BENCH_DEADLINE_MS (60000).
 * The stack's databases (prefix `pbench…`) are dropped at the end.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { percentile } from './stats.ts';

const SECONDS = Number(process.env.PUBLISH_BENCH_SECONDS ?? 15);
const RATE = Number(process.env.PUBLISH_BENCH_RATE ?? 10);
const STORED = (process.env.PUBLISH_BENCH_STORED ?? '100,100000').split(',').map(Number);
const MAX_IN_FLIGHT = Number(process.env.PUBLISH_BENCH_MAX_IN_FLIGHT ?? 8);
const DEADLINE_MS = Number(process.env.PUBLISH_BENCH_DEADLINE_MS ?? 60_000);
const SEED_APPS = 100;
const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('the publish bench needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

const { startStack } = await import('../test/support/stack.ts');
const { connectMongo, closeMongo } = await import('@marquee/platform/mongo');
const { createLogger } = await import('@marquee/platform/logger');

const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.error(`[publish bench] ${line}`);

const body = (n: number | string) => ({
  source: { id: 'bench', name: 'Bench' },
  version: 1,
  url: `https://publisher.example/bench/${n}`,
  names: { 'en-us': `Publish bench ${n}` },
  classifications: [{ primary: true, segment: { names: { 'en-us': 'Music' } } }],
  dates: {
    start: { localDate: '2031-01-01', localTime: '20:00:00', dateTime: '2031-01-01T19:00:00Z' },
    timezone: 'Europe/Berlin',
  },
  place: {
    names: { 'en-us': 'Bench Hall' },
    city: { names: { 'en-us': 'Berlin' } },
    country: { countryCode: 'DE' },
  },
  priceRanges: { type: 'standard', currency: 'EUR', min: 20, max: 60 },
});

const dbPrefix = `pbench${randomBytes(3).toString('hex')}`;
const stack = await startStack({
  kafkaBrokers: brokers,
  mongoUrl,
  dbPrefix,
  serviceEnv: {
    'auth-gateway': { DEFAULT_QUOTA_PER_SECOND: '100000', DEFAULT_QUOTA_PER_DAY: '100000000' },
    'edge-gateway': { BACKEND_DEADLINE_MS: String(DEADLINE_MS) },
    // With E2E_SERVICE_LOGS=<dir>, publisher's log names every Mongo command slower than 1 s.
    publisher: { MONGO_SLOW_MS: '1000' },
  },
});
const logger = createLogger({ service: 'publish-bench', level: 'warn' });
const mongo = await connectMongo({ url: mongoUrl, dbName: `${dbPrefix}_publisher`, logger });
let stopping = false;
const cleanUp = async () => {
  if (stopping) return;
  stopping = true;
  await closeMongo(mongo, logger);
  // Stopping the stack drops its databases.
  await stack.stop().catch((error: unknown) => log(`stopping the stack: ${String(error)}`));
};
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
process.once('SIGTERM', () => void cleanUp().finally(() => process.exit(143)));

try {
  const created = await fetch(`${stack.baseUrl}/admin/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'publish bench', redirectUris: ['https://bench.example/cb'] }),
  });
  const { apiKey } = (await created.json()) as { apiKey: string };
  const publishUrl = `${stack.baseUrl}/publish/v2/events?apikey=${apiKey}`;

  // The measured app's id as publisher stores it: from an event it published through the API.
  const first = await fetch(publishUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body('first')),
  });
  if (first.status !== 200) throw new Error(`first publish: ${first.status} ${await first.text()}`);
  const firstId = ((await first.json()) as { id: string }).id;
  /** publisher's collection, in the platform store's document shape (mongo-store.ts). */
  interface StoredDoc {
    _id: string;
    version: number;
    data: Record<string, unknown> & { appId: string };
    tombstone: boolean;
    outbox: unknown[];
    outboxPending: boolean;
  }
  const events = mongo.db!.collection<StoredDoc>('published_events');
  const benchApp = (await events.findOne({ _id: firstId }))?.data.appId;
  if (!benchApp) throw new Error('could not read the measured app id back from the store');
  // Seeded ids look like publisher's own: 15 letters and digits.
  const idPrefix = `S${randomBytes(4).toString('hex')}`;
  const seedId = (n: number) => `${idPrefix}${String(n).padStart(6, '0')}`;

  let seeded = 0;
  const seedTo = async (target: number) => {
    const started = performance.now();
    const now = Date.now();
    while (seeded < target) {
      const batch: StoredDoc[] = [];
      for (let i = 0; i < 1_000 && seeded < target; i += 1, seeded += 1) {
        const n = seeded;
        // The first seeded event is the measured app's, read back below; the rest are others'.
        const owner = n === 0 ? benchApp : `seed-app-${n % SEED_APPS}`;
        const at = new Date(now - Math.floor(((n * 7_919) % 86_400) * 1000));
        batch.push({
          _id: seedId(n),
          version: 1,
          data: {
            appId: owner,
            publisherVersion: 1,
            sourceId: 'bench',
            bodyJson: JSON.stringify(body(`seed-${n}`)),
            createdAt: at,
            updatedAt: at,
            publicationKey: randomBytes(32).toString('base64url'),
          },
          tombstone: false,
          outbox: [],
          outboxPending: false,
        });
      }
      await events.insertMany(batch, { ordered: false });
    }
    return Math.round(performance.now() - started);
  };

  type Outcome = { dueAt: number; sentAt: number; answeredAt: number; status: number | string };
  const measure = async (withKey: boolean) => {
    const interval = 1000 / RATE;
    const start = performance.now() + 50;
    const end = start + SECONDS * 1000;
    const outcomes: Outcome[] = [];
    let unsent = 0;
    let inFlight = 0;
    const slotFreed: Array<() => void> = [];
    const sends: Promise<void>[] = [];
    const send = async (dueAt: number, n: number) => {
      while (inFlight >= MAX_IN_FLIGHT)
        await new Promise<void>((resolve) => slotFreed.push(resolve));
      if (performance.now() >= end) {
        unsent += 1;
        // The slot this wake-up offered goes to the next waiter, which ends the same way.
        slotFreed.shift()?.();
        return;
      }
      inFlight += 1;
      const sentAt = performance.now();
      let status: number | string;
      try {
        const response = await fetch(publishUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(withKey ? { 'idempotency-key': randomUUID() } : {}),
          },
          body: JSON.stringify(body(`${withKey ? 'k' : 'n'}${n}`)),
          signal: AbortSignal.timeout(DEADLINE_MS + 10_000),
        });
        await response.arrayBuffer();
        status = response.status;
      } catch (error) {
        status = (error as Error).name;
      }
      outcomes.push({ dueAt, sentAt, answeredAt: performance.now(), status });
      inFlight -= 1;
      slotFreed.shift()?.();
    };
    for (let n = 0, due = start; due < end; n += 1, due += interval) {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sends.push(send(due, n));
    }
    await Promise.all(sends);
    // Percentiles over every scheduled publish: one not answered 200 (an error, or unsent when
    // the window ended) ranks above every answer, and a percentile that falls on it is reported as
    // null: the server did not do that much in time.
    const ok = outcomes.filter((o) => o.status === 200);
    const fromDue = ok.map((o) => o.answeredAt - o.dueAt).sort((a, b) => a - b);
    const scheduled = outcomes.length + unsent;
    const overScheduled = (p: number) => {
      const rank = Math.max(1, Math.ceil((p / 100) * scheduled));
      return rank <= fromDue.length ? round(fromDue[rank - 1]!) : null;
    };
    const service = outcomes.map((o) => o.answeredAt - o.sentAt).sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    for (const { status } of outcomes) statuses[status] = (statuses[status] ?? 0) + 1;
    return {
      idempotencyKey: withKey,
      scheduled,
      answered200: ok.length,
      unsent,
      answered200PerSecond: round(ok.length / SECONDS),
      statuses,
      latencyFromDueMs: { p50: overScheduled(50), p99: overScheduled(99) },
      // Send to answer of what was sent, whatever the answer: the cost of one publish under this load.
      serviceMs: {
        p50: round(percentile(service, 50)),
        p99: round(percentile(service, 99)),
        max: round(service.at(-1) ?? 0),
      },
    };
  };

  /** Publishes one at a time, each answered before the next: what one publish costs, unloaded. */
  const single = async (withKey: boolean, count = 3) => {
    const times: number[] = [];
    const statuses: (number | string)[] = [];
    for (let n = 0; n < count; n += 1) {
      const sentAt = performance.now();
      try {
        const response = await fetch(publishUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(withKey ? { 'idempotency-key': randomUUID() } : {}),
          },
          body: JSON.stringify(body(`single-${withKey ? 'k' : 'n'}${n}`)),
          signal: AbortSignal.timeout(DEADLINE_MS + 10_000),
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch (error) {
        statuses.push((error as Error).name);
      }
      times.push(round(performance.now() - sentAt));
    }
    return { idempotencyKey: withKey, ms: times, statuses };
  };

  const results = [];
  for (const target of STORED) {
    const seedMs = await seedTo(target);
    const stored = await events.estimatedDocumentCount();
    const probe = await fetch(`${stack.baseUrl}/publish/v2/events/${seedId(0)}?apikey=${apiKey}`);
    if (probe.status !== 200) {
      throw new Error(
        `publisher does not read a seeded event: ${probe.status} ${await probe.text()}`,
      );
    }
    log(`${stored} events stored (seeded ${target} in ${seedMs} ms); measuring`);
    const oneAtATime = [await single(false), await single(true)];
    log(`${stored} stored, one at a time: ${JSON.stringify(oneAtATime)}`);
    const scenarios = [];
    for (const withKey of [false, true]) {
      const result = await measure(withKey);
      log(`${stored} stored, key ${withKey}: ${JSON.stringify(result)}`);
      scenarios.push(result);
    }
    results.push({ storedEvents: stored, seededInMs: seedMs, oneAtATime, scenarios });
  }

  console.log(
    JSON.stringify(
      {
        benchmark: 'publish',
        setup: {
          path: 'POST /publish/v2/events through the edge (auth-gateway key and quota, publisher gRPC, published_events on the Mongo-wire server)',
          mongoUrl: mongoUrl.replace(/\/\/[^@]*@/, '//'),
          ratePerSecond: RATE,
          secondsPerScenario: SECONDS,
          maxInFlight: MAX_IN_FLIGHT,
          edgeBackendDeadlineMs: DEADLINE_MS,
          seedApps: SEED_APPS,
          cpus: os.cpus().length,
          loadAverage: round(os.loadavg()[0]!),
          node: process.version,
        },
        results,
      },
      null,
      2,
    ),
  );
} finally {
  await cleanUp();
}
