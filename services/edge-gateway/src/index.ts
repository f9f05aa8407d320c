import { EXTERNAL_MEMORY_IN_GLOBAL_LIMIT, type ServiceDefinition } from '@marquee/platform/service';
import { loadEdgeGatewayConfig, type EdgeGatewayConfig } from './config.js';
import { composeEdgeGateway } from './service.js';

export { configSchema, loadEdgeGatewayConfig, type EdgeGatewayConfig } from './config.js';
export type { Backends, DeveloperAccess } from './app/backends.js';
export { registerEdgeRoutes } from './ports/http/edge-app.js';
export { createDealsClient } from './adapters/deals-client.js';
export { createCatalogIndexerClient } from './adapters/catalog-indexer-client.js';
export { createSecureEntryClient } from './adapters/secure-entry-client.js';

/** edge-gateway as the process runner and the embedded default see it. */
export const edgeGatewayService: ServiceDefinition<EdgeGatewayConfig> = {
  name: 'edge-gateway',
  loadConfig: loadEdgeGatewayConfig,
  compose: composeEdgeGateway,
  // Buffers of tens of kilobytes per answer: platform/service/v8-flags.ts.
  v8Flags: [EXTERNAL_MEMORY_IN_GLOBAL_LIMIT],
  // A gateway: it calls the services over gRPC and HTTP, and keeps nothing of its own.
  uses: { bus: false, mongo: false },
};
