/**
 * Catch-up of a new catalog-indexer replica on real Kafka: how long a fresh replica takes from
 * start to ready (every record of `event-changed` and `availability-changed` that existed when it
 * started, read and indexed: what `/readyz` waits for) over 100,000 events.
 *
 * Needs KAFKA_BROKERS. The events go to topics of their own (`bench-event-changed-<run>`, three
 * partitions like the local broker's default), never to the shared `event-changed`, and are deleted
 * at the end. Each replica is a new Kafka client and catalog in this process, started one after the
 * other; the report is JSON on stdout.
 *
 *   pnpm -s turbo run build --filter=@marquee/bench...
 *   KAFKA_BROKERS=127.0.0.1:19092 pnpm --filter @marquee/bench read-replicas
 *
 * READ_REPLICAS_EVENTS (default 100000), READ_REPLICAS_RUNS (default 3), READ_REPLICAS_PARTITIONS (3).
 */
import { randomBytes } from 'node:crypto';
import { buildCatalogIndexer } from '@marquee/catalog-indexer';
import { createKafkaBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { availabilityChangedTopic, catalogV1, eventChangedTopic } from '@marquee/proto';
import { Kafka, logLevel } from 'kafkajs';
import { random } from '../random.ts';

const brokers = process.env.KAFKA_BROKERS?.split(',');
if (!brokers) {
  console.error('read-replicas bench: KAFKA_BROKERS is required');
  process.exit(2);
}
const EVENTS = Number(process.env.READ_REPLICAS_EVENTS ?? 100_000);
const RUNS = Number(process.env.READ_REPLICAS_RUNS ?? 3);
const PARTITIONS = Number(process.env.READ_REPLICAS_PARTITIONS ?? 3);
const run = randomBytes(4).toString('hex');
const topic = { ...eventChangedTopic, name: `bench-event-changed-${run}` };
const availabilityTopic = { ...availabilityChangedTopic, name: `bench-availability-${run}` };
const logger = createLogger({ service: 'read-replicas-bench', level: 'warn' });

const cities: Array<[string, string, number, number]> = [
  ['Chicago', 'US', 41.88, -87.63],
  ['New York', 'US', 40.71, -74.0],
  ['Berlin', 'DE', 52.52, 13.4],
  ['London', 'GB', 51.51, -0.13],
  ['Madrid', 'ES', 40.42, -3.7],
];
const genres = ['Rock', 'Jazz', 'Pop', 'Classical', 'Comedy', 'Football'];
const next = random(11);
const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;

function eventAt(id: string, i: number) {
  const [city, country, lat, lon] = pick(cities);
  const genre = pick(genres);
  return catalogV1.Event.fromPartial({
    id,
    version: 1,
    active: true,
    url: `https://tickets.example.com/${id}`,
    source: { id: 'bench', name: 'bench' },
    names: { values: { 'en-us': `${genre} night ${i}` } },
    attractions: [
      {
        ref: { $case: 'id', value: `K${i % 10_000}` },
        names: { values: { 'en-us': `Performer ${i % 10_000}` } },
      },
    ],
    classifications: [
      { primary: true, genre: { id: `KG${genre}`, names: { values: { 'en-us': genre } } } },
    ],
    dates: {
      start: { dateTime: new Date(Date.UTC(2030, 0, 1) + (i % 730) * 86_400_000) },
      timezone: 'UTC',
    },
    location: {
      $case: 'place',
      value: {
        names: { values: { 'en-us': `${city} Hall ${i % 200}` } },
        cityNames: { values: { 'en-us': city } },
        country: { countryCode: country },
        postalCode: String(10_000 + (i % 200)),
        location: { latitude: lat + (next() - 0.5) * 0.4, longitude: lon + (next() - 0.5) * 0.4 },
      },
    },
    priceRanges: [
      {
        type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
        min: { amountMinor: 2000, currency: 'USD' },
        max: { amountMinor: 15000, currency: 'USD' },
      },
    ],
    status: catalogV1.EventStatus.EVENT_STATUS_ONSALE,
  });
}

const kafka = new Kafka({ clientId: 'read-replicas-bench', brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
const producer = createKafkaBus({
  brokers,
  clientId: 'read-replicas-bench-producer',
  source: '//marquee/bench',
  logger,
  topics: { numPartitions: PARTITIONS },
});
try {
  await producer.ensureTopics([topic, availabilityTopic]);
  const produceStarted = performance.now();
  for (let batch = 0; batch < EVENTS; batch += 1000) {
    const records = [];
    for (let i = batch; i < Math.min(EVENTS, batch + 1000); i++) {
      const id = `RR${run}${String(i).padStart(8, '0')}`;
      records.push({ key: id, value: { event: eventAt(id, i), changedAt: new Date() } });
    }
    await producer.publish(topic, records);
  }
  const produceSeconds = (performance.now() - produceStarted) / 1000;
  const offsets = await admin.fetchTopicOffsets(topic.name);

  const replicas = [];
  for (let n = 0; n < RUNS; n++) {
    const bus = createKafkaBus({
      brokers,
      clientId: `read-replicas-bench-${n}`,
      source: '//marquee/catalog-indexer',
      logger,
    });
    const { parts, catalog } = await buildCatalogIndexer(
      { name: 'catalog-indexer', logger, bus, mongo: undefined },
      { topic, availabilityTopic, name: `read-replicas-bench-${run}` },
    );
    const ready = async () =>
      (await Promise.all(Object.values(parts.readiness!).map((check) => check()))).every(Boolean);
    const started = performance.now();
    await bus.start();
    while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 10));
    const readyAt = performance.now();
    replicas.push({
      replica: n + 1,
      readyMs: Math.round(readyAt - started),
      eventsIndexed: catalog.index.size,
      eventsPerSecond: Math.round(catalog.index.size / ((readyAt - started) / 1000)),
    });
    await parts.beforeStop?.();
    await bus.close();
  }
  const readyMs = replicas.map((r) => r.readyMs).sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        benchmark: 'read-replicas/catch-up',
        at: new Date().toISOString(),
        events: EVENTS,
        partitions: offsets.length,
        produceSeconds: Math.round(produceSeconds * 10) / 10,
        replicas,
        readyMsMedian: readyMs[Math.floor(readyMs.length / 2)],
      },
      null,
      2,
    ),
  );
} finally {
  await producer.close();
  await admin
    .deleteTopics({
      topics: [
        topic.name,
        `${topic.name}.dlq`,
        availabilityTopic.name,
        `${availabilityTopic.name}.dlq`,
      ],
    })
    .catch((error: unknown) => console.error('could not delete the bench topics', error));
  await admin.disconnect();
}
