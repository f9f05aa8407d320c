import type { ServiceDefinition } from '@marquee/platform/service';
import { loadSecureEntryConfig, type SecureEntryConfig } from './config.js';
import { composeSecureEntry } from './service.js';

export { configSchema, loadSecureEntryConfig, type SecureEntryConfig } from './config.js';

/** secure-entry as the process runner and the embedded default see it. */
export const secureEntryService: ServiceDefinition<SecureEntryConfig> = {
  name: 'secure-entry',
  loadConfig: loadSecureEntryConfig,
  compose: composeSecureEntry,
};
