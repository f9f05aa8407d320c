import { describe, inject, it } from 'vitest';
import { KAFKA_BROKERS_KEY, MONGO_URL_KEY } from './provided-context.js';

/** Where the real infrastructure of the integration tier is. */
export interface IntegrationEnv {
  /** `KAFKA_BROKERS` split on commas, ready for `createKafkaBus({ brokers })`. */
  kafkaBrokers: string[];
  mongoUrl: string;
}

/**
 * The real Kafka and Mongo-wire server to test against, or undefined when there are none.
 *
 * Read first from what the globalSetup (`@marquee/platform/testing/global-setup`) provided — the
 * environment it was started with, or the testcontainers it started — then from `KAFKA_BROKERS` /
 * `MONGO_URL` in this process's environment, so the helper also works in a test run that has no
 * globalSetup (the unit project, or a custom config).
 */
export function integrationEnv(): IntegrationEnv | undefined {
  const kafka = provided(KAFKA_BROKERS_KEY) ?? process.env['KAFKA_BROKERS'];
  const mongoUrl = provided(MONGO_URL_KEY) ?? process.env['MONGO_URL'];
  const kafkaBrokers = (kafka ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  if (kafkaBrokers.length === 0 || !mongoUrl) return undefined;
  return { kafkaBrokers, mongoUrl };
}

/**
 * `describe` for suites that need real infrastructure. Without it the suite is skipped with a loud
 * warning — except under `CI=true`, where a silently skipped tier would read as a green build, so
 * it throws instead and the file fails.
 */
export function describeIntegration(name: string, fn: (env: IntegrationEnv) => void): void {
  const env = integrationEnv();
  if (env) {
    describe(name, () => fn(env));
    return;
  }
  const reason =
    'no real Kafka / Mongo-wire server: KAFKA_BROKERS and MONGO_URL are unset and no Docker engine answered ' +
    '(start them with `bash deploy/local/infra.sh start` and `eval "$(bash deploy/local/infra.sh env)"`)';
  if (isCi()) {
    throw new Error(`integration suite "${name}" cannot run under CI=true: ${reason}`);
  }
  console.warn(
    [
      '',
      '#'.repeat(100),
      `#  SKIPPED integration suite "${name}"`,
      `#  ${reason}`,
      '#'.repeat(100),
      '',
    ].join('\n'),
  );
  // The suite body is not evaluated: it would build clients from an environment that is not there.
  describe.skip(name, () => {
    it('needs real Kafka and a Mongo-wire server', () => {});
  });
}

function isCi(): boolean {
  const ci = process.env['CI']?.toLowerCase();
  return ci === 'true' || ci === '1';
}

function provided(key: typeof KAFKA_BROKERS_KEY | typeof MONGO_URL_KEY): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    // Not inside a vitest worker (or too old a runner to provide): fall back to the environment.
    return undefined;
  }
}
