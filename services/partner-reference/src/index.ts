import type { ServiceDefinition } from '@marquee/platform/service';
import { loadPartnerReferenceConfig, type PartnerReferenceConfig } from './config.js';
import { composePartnerReference } from './service.js';

export { configSchema, loadPartnerReferenceConfig, type PartnerReferenceConfig } from './config.js';

/** partner-reference as the process runner and the embedded default see it. */
export const partnerReferenceService: ServiceDefinition<PartnerReferenceConfig> = {
  name: 'partner-reference',
  loadConfig: loadPartnerReferenceConfig,
  compose: composePartnerReference,
};
