import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadCatalogIndexerConfig, type CatalogIndexerConfig } from './config.js';
import { composeCatalogIndexer } from './service.js';

export { configSchema, loadCatalogIndexerConfig, type CatalogIndexerConfig } from './config.js';
export { buildCatalogIndexer } from './service.js';
// How the gRPC port maps a SearchEventsRequest to the index's query (in-process benchmarks).
export { eventQueryOf } from './ports/grpc/search-mapping.js';

/** catalog-indexer as the process runner and the embedded default see it. */
export const catalogIndexerService: ServiceDefinition<CatalogIndexerConfig> = {
  name: 'catalog-indexer',
  loadConfig: loadCatalogIndexerConfig,
  compose: composeCatalogIndexer,
  // The discovery read model, for the edge's public discovery; deals asks for venue coordinates.
  callers: {
    'marquee.catalog.v1.CatalogService': {
      SearchEvents: ['edge-gateway'],
      GetEvent: ['edge-gateway'],
      SearchVenues: ['edge-gateway'],
      GetVenue: ['edge-gateway', 'deals'],
      SearchAttractions: ['edge-gateway'],
      GetAttraction: ['edge-gateway'],
      SimilarAttractions: ['edge-gateway'],
      SearchClassifications: ['edge-gateway'],
      GetClassification: ['edge-gateway'],
      WatchChanges: ['edge-gateway'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
  // The read model is in memory, read whole from the topics by every replica (README "Replicas").
  uses: { mongo: false },
};
