/**
 * Partner import throughput on the distributed stack: every service its own process, real Kafka
 * and the real Mongo-wire server. partner-reference holds IMPORT_BENCH_EVENTS events of one venue
 * (made through its back office before the clock starts); the partner is then registered through
 * the edge admin API and the clock runs until (a) the connector reports the venue imported and
 * (b) discovery counts every event (catalog-indexer consumed each `event-changed` from Kafka).
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*;
 *        pnpm --filter @marquee/bench partner-import
 * Env: IMPORT_BENCH_EVENTS (10000), IMPORT_BENCH_CONCURRENCY (16, back-office writes in flight),
 *      IMPORT_BENCH_STORES (`mongo` default | `memory`: partner-reference, 3p-connector and
 *      catalog-indexer keep their repositories in memory; Kafka stays real), IMPORT_BENCH_DEADLINE_MS (900000).
 *
 * Why a memory mode: on the Mongo-wire server of dev and CI (FerretDB 1.24 on SQLite) every write
 * scans the whole collection (only a find by `_id` reaches an index), so the connector's few writes
 * per imported event cost time proportional to the events already stored and the import is
 * quadratic there. The memory mode measures the pipeline itself (partner API, mapping, Kafka,
 * indexing); the mongo mode measures what FerretDB allows. On MongoDB every store write is an `_id`
 * index lookup.
 */
import { randomBytes } from 'node:crypto';

const EVENTS = Number(process.env.IMPORT_BENCH_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.IMPORT_BENCH_CONCURRENCY ?? 16);
const STORES = process.env.IMPORT_BENCH_STORES ?? 'mongo';
if (STORES !== 'mongo' && STORES !== 'memory') {
  console.error('IMPORT_BENCH_STORES is mongo or memory');
  process.exit(2);
}
// In-memory repositories are a development mode: the services refuse them under production.
const inMemory: Record<string, string> =
  STORES === 'memory' ? { NODE_ENV: 'development', MONGO_URL: '' } : {};
const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('partner-import needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

const { startStack } = await import('../../test/support/stack.ts');
const { createPartnerVenue, partnerOriginOf, registerPartner } =
  await import('../../test/support/partner-event.ts');

const seconds = (ms: number) => Math.round(ms) / 1000;
const stack = await startStack({
  kafkaBrokers: brokers,
  mongoUrl,
  // Only the import this bench starts: no scheduled one in the middle of it.
  serviceEnv: {
    '3p-connector': { IMPORT_INTERVAL_MS: '3600000', ...inMemory },
    'catalog-indexer': inMemory,
    'partner-reference': inMemory,
  },
});
try {
  const auth = { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' };
  // partner-reference's back office has its own token.
  const partnerAuth = {
    authorization: `Bearer ${stack.partnerAdminToken}`,
    'content-type': 'application/json',
  };
  const partnerOrigin = partnerOriginOf(stack);
  const marker = `imp${randomBytes(4).toString('hex')}`;

  const { venueId, manifestId } = await createPartnerVenue(stack, {
    name: `Bench Arena ${marker}`,
    capacity: 1000,
  });

  const seedStarted = performance.now();
  let next = 0;
  const createOne = async (n: number) => {
    const start = new Date(Date.now() + (10 + (n % 300)) * 86_400_000);
    const response = await fetch(`${partnerOrigin}/admin/v1/events`, {
      method: 'POST',
      headers: partnerAuth,
      body: JSON.stringify({
        venue_id: venueId,
        manifest_id: manifestId,
        text_infos: [{ lang: 'en-us', name: `Bench ${marker} show ${n}` }],
        genre_info: [{ genre_id: 'POP', genre_name: 'Pop' }],
        date_time: start.toISOString(),
        date_time_properties: { date_hidden: false, time_hidden: false },
        timezone: 'Europe/Madrid',
        currency: 'EUR',
        maximum_tickets_quantity: 8,
        organization_info: { promoter_id: 'ES1', promoter_name: 'Bench' },
        visibility: { default_visibility: 'VISIBLE' },
        status: 'ON_SALE',
        price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Floor' }] }],
        price_types: [{ id: 'A', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] }],
        face_value_prices: [
          {
            price_period: {
              id: 'P1',
              start_date_time: new Date(Date.now() - 86_400_000).toISOString(),
              end_date_time: start.toISOString(),
            },
            prices: [{ price_level_id: 'PL1', price_type_id: 'A', amount: String(2000 + n) }],
          },
        ],
      }),
    });
    if (response.status !== 201) throw new Error(`event ${n}: ${response.status}`);
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) await createOne(next++);
    }),
  );
  const seedMs = performance.now() - seedStarted;

  const app = await fetch(`${stack.baseUrl}/admin/v1/apps`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      name: 'import bench',
      redirectUris: ['https://bench.example/cb'],
      quota: { perSecond: 1000, perDay: 100_000_000 },
    }),
  });
  const { apiKey } = (await app.json()) as { apiKey: string };

  const started = performance.now();
  const id = await registerPartner(stack, { name: 'Bench partner', venueIds: [venueId] });

  let importedMs: number | undefined;
  let visibleMs: number | undefined;
  let visible = 0;
  const deadline = Date.now() + Number(process.env.IMPORT_BENCH_DEADLINE_MS ?? 15 * 60_000);
  // Both clocks run until each has its answer: the connector records a venue's import after it has
  // published the events, so discovery can show them all before the import is recorded.
  while ((visibleMs === undefined || importedMs === undefined) && Date.now() < deadline) {
    if (importedMs === undefined) {
      const partner = (await (
        await fetch(`${stack.baseUrl}/admin/v1/partners/${id}`, { headers: auth })
      ).json()) as {
        venues?: Array<{ lastImportAt?: string; watermark?: string; lastError?: string }>;
      };
      // Imported: a run has finished without error and moved the watermark, so it saw every event
      // (all were created before the registration). Not `lastImportEvents`: a second run queued
      // during the first (registration and the first health check both ask for one) records 0
      // changed events right after it.
      const state = partner.venues?.[0];
      if (state?.lastImportAt && state.watermark && !state.lastError) {
        importedMs = performance.now() - started;
      }
    }
    if (visibleMs === undefined) {
      const page = (await (
        await fetch(
          `${stack.baseUrl}/discovery/v2/events.json?apikey=${apiKey}&keyword=${marker}&size=1`,
        )
      ).json()) as { page?: { totalElements: number } };
      visible = page.page?.totalElements ?? 0;
      if (visible >= EVENTS) visibleMs = performance.now() - started;
    }
    if (visibleMs === undefined || importedMs === undefined)
      await new Promise((resolve) => setTimeout(resolve, 250));
  }

  if (visibleMs === undefined || importedMs === undefined) {
    // Say why instead of printing nulls alone: the partner's import state and the services' tails.
    const partner = await (
      await fetch(`${stack.baseUrl}/admin/v1/partners/${id}`, { headers: auth })
    ).text();
    console.error(
      `partner-import: ${visibleMs === undefined ? 'not all events visible' : 'import not recorded'} before the deadline; partner state: ${partner}`,
    );
    for (const name of ['3p-connector', 'catalog-indexer']) {
      const tail = stack.services.get(name)?.output.slice(-40).join('') ?? '';
      console.error(`--- ${name} (last lines)\n${tail}`);
    }
  }
  console.log(
    JSON.stringify(
      {
        bench: 'partner-import',
        events: EVENTS,
        stores: STORES,
        seedSeconds: seconds(seedMs),
        importedAtConnectorSeconds: importedMs === undefined ? null : seconds(importedMs),
        visibleInDiscoverySeconds: visibleMs === undefined ? null : seconds(visibleMs),
        visible,
        eventsPerSecond:
          visibleMs === undefined ? null : Math.round((EVENTS / visibleMs) * 1000 * 10) / 10,
        machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      },
      null,
      2,
    ),
  );
} finally {
  await stack.stop();
}
