/**
 * `@marquee/platform/testing`: helpers for the test tiers (docs/architecture.md, Build and test
 * conventions). Imported by tests only; it depends on vitest.
 */
export { startGroupsAtEnd } from './consumer-groups.js';
export {
  describeIntegration,
  integrationEnv,
  type IntegrationEnv,
  type IntegrationKafka,
} from './integration-env.js';
export { describeKafkaAuth, type KafkaAuthEnv } from './kafka-auth-env.js';
export { KAFKA_BROKERS_KEY, MONGO_URL_KEY } from './provided-context.js';
export { probeRpcCallers, type RpcCallerProbe, type RpcCallersReport } from './rpc-callers.js';
export { describeRpcCallers, EVERY_CALLER } from './rpc-callers-suite.js';
export { sealedBeforeKeyIds } from './sealed-before-key-ids.js';
export { skipIsFailure } from './strict.js';
export { uniqueName } from './unique-name.js';
export { waitFor, type WaitForOptions } from './wait-for.js';
export { metricValue } from './metric-value.js';
export { useMongoDatabases, type MongoDatabases } from './mongo-databases.js';
export { silentLogger, testLogger } from './silent-logger.js';
