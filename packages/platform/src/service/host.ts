import type { FastifyInstance } from 'fastify';
import {
  connectionAgeOptions,
  createGrpcServer,
  runAsService,
  startGrpcServer,
  stopGrpcServer,
  type RpcCallers,
} from '../grpc/index.js';
import { createHttpServer, listenHttp } from '../http/index.js';
import { watchDependencies } from './dependencies.js';
import type { ServiceInfra, ServiceParts } from './types.js';

export interface HostOptions {
  host: string;
  /** HTTP port (0 = ephemeral). */
  httpPort: number;
  /** gRPC port (0 = ephemeral). */
  grpcPort: number;
  /**
   * Connection age limits of the gRPC server (`connectionAgeOptions`); default: the platform's
   * (5 min, 30 s grace).
   */
  grpcConnectionAge?: { maxMs: number; graceMs: number };
  /** Budget for draining the gRPC server at stop. */
  stopTimeoutMs?: number;
  /**
   * The shared infrastructure the service uses (its ServiceDefinition's `uses`; absent: both).
   * Only those are probed (`marquee_dependency_up`), not a bus or a database it was handed and
   * never uses. Every runner passes it: `runService`, the embedded default.
   */
  uses?: { bus?: boolean; mongo?: boolean };
  /**
   * Who may call each of its RPCs (its ServiceDefinition's `callers`); every runner passes it. An
   * RPC it does not name is refused to every caller.
   */
  callers?: RpcCallers;
  /** How often the shared dependencies are probed for metrics and logs (default 10 s). */
  dependencyProbeIntervalMs?: number;
}

export interface HostedService {
  name: string;
  httpPort: number;
  grpcPort: number;
  http: FastifyInstance;
  /** Stop accepting, drain, stop the service's own work. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Serves a composed service: HTTP (`/healthz`, `/readyz`, its routes) and gRPC (its services and
 * `grpc.health.v1`), then runs its start hook. `/readyz` answers 200 once the start hook is done
 * and every `parts.readiness` check holds, and 503 from the moment it stops; a Kafka or Mongo
 * outage never fails it (see the comment on `serving`). Stop goes the other way: stop taking
 * requests, then let the service drain its consumers and relays. The infrastructure (bus, Mongo)
 * belongs to whoever created it and is closed by them, after this.
 */
export async function hostService(
  infra: ServiceInfra,
  parts: ServiceParts,
  options: HostOptions,
): Promise<HostedService> {
  const { logger } = infra;
  // Readiness says whether this replica can serve: it has started (servers listening, start hook
  // done), its own initial work is done (`parts.readiness`: read models caught up), and it is not
  // stopping. Shared dependencies (Kafka, Mongo) are not part of it: they are shared by every
  // replica, so failing readiness on them takes every replica out of rotation at once, including
  // those that answer from memory, while writes keep succeeding through the outbox. Their health
  // goes to metrics and logs instead (dependencies.ts).
  let serving = false;
  const readinessChecks: Record<string, () => Promise<boolean>> = {
    serving: async () => serving,
    ...parts.readiness,
  };
  const dependencies = watchDependencies({
    service: infra.name,
    logger,
    probes: {
      ...(options.uses?.bus !== false ? { 'event-bus': () => infra.bus.ready() } : {}),
      // Loaded here, not at the top: a service without Mongo never loads mongoose
      // (ServiceDefinition.uses).
      ...(options.uses?.mongo !== false && infra.mongo
        ? { mongo: async () => (await import('../mongo/index.js')).pingMongo(infra.mongo!) }
        : {}),
    },
    ...(options.dependencyProbeIntervalMs === undefined
      ? {}
      : { intervalMs: options.dependencyProbeIntervalMs }),
  });
  const http = createHttpServer({
    logger,
    serviceName: infra.name,
    readiness: async () => {
      const entries = await Promise.all(
        Object.entries(readinessChecks).map(async ([name, check]) => {
          try {
            return [name, await check()] as const;
          } catch {
            return [name, false] as const;
          }
        }),
      );
      return Object.fromEntries(entries);
    },
  });
  if (parts.http) await http.register(async (scope) => parts.http?.(scope));

  const grpcServer = createGrpcServer({
    logger,
    services: parts.grpc ?? [],
    serverOptions: connectionAgeOptions(options.grpcConnectionAge),
    ...(options.callers ? { callers: options.callers } : {}),
  });
  let grpcPort: number;
  let httpPort: number;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      serving = false;
      dependencies.stop();
      await Promise.resolve()
        .then(parts.beforeStop)
        .catch((err: unknown) => logger.warn({ err }, 'beforeStop failed'));
      await http.close().catch((err: unknown) => logger.warn({ err }, 'http close failed'));
      await stopGrpcServer(grpcServer, options.stopTimeoutMs ?? 10_000).catch((err: unknown) =>
        logger.warn({ err }, 'grpc stop failed'),
      );
      await parts.stop?.();
      logger.info({ service: infra.name }, 'service stopped');
    })());

  try {
    grpcPort = await startGrpcServer(grpcServer, { host: options.host, port: options.grpcPort });
    httpPort = await listenHttp(http, { host: options.host, port: options.httpPort });
    // Clients made by the start hook (and work it starts) speak for this service.
    await runAsService(infra.name, async () => parts.start?.());
    serving = true;
    dependencies.start();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  logger.info({ service: infra.name, httpPort, grpcPort }, 'service listening');
  return { name: infra.name, httpPort, grpcPort, http, stop };
}
