import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, inject, it } from 'vitest';
import type { KafkaSaslOptions } from '../config/kafka-security.js';
import { KAFKA_BROKERS_KEY, MONGO_URL_KEY } from './provided-context.js';
import { skipIsFailure, STRICT_REASON } from './strict.js';

/** How the tier's Kafka clients connect: spread into `createKafkaBus` or `new Kafka`. */
export interface IntegrationKafka {
  brokers: string[];
  /** The broker's admin user on its authenticated listener; absent on an open listener. */
  sasl?: KafkaSaslOptions;
}

/** Where the real infrastructure of the integration tier is. */
export interface IntegrationEnv {
  /**
   * The brokers and login of the tier's clients: `createKafkaBus({ ...kafka, clientId, ... })`.
   * The authenticated listener (`KAFKA_SASL_BROKERS`, logged in as `admin`) whenever infra.sh
   * exported one, and always under `CI=true`; the open `KAFKA_BROKERS` listener otherwise (a
   * testcontainers broker, or one started by an older infra.sh).
   */
  kafka: IntegrationKafka;
  /** `kafka.brokers`, for what takes the list alone. */
  kafkaBrokers: string[];
  mongoUrl: string;
}

const brokerList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');

/** The broker's authenticated listener and how to log in on it as one of its SASL users. */
export interface SaslListener {
  /** `KAFKA_SASL_BROKERS` split on commas: the SASL_PLAINTEXT listener, ACLs enforced. */
  brokers: string[];
  /** SCRAM-SHA-512 login of a SASL user (its password file in `KAFKA_CREDENTIALS_DIR`). */
  login(user: string): KafkaSaslOptions;
}

/**
 * The authenticated listener from `KAFKA_SASL_BROKERS` and `KAFKA_CREDENTIALS_DIR` (one password
 * file per SASL user: `admin`, each service, `analytics`), which `infra.sh env` exports; undefined
 * without them.
 */
export function saslListener(): SaslListener | undefined {
  const brokers = brokerList(process.env['KAFKA_SASL_BROKERS']);
  const credentials = process.env['KAFKA_CREDENTIALS_DIR'];
  if (brokers.length === 0 || !credentials) return undefined;
  return {
    brokers,
    login: (user) => ({
      mechanism: 'scram-sha-512',
      username: user,
      password: readFileSync(join(credentials, user), 'utf8').trim(),
    }),
  };
}

/**
 * The integration tier's connection on the authenticated listener, logged in as the super user:
 * its tests make topics and groups of their own names, which no service's ACLs cover. The ACLs
 * themselves are exercised where each party logs in as itself (secure-entry's kafka-auth test,
 * the e2e and fault stacks).
 */
function saslKafka(): IntegrationKafka | undefined {
  const listener = saslListener();
  return listener && { brokers: listener.brokers, sasl: listener.login('admin') };
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
  const open = brokerList(provided(KAFKA_BROKERS_KEY) ?? process.env['KAFKA_BROKERS']);
  const mongoUrl = provided(MONGO_URL_KEY) ?? process.env['MONGO_URL'];
  if (open.length === 0 || !mongoUrl) return undefined;
  const kafka = saslKafka();
  if (!kafka && skipIsFailure())
    throw new Error(
      `the integration tier runs on the authenticated Kafka listener (${STRICT_REASON}): ` +
        'KAFKA_SASL_BROKERS and KAFKA_CREDENTIALS_DIR are unset (`eval "$(bash deploy/local/infra.sh env)"`)',
    );
  const chosen = kafka ?? { brokers: open };
  return { kafka: chosen, kafkaBrokers: chosen.brokers, mongoUrl };
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
  if (skipIsFailure()) {
    throw new Error(`integration suite "${name}" cannot run (${STRICT_REASON}): ${reason}`);
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

function provided(key: typeof KAFKA_BROKERS_KEY | typeof MONGO_URL_KEY): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    // Not inside a vitest worker (or too old a runner to provide): fall back to the environment.
    return undefined;
  }
}
