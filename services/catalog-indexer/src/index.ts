import { EXTERNAL_MEMORY_IN_GLOBAL_LIMIT, type ServiceDefinition } from '@marquee/platform/service';
import { loadCatalogIndexerConfig, type CatalogIndexerConfig } from './config.js';
import { composeCatalogIndexer } from './service.js';

export { configSchema, loadCatalogIndexerConfig, type CatalogIndexerConfig } from './config.js';
export { buildCatalogIndexer } from './service.js';

/** catalog-indexer as the process runner and the embedded default see it. */
export const catalogIndexerService: ServiceDefinition<CatalogIndexerConfig> = {
  name: 'catalog-indexer',
  loadConfig: loadCatalogIndexerConfig,
  compose: composeCatalogIndexer,
  // Buffers of tens of kilobytes per answer: platform/service/v8-flags.ts.
  v8Flags: [EXTERNAL_MEMORY_IN_GLOBAL_LIMIT],
  // The read model is in memory, read whole from the topics by every replica (README "Replicas").
  uses: { mongo: false },
};
