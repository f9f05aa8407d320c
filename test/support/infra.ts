import { skipIsFailure } from '@marquee/platform/testing';

/**
 * Real infrastructure for the cross-service tiers. Absent infrastructure is a loud skip locally
 * and a failure under CI and in `pnpm test` (skipIsFailure, docs/run-modes.md), never a silent pass.
 */
export function requireInfra(): { kafkaBrokers: string; mongoUrl: string } | undefined {
  const kafkaBrokers = process.env.KAFKA_BROKERS;
  const mongoUrl = process.env.MONGO_URL;
  if (kafkaBrokers && mongoUrl) return { kafkaBrokers, mongoUrl };
  const message =
    'KAFKA_BROKERS and MONGO_URL are not set: the e2e tier needs real Kafka and a Mongo-wire server ' +
    '(bash deploy/local/infra.sh start && eval "$(bash deploy/local/infra.sh env)")';
  if (skipIsFailure()) throw new Error(message);
  console.warn(`\n*** SKIPPED: ${message}\n`);
  return undefined;
}
