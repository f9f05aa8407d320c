import type { ServiceDefinition } from '@marquee/platform/service';
import { loadDealsConfig, type DealsConfig } from './config.js';
import { composeDeals } from './service.js';

export { configSchema, loadDealsConfig, type DealsConfig } from './config.js';

/** deals as the process runner and the embedded default see it. */
export const dealsService: ServiceDefinition<DealsConfig> = {
  name: 'deals',
  loadConfig: loadDealsConfig,
  compose: composeDeals,
};
