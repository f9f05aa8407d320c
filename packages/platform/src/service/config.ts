import { z } from 'zod';
import {
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
} from '../bus/consumer-timing.js';
import { baseServiceConfig, port } from '../config/index.js';

/**
 * The configuration schema of one service: the shared keys with this service's defaults (name,
 * ports, its own database). A service extends the result with keys of its own.
 */
export function serviceConfigSchema(defaults: {
  name: string;
  httpPort: number;
  grpcPort: number;
  /**
   * This service's Kafka consumer timing defaults (`KAFKA_SESSION_TIMEOUT_MS`,
   * `KAFKA_HEARTBEAT_INTERVAL_MS`) when they differ from the platform's 6 s / 2 s (a global
   * reader, whose group is its process's own, gains nothing from a short session and replays its
   * topics from the start when its group drops it: it may prefer a longer one).
   */
  kafkaConsumer?: { sessionTimeoutMs: number; heartbeatIntervalMs: number };
  /**
   * This service's default of `KAFKA_FETCH_MIN_BYTES` (the consumer groups' fetch batching, bus
   * option `consumer.minBytes`; 1: every record at once) when its consumers can wait up to a
   * fetch's wait (1 s) for their records.
   */
  kafkaFetchMinBytes?: number;
}) {
  return baseServiceConfig.extend({
    SERVICE_NAME: z.string().min(1).default(defaults.name),
    HTTP_PORT: port().default(defaults.httpPort),
    GRPC_PORT: port().default(defaults.grpcPort),
    KAFKA_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(defaults.kafkaConsumer?.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS),
    KAFKA_HEARTBEAT_INTERVAL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(defaults.kafkaConsumer?.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS),
    KAFKA_FETCH_MIN_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(defaults.kafkaFetchMinBytes ?? 1),
    // One database per service (docs/decisions.md); Mongo database names cannot contain '-'.
    MONGO_DB: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,63}$/, 'letters, digits and _ only')
      .default(defaults.name.replace(/-/g, '_')),
  });
}

/**
 * The consumer group of a read model kept in `mongoDb`. Committed offsets belong to the data they
 * were applied to: a read model in another database (a second deployment, a test run, a rebuild
 * into a fresh database) needs its own group so it reads the topic from the beginning instead of
 * inheriting offsets it never applied. The default database keeps the plain service name.
 */
export function readModelConsumerGroup(
  config: { SERVICE_NAME: string; MONGO_DB: string },
  defaultDb: string,
): string {
  return config.MONGO_DB === defaultDb
    ? config.SERVICE_NAME
    : `${config.SERVICE_NAME}.${config.MONGO_DB}`;
}
