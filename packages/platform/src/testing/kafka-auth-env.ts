import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import type { KafkaSaslOptions } from '../config/kafka-security.js';
import { describeIntegration, type IntegrationEnv } from './integration-env.js';
import { skipIsFailure, STRICT_REASON } from './strict.js';

/** The authenticated listener of the integration tier's broker (deploy/local/infra.sh env). */
export interface KafkaAuthEnv extends IntegrationEnv {
  /** `KAFKA_SASL_BROKERS` split on commas: the SASL_PLAINTEXT listener, ACLs enforced. */
  saslBrokers: string[];
  /** SCRAM-SHA-512 login of a SASL user: `admin` (super user), a service's name, `analytics`. */
  login(user: string): KafkaSaslOptions;
}

/**
 * `describeIntegration` for suites that need the broker's authenticated listener as well:
 * `KAFKA_SASL_BROKERS` and `KAFKA_CREDENTIALS_DIR` (one password file per user), which
 * `infra.sh env` exports. Skipped with a warning without them, and failing under `CI=true`.
 */
export function describeKafkaAuth(name: string, fn: (env: KafkaAuthEnv) => void): void {
  describeIntegration(name, (env) => {
    const saslBrokers = (process.env['KAFKA_SASL_BROKERS'] ?? '')
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== '');
    const credentials = process.env['KAFKA_CREDENTIALS_DIR'];
    if (saslBrokers.length > 0 && credentials) {
      fn({
        ...env,
        saslBrokers,
        login: (user) => ({
          mechanism: 'scram-sha-512',
          username: user,
          password: readFileSync(join(credentials, user), 'utf8').trim(),
        }),
      });
      return;
    }
    const reason =
      'no authenticated Kafka listener: KAFKA_SASL_BROKERS and KAFKA_CREDENTIALS_DIR are unset ' +
      '(`eval "$(bash deploy/local/infra.sh env)"` after `infra.sh start kafka`; a broker started ' +
      'by an older infra.sh has no such listener: `infra.sh restart kafka` keeps its data and adds it)';
    if (skipIsFailure())
      throw new Error(`suite "${name}" cannot run (${STRICT_REASON}): ${reason}`);
    console.warn(`\n#  SKIPPED suite "${name}": ${reason}\n`);
    describe.skip(name, () => {
      it('needs an authenticated Kafka listener', () => {});
    });
  });
}
