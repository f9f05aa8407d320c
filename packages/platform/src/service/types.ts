import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Connection } from 'mongoose';
import type { EventBus } from '../bus/types.js';
import type { RpcCallers } from '../grpc/index.js';
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
  /**
   * The services it calls (gRPC, and HTTP where it proxies): whoever runs it gives it the
   * addresses of each under `GRPC_ADDR_<NAME>` and `HTTP_URL_<NAME>` (`callVariables`), as the
   * Helm chart does for a service's `calls`. A runner of several services starts these first.
   */
  calls?: readonly string[];
  /**
   * Services it calls only from background work that retries until they answer (never while
   * composing, starting or serving): given their addresses like `calls` (chart and NetworkPolicy
   * alike), but not started before it, so they may call it in turn (cart calls secure-entry at
   * serve time; secure-entry calls cart from its start-up backfill). A runner of several services
   * gives the address of one only when it started first.
   */
  callsLater?: readonly string[];
  /**
   * Who may call each RPC it hosts: gRPC service, RPC, the names of the calling services
   * (`{ 'marquee.cart.v1.CartService': { GetOrder: ['edge-gateway'] } }`). The server refuses any
   * other caller, and every RPC not listed here, PERMISSION_DENIED (docs/rpc-callers.md lists them;
   * docs/decisions.md says why). Like `calls`, written as literals: `scripts/generate-service-calls.ts` reads
   * both from here for the chart and the docs, and checks each caller lists this service in its
   * `calls` and every RPC of the `.proto` files is declared.
   */
  callers?: RpcCallers;
  /** How a development run of every service in one process (the embedded default) starts it. */
  development?: DevelopmentSettings;
  /** Validates the environment (the service's `config.ts`). */
  loadConfig(env?: NodeJS.ProcessEnv): C;
  compose: ComposeService<C>;
}

/** What a development run knows when it starts a service (see `DevelopmentSettings`). */
export interface DevelopmentRun {
  /** The run's admin token: every admin API of the run takes the same one. */
  adminToken: string;
  /**
   * A random value made once per run under `name` and the same for everyone who asks: a credential
   * two parties of the run must agree on (a partner's OAuth client and whoever registers it).
   */
  shared(name: string): string;
}

/**
 * What a service needs from a development run beyond its config defaults. Services say it here, so
 * the runner starts every service the same way and knows none of them by name.
 */
export interface DevelopmentSettings {
  /**
   * The public port of the run its HTTP server takes (`api`: the run's PORT, `partner`: its
   * PARTNER_PORT); any other service listens on an ephemeral port.
   */
  publicPort?: 'api' | 'partner';
  /** Settings from the run (its admin token, shared credentials) or for a demo, as environment. */
  env?: (run: DevelopmentRun) => NodeJS.ProcessEnv;
}
