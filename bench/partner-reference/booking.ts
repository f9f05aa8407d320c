/**
 * partner-reference booking benchmark: `POST /v1/bookings` of one ticket each against an event of
 * BENCH_SEATS seats (default 20,000), until every seat is held, from BENCH_CONNECTIONS concurrent
 * clients (default 32), then BENCH_REFUSALS more requests on the sold-out event (default 2,000).
 *
 * partner-reference runs as its own process (its built `dist/main.js`, as deployed), so the load
 * generator never shares its event loop; the memory store always, and the Mongo-wire store too
 * when MONGO_URL is set (BENCH_MONGO_SEATS, default 2,000: FerretDB rewrites the whole inventory
 * document on every hold). Every request carries its own `external_reference`, as the platform's
 * carts do. Prints one JSON report.
 *
 * Usage: pnpm -s turbo run build --filter=@marquee/partner-reference...
 *        pnpm --filter @marquee/bench partner-booking
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { percentile } from '../stats.ts';

const SEATS = Number(process.env.BENCH_SEATS ?? 20_000);
const MONGO_SEATS = Number(process.env.BENCH_MONGO_SEATS ?? 2_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const REFUSALS = Number(process.env.BENCH_REFUSALS ?? 2_000);
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const CLIENT_ID = 'bench-client';
const CLIENT_SECRET = randomBytes(24).toString('base64url');
const MAIN = fileURLToPath(
  new URL('../../services/partner-reference/dist/main.js', import.meta.url),
);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startPartner(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      PARTNER_ADMIN_TOKEN: ADMIN_TOKEN,
      PARTNER_CLIENT_ID: CLIENT_ID,
      PARTNER_CLIENT_SECRET: CLIENT_SECRET,
      PARTNER_SEED_DEMO: 'false',
      // No hold may expire during a run.
      BOOKING_TIMEOUT_MS: '3600000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`partner-reference exited (${child.exitCode})`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('partner-reference did not start in 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function json<T>(response: Response, expected: number): Promise<T> {
  if (response.status !== expected)
    throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A venue of `seats` seats: areas of 20 rows of 100 seats (the last one smaller when needed). */
async function createEvent(base: string, seats: number): Promise<string> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const areas = [];
  for (let left = seats, i = 0; left > 0; i += 1) {
    const inArea = Math.min(left, 2_000);
    const rows = [];
    for (let r = 0, n = inArea; n > 0; r += 1, n -= 100)
      rows.push({ row: `R${r + 1}`, seats: Math.min(100, n) });
    areas.push({
      id: `AREA-${i + 1}`,
      name: `Area ${i + 1}`,
      level_id: 'L1',
      section_id: `S${i + 1}`,
      price_level_id: 'PL1',
      general_admission: false,
      rows,
    });
    left -= inArea;
  }
  const venue = await json<{ venue_id: string; manifest_ids: string[] }>(
    await fetch(`${base}/admin/v1/venues`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: 'Bench Stadium',
        city: 'Bench',
        country: 'GB',
        timezone: 'Europe/London',
        manifests: [
          {
            name: 'Stadium',
            levels: [{ id: 'L1', name: 'Bowl', position: 1 }],
            sections: areas.map((a) => ({ id: a.section_id, name: a.name })),
            price_levels: [{ id: 'PL1', name: 'Standard' }],
            areas,
          },
        ],
      }),
    }),
    201,
  );
  const now = Date.now();
  const event = await json<{ event_id: string }>(
    await fetch(`${base}/admin/v1/events`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        venue_id: venue.venue_id,
        manifest_id: venue.manifest_ids[0],
        text_infos: [{ lang: 'en-us', name: 'Bench night' }],
        date_time: new Date(now + 30 * 86_400_000).toISOString(),
        currency: 'GBP',
        maximum_tickets_quantity: 10,
        price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Standard' }] }],
        price_types: [{ id: 'STD', regular: true, text_infos: [{ lang: 'en-us', name: 'Std' }] }],
        face_value_prices: [
          {
            price_period: {
              id: 'P',
              start_date_time: new Date(now - 86_400_000).toISOString(),
              end_date_time: new Date(now + 30 * 86_400_000).toISOString(),
            },
            prices: [{ price_level_id: 'PL1', price_type_id: 'STD', amount: '5000' }],
          },
        ],
      }),
    }),
    201,
  );
  return event.event_id;
}

interface Phase {
  requests: number;
  byStatus: Record<string, number>;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

async function drive(
  pool: Pool,
  authorization: string,
  eventId: string,
  count: number,
  offset: number,
): Promise<Phase> {
  const latencies: number[] = [];
  const byStatus: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < count) {
      const i = offset + next++;
      const body = JSON.stringify({
        request: {
          event_id: eventId,
          language: 'en-us',
          channel_info: { channel_type: 'INTERNET' },
          tickets: [{ price_type_id: 'STD', quantity: 1 }],
          external_reference: `cart-${i}`,
        },
      });
      const sent = performance.now();
      const response = await pool.request({
        path: '/v1/bookings',
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
      await response.body.dump();
      latencies.push(performance.now() - sent);
      byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, client));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 100) / 100;
  return {
    requests: count,
    byStatus,
    seconds: ms(seconds),
    requestsPerSecond: Math.round(count / seconds),
    latencyMs: {
      p50: ms(percentile(latencies, 50)),
      p90: ms(percentile(latencies, 90)),
      p99: ms(percentile(latencies, 99)),
      max: ms(latencies[latencies.length - 1] ?? 0),
    },
  };
}

async function run(storage: 'memory' | 'mongo', seats: number, env: Record<string, string>) {
  const { child, base } = await startPartner(env);
  const pool = new Pool(base, { connections: CONNECTIONS });
  try {
    const eventId = await createEvent(base, seats);
    const token = await json<{ access_token: string }>(
      await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        }),
      }),
      200,
    );
    const authorization = `Bearer ${token.access_token}`;
    const holds = await drive(pool, authorization, eventId, seats, 0);
    const refusals = await drive(pool, authorization, eventId, Math.min(REFUSALS, seats), seats);
    const availability = await json<{ areas: Array<{ available: number }> }>(
      await fetch(`${base}/v1/events/${eventId}/availability`, { headers: { authorization } }),
      200,
    );
    return {
      storage,
      seats,
      holds,
      soldOutRefusals: refusals,
      availableAfter: availability.areas.reduce((sum, a) => sum + a.available, 0),
    };
  } finally {
    await pool.close();
    child.kill('SIGTERM');
  }
}

const results = [await run('memory', SEATS, {})];
if (process.env.MONGO_URL) {
  results.push(
    await run('mongo', MONGO_SEATS, {
      MONGO_URL: process.env.MONGO_URL,
      MONGO_DB: `partner_bench_${randomBytes(4).toString('hex')}`,
    }),
  );
}
console.log(
  JSON.stringify(
    {
      bench: 'partner-reference POST /v1/bookings',
      connections: CONNECTIONS,
      machine: { cpus: os.cpus().length, node: process.version },
      at: new Date().toISOString(),
      results,
    },
    null,
    2,
  ),
);
