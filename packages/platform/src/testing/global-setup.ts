import type { TestProject } from 'vitest/node';
import { KAFKA_BROKERS_KEY, MONGO_URL_KEY } from './provided-context.js';

/**
 * vitest globalSetup of every package's `integration` project (wired in /vitest.shared.ts).
 *
 * 1. `KAFKA_BROKERS` / `MONGO_URL` set (deploy/local/infra.sh, `.ci/run`): provided as they are.
 * 2. Otherwise, if a Docker engine answers, the missing ones are started with testcontainers —
 *    one Kafka (KRaft) and one MongoDB for the whole run — and stopped at teardown.
 * 3. Otherwise nothing is provided, and `describeIntegration` skips (or fails under CI=true).
 *
 * Tests read the result with `integrationEnv()`; it uses vitest's `inject`, with the environment
 * as fallback, so the values reach workers whatever the pool.
 */
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.1';
const MONGO_IMAGE = 'mongo:8.0';

export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  let kafkaBrokers = process.env['KAFKA_BROKERS'] || undefined;
  let mongoUrl = process.env['MONGO_URL'] || undefined;
  const stops: (() => Promise<unknown>)[] = [];

  if ((!kafkaBrokers || !mongoUrl) && (await dockerAnswers())) {
    const started = await Promise.allSettled([
      kafkaBrokers ? Promise.resolve(undefined) : startKafka(),
      mongoUrl ? Promise.resolve(undefined) : startMongo(),
    ]);
    for (const result of started) {
      if (result.status === 'fulfilled' && result.value) stops.push(result.value.stop);
    }
    const [kafka, mongo] = started;
    if (kafka.status === 'rejected' || mongo.status === 'rejected') {
      await Promise.allSettled(stops.map((stop) => stop()));
      throw new Error('testcontainers could not start Kafka/MongoDB', {
        cause: kafka.status === 'rejected' ? kafka.reason : (mongo as PromiseRejectedResult).reason,
      });
    }
    kafkaBrokers ??= kafka.value?.url;
    mongoUrl ??= mongo.value?.url;
  }

  if (kafkaBrokers) project.provide(KAFKA_BROKERS_KEY, kafkaBrokers);
  if (mongoUrl) project.provide(MONGO_URL_KEY, mongoUrl);
  const sasl = process.env['KAFKA_SASL_BROKERS'];
  const login = sasl && process.env['KAFKA_CREDENTIALS_DIR'] ? ` (clients log in on ${sasl})` : '';
  log(
    kafkaBrokers && mongoUrl
      ? `integration infrastructure: Kafka ${kafkaBrokers}${login}, Mongo ${redactCredentials(mongoUrl)}${stops.length > 0 ? ' (testcontainers)' : ''}`
      : 'integration infrastructure: none (set KAFKA_BROKERS and MONGO_URL, or run a Docker engine)',
  );

  if (stops.length === 0) return undefined;
  return async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
}

interface Started {
  url: string;
  stop: () => Promise<unknown>;
}

async function dockerAnswers(): Promise<boolean> {
  try {
    // Imported lazily: most runs use env-provided infrastructure and never need the Docker client.
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    // testcontainers has no "is Docker there" switch; failing to get a client is the answer.
    return false;
  }
}

async function startKafka(): Promise<Started> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer(KAFKA_IMAGE).withKraft().start();
  // The container's PLAINTEXT listener for clients outside Docker (see @testcontainers/kafka).
  return {
    url: `${container.getHost()}:${container.getMappedPort(9093)}`,
    stop: () => container.stop(),
  };
}

async function startMongo(): Promise<Started> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer(MONGO_IMAGE).start();
  // A single-node replica set whose advertised host is internal to Docker: connect directly.
  const url = new URL(container.getConnectionString());
  url.searchParams.set('directConnection', 'true');
  return { url: url.toString(), stop: () => container.stop() };
}

function redactCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable MONGO_URL>';
  }
}

function log(message: string): void {
  console.log(`[marquee] ${message}`);
}
