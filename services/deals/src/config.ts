import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { readModelConsumerGroup, serviceConfigSchema } from '@marquee/platform/service';

/** The only module of deals that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'deals',
  httpPort: 8084,
  grpcPort: 50054,
}).extend({
  /**
   * Kafka consumer group of the `event-changed` tombstone consumer that ends deals (shared by the
   * replicas; the projection itself is read whole by each). Its offsets belong to ONE database's
   * deals, so the default follows `MONGO_DB`: `deals` for the database `deals`, `deals.<MONGO_DB>`
   * otherwise.
   */
  EVENT_CONSUMER_GROUP: z.string().min(1).optional(),
  /** catalog-indexer's gRPC address: the venue authority (coordinates of venues referenced by id). */
  GRPC_ADDR_CATALOG_INDEXER: z.string().min(1).default('127.0.0.1:50053'),
  /**
   * Attempts per `event-changed` record before it is dead-lettered. High on purpose: catalog-indexer
   * being unreachable is waited out (backoff capped at 10 s) rather than losing the event.
   */
  EVENT_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(360),
  /** How often venues catalog-indexer did not know yet are asked again. */
  VENUE_RETRY_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  /** How long a resolved venue position is cached. */
  VENUE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
});

export type DealsConfig = z.output<typeof configSchema>;

export const eventConsumerGroup = (config: DealsConfig): string =>
  config.EVENT_CONSUMER_GROUP ?? readModelConsumerGroup(config, 'deals');

export const loadDealsConfig = (env: NodeJS.ProcessEnv = process.env): DealsConfig =>
  loadConfig(configSchema, env);
