import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
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
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
  // A gateway: it calls the services over gRPC and HTTP, and keeps nothing of its own.
  uses: { bus: false, mongo: false },
  calls: [
    'auth-gateway',
    'publisher',
    'catalog-indexer',
    'deals',
    'cart',
    'secure-entry',
    '3p-connector',
    'reconciler',
  ],
  // The public API of a development run, with its admin API under the run's token.
  development: { publicPort: 'api', env: (run) => ({ ADMIN_TOKEN: run.adminToken }) },
};
