import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of catalog-indexer that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'catalog-indexer',
  httpPort: 8083,
  grpcPort: 50053,
  // Its consumers are global readers in groups of their own process: a short session hands nothing
  // over sooner, and a replica its group drops reads the topics again from the start.
  kafkaConsumer: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 3_000 },
});

export type CatalogIndexerConfig = z.output<typeof configSchema>;

export const loadCatalogIndexerConfig = (
  env: NodeJS.ProcessEnv = process.env,
): CatalogIndexerConfig => loadConfig(configSchema, env);
