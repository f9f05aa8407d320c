import type { ServiceDefinition } from '@marquee/platform/service';
import { loadEdgeGatewayConfig, type EdgeGatewayConfig } from './config.js';
import { composeEdgeGateway } from './service.js';

export { configSchema, loadEdgeGatewayConfig, type EdgeGatewayConfig } from './config.js';
export type { Backends, DeveloperAccess } from './app/backends.js';
export { registerEdgeRoutes } from './ports/http/edge-app.js';
export { createDealsClient } from './adapters/deals-client.js';
export { createCatalogIndexerClient } from './adapters/catalog-indexer-client.js';

/** edge-gateway as the process runner and the embedded default see it. */
export const edgeGatewayService: ServiceDefinition<EdgeGatewayConfig> = {
  name: 'edge-gateway',
  loadConfig: loadEdgeGatewayConfig,
  compose: composeEdgeGateway,
};
