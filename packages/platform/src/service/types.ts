import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Connection } from 'mongoose';
import type { EventBus } from '../bus/types.js';
import type { RpcAccessPolicy } from '../grpc/index.js';
import type { Logger } from '../logger/index.js';
import type { V8Options } from '../v8/index.js';

/** What the process gives a service: shared infrastructure, created once per process. */
export interface ServiceInfra {
  name: string;
  logger: Logger;
  bus: EventBus;
  /** The service's own database when `MONGO_URL` is set; `undefined` means in-memory repositories. */
  mongo: Connection | undefined;
}

export interface GrpcRegistration {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /**
   * Which services may call which RPC (`{ CreateApp: { callers: ['edge-gateway'] } }`); RPCs not
   * listed accept any authenticated Marquee service. Calls without a valid service token are
   * refused either way (docs/architecture.md, "Service-to-service authentication").
   */
  access?: RpcAccessPolicy;
}

/** What a service's composition root returns: its inbound ports and its own start/stop work. */
export interface ServiceParts {
  /** gRPC services hosted beside `grpc.health.v1`. */
  grpc?: GrpcRegistration[];
  /** Routes on the service's own HTTP server (besides /healthz and /readyz). */
  http?: (app: FastifyInstance) => Promise<void> | void;
  /** Extra readiness checks, by dependency name. */
  readiness?: Record<string, () => Promise<boolean>>;
  /** After the servers listen: start consumers, relays, schedulers. */
  start?: () => Promise<void>;
  /**
   * First thing at stop, before the servers close: end long-lived calls (server streams), which a
   * closing gRPC server would otherwise wait for until its drain budget runs out.
   */
  beforeStop?: () => Promise<void> | void;
  /** Before the infrastructure closes: stop consumers and relays, drain in-flight work. */
  stop?: () => Promise<void>;
}

export type ComposeService<C> = (infra: ServiceInfra, config: C) => Promise<ServiceParts>;

/** A service as its `main.ts` and the embedded default see it. */
export interface ServiceDefinition<C> {
  name: string;
  /**
   * Its V8 options: the `marquee.v8` declaration of its package.json, imported, never written here
   * (`@marquee/platform/v8`). `runService` sets the `runtimeFlags` on the process and warns when
   * it was started without the `nodeOptions`; the embedded runner sets those of every service.
   */
  v8?: V8Options;
  /**
   * The shared infrastructure the service uses (default: both). A service that declares `false`
   * gets neither the connection nor its client library loaded (kafkajs and mongoose are ~20 MB of
   * heap, which every major collection marks again), an in-memory bus it never publishes to, no
   * Mongo, and production does not require `KAFKA_BROKERS` or `MONGO_URL` for it.
   */
  uses?: { bus?: boolean; mongo?: boolean };
  /** Validates the environment (the service's `config.ts`). */
  loadConfig(env?: NodeJS.ProcessEnv): C;
  compose: ComposeService<C>;
}
