import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of deals that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'deals',
  httpPort: 8084,
  grpcPort: 50054,
}).extend({
  /**
   * Kafka consumer group of the `event-changed` projection. Its committed offsets describe how far
   * ONE database has been built, so the default follows `MONGO_DB`: `deals` for the database `deals`,
   * `deals.<MONGO_DB>` otherwise (a fresh database is rebuilt from the start of the topic).
   */
  EVENT_CONSUMER_GROUP: z.string().min(1).optional(),
});

export type DealsConfig = z.output<typeof configSchema>;

export const eventConsumerGroup = (config: DealsConfig): string =>
  config.EVENT_CONSUMER_GROUP ??
  (config.MONGO_DB === 'deals' ? 'deals' : `deals.${config.MONGO_DB}`);

export const loadDealsConfig = (env: NodeJS.ProcessEnv = process.env): DealsConfig =>
  loadConfig(configSchema, env);
