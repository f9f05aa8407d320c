import { describe, it } from 'vitest';
import type { KafkaSaslOptions } from '../config/kafka-security.js';
import { describeIntegration, saslListener, type IntegrationEnv } from './integration-env.js';
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
    const listener = saslListener();
    if (listener) {
      fn({ ...env, saslBrokers: listener.brokers, login: listener.login });
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
