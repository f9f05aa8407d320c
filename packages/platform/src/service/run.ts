import type { Connection } from 'mongoose';
import { createMemoryBus } from '../bus/memory-bus.js';
import type { EventBus } from '../bus/types.js';
import { consumerTimingProblem } from '../bus/consumer-timing.js';
import {
  ConfigError,
  describeKafkaSecurity,
  kafkaClientSecurity,
  type BaseServiceConfig,
  type KafkaClientSecurity,
} from '../config/index.js';
import { configureServiceAuth, runAsService, serviceKeyring } from '../grpc/index.js';
import { createLifecycle, type Lifecycle } from '../lifecycle/index.js';
import { createLogger, type Logger } from '../logger/index.js';
import { startMetricsServer } from '../metrics/index.js';
import { applyV8Flags, missingNodeOptions } from '../v8/index.js';
import { hostService } from './host.js';
import { watchStart } from './start-watch.js';
import type { ServiceDefinition } from './types.js';

export type RunServiceOptions<C> = ServiceDefinition<C>;

/**
 * The whole life of one service process (distributed mode and Kubernetes): validate the config,
 * connect the bus and Mongo named by it, compose, serve, and on SIGTERM stop in reverse order
 * within `SHUTDOWN_TIMEOUT_MS`. Metrics are served on `METRICS_PORT` from the start. A production
 * start without `KAFKA_BROKERS` or `MONGO_URL` is refused for a service that uses them
 * (`ServiceDefinition.uses`): the in-memory adapters are for the embedded default and tests only.
 */
export async function runService<C extends BaseServiceConfig & { MONGO_DB: string }>(
  service: RunServiceOptions<C>,
): Promise<void> {
  applyV8Flags(service.v8?.runtimeFlags);
  const { config, kafkaSecurity } = loadServiceConfig(service);
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const missingOptions = missingNodeOptions(service.v8?.nodeOptions ?? []);
  if (missingOptions.length > 0)
    logger.warn(
      { missing: missingOptions },
      'started without its V8 options (package.json marquee.v8): launch it with --import @marquee/platform/v8/launch',
    );
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  lifecycle.handleSignals();
  // Each stage at info; one that lasts 15 s at warn, again every 15 s (start-watch.ts).
  const start = watchStart(logger);
  try {
    // kafkajs and mongoose load only when the service connects to them (ServiceDefinition.uses).
    const uses = { bus: service.uses?.bus !== false, mongo: service.uses?.mongo !== false };
    refuseInMemoryInProduction(config, uses);
    start.enter('metrics');
    // Before the bus and Mongo, so that it stops last (stops run in reverse order): the metrics
    // cover the whole start and stop.
    const metricsServer = await startMetricsServer({
      host: config.HOST,
      port: config.METRICS_PORT,
      logger,
    });
    lifecycle.onStop('metrics', () => metricsServer.close());
    // The key of service-to-service gRPC authentication and of Kafka record signatures; production
    // refuses to host or call an RPC without one (grpc/service-auth.ts), development generates one
    // for the process.
    configureServiceAuth({
      key: config.SERVICE_AUTH_KEY,
      production: config.NODE_ENV === 'production',
    });
    start.enter('event-bus');
    const bus = await createServiceBus(service.name, config, kafkaSecurity, logger, uses.bus);
    start.enter('mongo');
    const mongo = await connectServiceMongo(service.name, config, logger, lifecycle, uses.mongo);
    // Registered before the service so it closes after it (stops run in reverse order).
    lifecycle.onStop('event-bus', () => bus.close());
    if (!config.SERVICE_AUTH_KEY && config.NODE_ENV !== 'production')
      logger.warn(
        'SERVICE_AUTH_KEY not set: gRPC calls are signed with a key of this process only; other processes refuse them (development only)',
      );
    const infra = { name: service.name, logger, bus, mongo };
    // Clients made while composing speak for this service (service tokens name it).
    start.enter('compose');
    const parts = await runAsService(service.name, () => service.compose(infra, config));
    start.enter('serve');
    const hosted = await hostService(infra, parts, {
      host: config.HOST,
      httpPort: config.HTTP_PORT,
      grpcPort: config.GRPC_PORT,
      grpcConnectionAge: {
        maxMs: config.GRPC_MAX_CONNECTION_AGE_MS,
        graceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
      },
      uses,
      ...(service.callers ? { callers: service.callers } : {}),
    });
    lifecycle.onStop(service.name, () => hosted.stop());
    start.enter('consume');
    await bus.start();
    start.done();
  } catch (error) {
    start.done();
    logger.fatal({ err: error }, `${service.name} failed to start`);
    await lifecycle.stop('start failed');
    process.exit(1);
  }
}

/** The validated config and its Kafka client security; a bad config exits the process. */
function loadServiceConfig<C extends BaseServiceConfig>(
  service: RunServiceOptions<C>,
): { config: C; kafkaSecurity: KafkaClientSecurity } {
  try {
    const config = service.loadConfig(process.env);
    const kafkaSecurity = kafkaClientSecurity(config);
    const timing = consumerTimingProblem(
      config.KAFKA_SESSION_TIMEOUT_MS,
      config.KAFKA_HEARTBEAT_INTERVAL_MS,
    );
    if (timing !== undefined)
      throw new ConfigError([{ variable: 'KAFKA_HEARTBEAT_INTERVAL_MS', message: timing }]);
    return { config, kafkaSecurity };
  } catch (error) {
    // A config error lists every bad variable; print it plainly, no stack trace.
    console.error(`${service.name}: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** A production start without the Kafka or Mongo a service uses is refused. */
function refuseInMemoryInProduction(
  config: BaseServiceConfig,
  uses: { bus: boolean; mongo: boolean },
): void {
  const missing = [
    ...(uses.bus && !config.KAFKA_BROKERS ? ['KAFKA_BROKERS'] : []),
    ...(uses.mongo && !config.MONGO_URL ? ['MONGO_URL'] : []),
  ];
  if (config.NODE_ENV === 'production' && missing.length > 0) {
    throw new Error(
      `production needs ${missing.join(' and ')}: in-memory adapters are for development only`,
    );
  }
}

/** The Kafka bus named by the config, else the in-memory one (development only). */
async function createServiceBus(
  name: string,
  config: BaseServiceConfig,
  kafkaSecurity: KafkaClientSecurity,
  logger: Logger,
  usesBus: boolean,
): Promise<EventBus> {
  if (!usesBus || !config.KAFKA_BROKERS) {
    if (usesBus)
      logger.warn('KAFKA_BROKERS not set: using the in-memory event bus (development only)');
    return createMemoryBus({ source: `marquee/${name}`, retain: 'unconsumed' });
  }
  const bus = (await import('../bus/kafka-bus.js')).createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: config.SERVICE_NAME,
    source: `marquee/${name}`,
    logger,
    topics: { autoCreate: kafkaTopicsMode(config) === 'create' },
    ...kafkaSecurity,
    // Records of signed topics carry this service's signature; consumed ones are checked.
    signatures: { producer: name, keyring: serviceKeyring() },
    consumer: {
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
      minBytes: config.KAFKA_FETCH_MIN_BYTES,
    },
  });
  logger.info({ kafka: describeKafkaSecurity(kafkaSecurity) }, 'Kafka client security');
  return bus;
}

/** The Mongo connection named by the config (closed on stop), else none (development only). */
async function connectServiceMongo(
  name: string,
  config: BaseServiceConfig & { MONGO_DB: string },
  logger: Logger,
  lifecycle: Lifecycle,
  usesMongo: boolean,
): Promise<Connection | undefined> {
  if (!usesMongo) return undefined;
  if (!config.MONGO_URL) {
    logger.warn('MONGO_URL not set: using in-memory repositories (development only)');
    return undefined;
  }
  const { closeMongo, connectMongo } = await import('../mongo/index.js');
  const mongo = await connectMongo({
    url: config.MONGO_URL,
    dbName: config.MONGO_DB,
    logger,
    appName: name,
    maxPoolSize: config.MONGO_MAX_POOL_SIZE,
    ...(config.MONGO_SLOW_MS !== undefined ? { slowCommandMs: config.MONGO_SLOW_MS } : {}),
    ...(config.MONGO_COMMAND_STATS_MS !== undefined
      ? { commandStatsMs: config.MONGO_COMMAND_STATS_MS }
      : {}),
  });
  lifecycle.onStop('mongo', () => closeMongo(mongo, logger));
  return mongo;
}

/** `KAFKA_TOPICS`, defaulted: production verifies the deployment's topics, the rest creates them. */
export function kafkaTopicsMode(
  config: Pick<BaseServiceConfig, 'KAFKA_TOPICS' | 'NODE_ENV'>,
): 'create' | 'verify' {
  return config.KAFKA_TOPICS ?? (config.NODE_ENV === 'production' ? 'verify' : 'create');
}
