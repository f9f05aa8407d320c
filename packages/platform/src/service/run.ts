import type { Connection } from 'mongoose';
import { createKafkaBus, createMemoryBus } from '../bus/index.js';
import type { EventBus } from '../bus/types.js';
import type { BaseServiceConfig } from '../config/index.js';
import { createLifecycle } from '../lifecycle/index.js';
import { createLogger } from '../logger/index.js';
import { closeMongo, connectMongo } from '../mongo/index.js';
import { hostService } from './host.js';
import type { ServiceDefinition } from './types.js';
import { applyV8Flags } from './v8-flags.js';

export type RunServiceOptions<C> = ServiceDefinition<C>;

/**
 * The whole life of one service process (distributed mode and Kubernetes): validate the config,
 * connect the bus and Mongo named by it, compose, serve, and on SIGTERM stop in reverse order
 * within `SHUTDOWN_TIMEOUT_MS`. A production start without `KAFKA_BROKERS` or `MONGO_URL` is refused:
 * the in-memory adapters are for the embedded default and tests only.
 */
export async function runService<C extends BaseServiceConfig & { MONGO_DB: string }>(
  service: RunServiceOptions<C>,
): Promise<void> {
  applyV8Flags(service.v8Flags);
  let config: C;
  try {
    config = service.loadConfig(process.env);
  } catch (error) {
    // A config error lists every bad variable; print it plainly, no stack trace.
    console.error(`${service.name}: ${(error as Error).message}`);
    process.exit(1);
  }
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  lifecycle.handleSignals();
  try {
    if (config.NODE_ENV === 'production' && (!config.KAFKA_BROKERS || !config.MONGO_URL)) {
      throw new Error(
        'production needs KAFKA_BROKERS and MONGO_URL: in-memory adapters are for development only',
      );
    }
    const bus: EventBus = config.KAFKA_BROKERS
      ? createKafkaBus({
          brokers: config.KAFKA_BROKERS,
          clientId: config.SERVICE_NAME,
          source: `marquee/${service.name}`,
          logger,
        })
      : createMemoryBus({ source: `marquee/${service.name}`, retain: 'unconsumed' });
    if (!config.KAFKA_BROKERS)
      logger.warn('KAFKA_BROKERS not set: using the in-memory event bus (development only)');
    let mongo: Connection | undefined;
    if (config.MONGO_URL) {
      mongo = await connectMongo({
        url: config.MONGO_URL,
        dbName: config.MONGO_DB,
        logger,
        appName: service.name,
      });
      const connection = mongo;
      lifecycle.onStop('mongo', () => closeMongo(connection, logger));
    } else {
      logger.warn('MONGO_URL not set: using in-memory repositories (development only)');
    }
    // Registered before the service so it closes after it (stops run in reverse order).
    lifecycle.onStop('event-bus', () => bus.close());
    const infra = { name: service.name, logger, bus, mongo };
    const parts = await service.compose(infra, config);
    const hosted = await hostService(infra, parts, {
      host: config.HOST,
      httpPort: config.HTTP_PORT,
      grpcPort: config.GRPC_PORT,
    });
    lifecycle.onStop(service.name, () => hosted.stop());
    await bus.start();
  } catch (error) {
    logger.fatal({ err: error }, `${service.name} failed to start`);
    await lifecycle.stop('start failed');
    process.exit(1);
  }
}
