/**
 * Service defaults: the one call that wires a service's parts to the process, the way every
 * Marquee service does it (health, readiness, gRPC with grpc.health.v1, the event bus, Mongo,
 * ordered shutdown). Used by each service's main.ts (one service per process) and by the
 * embedded default (every service in one process, sharing one in-memory bus).
 */
export { hostService, type HostedService, type HostOptions } from './host.js';
export { runService, type RunServiceOptions } from './run.js';
export { callVariables } from './calls.js';
export { readModelConsumerGroup, serviceConfigSchema } from './config.js';
export type {
  ComposeService,
  DevelopmentRun,
  DevelopmentSettings,
  GrpcRegistration,
  ServiceDefinition,
  ServiceInfra,
  ServiceParts,
} from './types.js';
