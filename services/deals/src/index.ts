import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadDealsConfig, type DealsConfig } from './config.js';
import { composeDeals } from './service.js';

export { configSchema, loadDealsConfig, type DealsConfig } from './config.js';

/** deals as the process runner and the embedded default see it. */
export const dealsService: ServiceDefinition<DealsConfig> = {
  name: 'deals',
  loadConfig: loadDealsConfig,
  compose: composeDeals,
  // Venue coordinates of the events it projects.
  calls: ['catalog-indexer'],
  // The edge: the deals API and the admin API's deals.
  callers: {
    'marquee.deals.v1.DealsService': {
      CreateDeal: ['edge-gateway'],
      UpdateDeal: ['edge-gateway'],
      EndDeal: ['edge-gateway'],
      GetDeal: ['edge-gateway'],
      SearchDeals: ['edge-gateway'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
