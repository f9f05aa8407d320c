import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadPartnerReferenceConfig, type PartnerReferenceConfig } from './config.js';
import { composePartnerReference } from './service.js';

export { configSchema, loadPartnerReferenceConfig, type PartnerReferenceConfig } from './config.js';
export {
  buildPartnerReference,
  composePartnerReference,
  type PartnerReference,
} from './service.js';
export { seedDemoInventory, type SeededDemo } from './app/seed.js';

/**
 * partner-reference as the process runner and the embedded default see it. It publishes and
 * consumes no topic, so it asks for no event bus.
 */
export const partnerReferenceService: ServiceDefinition<PartnerReferenceConfig> = {
  name: 'partner-reference',
  uses: { bus: false },
  loadConfig: loadPartnerReferenceConfig,
  compose: composePartnerReference,
  // In a development run: the demo partner, on the run's partner port, with a back-office token
  // and an OAuth client of the run (`shared`: the run lists its venues and registers it with the
  // connector). Not the run's admin token: the partner's back office is not the platform's.
  development: {
    publicPort: 'partner',
    env: (run) => ({
      PARTNER_ADMIN_TOKEN: run.shared('PARTNER_ADMIN_TOKEN'),
      PARTNER_CLIENT_ID: run.shared('PARTNER_CLIENT_ID'),
      PARTNER_CLIENT_SECRET: run.shared('PARTNER_CLIENT_SECRET'),
      PARTNER_SEED_DEMO: 'true',
    }),
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
