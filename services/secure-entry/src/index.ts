import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadSecureEntryConfig, type SecureEntryConfig } from './config.js';
import { composeSecureEntry } from './service.js';

export { configSchema, loadSecureEntryConfig, type SecureEntryConfig } from './config.js';

/** secure-entry as the process runner and the embedded default see it. */
export const secureEntryService: ServiceDefinition<SecureEntryConfig> = {
  name: 'secure-entry',
  loadConfig: loadSecureEntryConfig,
  compose: composeSecureEntry,
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
