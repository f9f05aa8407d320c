/**
 * Publish-to-visible on the distributed stack: every service its own process, real Kafka and the
 * real Mongo-wire server. An event is published through the edge (`POST /publish/v2/events`:
 * publisher validates and stores it, its outbox relay emits `event-changed` to Kafka, catalog-indexer
 * consumes it into its in-memory read model and its search index); the clock stops when
 * catalog-indexer's `GetEvent` answers it (polled over gRPC every 2 ms, so the app's 5 requests/s
 * quota does not blur the measurement; the edge adds one constant hop on top).
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*;
 *        pnpm --filter @marquee/bench discovery:visible
 * Env: VISIBLE_BENCH_SAMPLES (40).
 */
import { randomBytes } from 'node:crypto';
import { percentile } from '../stats.ts';

const SAMPLES = Number(process.env.VISIBLE_BENCH_SAMPLES ?? 40);
const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('publish-to-visible needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

const { startStack } = await import('../../test/support/stack.ts');
const { callUnary, createGrpcClient } = await import('@marquee/platform/grpc');
const { catalogV1 } = await import('@marquee/proto');

const round = (n: number) => Math.round(n * 10) / 10;

const stack = await startStack({ kafkaBrokers: brokers, mongoUrl });
try {
  const created = await fetch(`${stack.baseUrl}/admin/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'visible bench', redirectUris: ['https://bench.example/cb'] }),
  });
  const { apiKey } = (await created.json()) as { apiKey: string };
  const catalog = createGrpcClient(
    catalogV1.CatalogServiceClient,
    `127.0.0.1:${stack.services.get('catalog-indexer')!.grpcPort}`,
    { deadlineMs: 5_000, caller: 'edge-gateway' },
  );
  const marker = randomBytes(4).toString('hex');
  const accepted: number[] = [];
  const visible: number[] = [];
  for (let n = 0; n < SAMPLES; n++) {
    const started = performance.now();
    const response = await fetch(`${stack.baseUrl}/publish/v2/events?apikey=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        source: { id: 'bench', name: 'bench' },
        version: 1,
        names: { 'en-us': `Visible ${marker} ${n}` },
        dates: {
          start: {
            localDate: '2031-01-01',
            localTime: '20:00:00',
            dateTime: '2031-01-01T20:00:00Z',
          },
        },
        place: {
          names: { 'en-us': 'Bench Hall' },
          city: { names: { 'en-us': 'Berlin' } },
          country: { countryCode: 'DE' },
        },
      }),
    });
    const { id } = (await response.json()) as { id: string };
    accepted.push(performance.now() - started);
    for (;;) {
      try {
        await callUnary(catalog, 'getEvent', { id, locale: '' });
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    visible.push(performance.now() - started);
    // The app's quota is 5 requests a second.
    const spent = performance.now() - started;
    if (spent < 220) await new Promise((resolve) => setTimeout(resolve, 220 - spent));
  }
  catalog.close();
  accepted.sort((a, b) => a - b);
  visible.sort((a, b) => a - b);
  const os = await import('node:os');
  console.log(
    JSON.stringify(
      {
        benchmark: 'discovery-publish-to-visible',
        setup: {
          samples: SAMPLES,
          path: 'POST /publish/v2/events (edge → publisher → outbox → Kafka) → catalog-indexer (FerretDB read model, index) → GetEvent',
          cpus: os.cpus().length,
          loadAverage: round(os.loadavg()[0]!),
          node: process.version,
        },
        publishAcceptedMs: {
          p50: round(percentile(accepted, 50)),
          p99: round(percentile(accepted, 99)),
        },
        publishToVisibleMs: {
          p50: round(percentile(visible, 50)),
          p99: round(percentile(visible, 99)),
          max: round(visible.at(-1) ?? 0),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await stack.stop();
}
