import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadSecureEntryConfig, type SecureEntryConfig } from './config.js';
import { composeSecureEntry } from './service.js';

export { configSchema, loadSecureEntryConfig, type SecureEntryConfig } from './config.js';
export { composeSecureEntry, type SecureEntryComposeOptions } from './service.js';

/** secure-entry as the process runner and the embedded default see it. */
export const secureEntryService: ServiceDefinition<SecureEntryConfig> = {
  name: 'secure-entry',
  loadConfig: loadSecureEntryConfig,
  compose: composeSecureEntry,
  // Only from the start-up backfill of older orders' fan ids (GetOrder), which retries until
  // cart answers: cart calls secure-entry while serving, so it may start after it.
  callsLater: ['cart'],
  // The edge only: the order read and secure render name the app the edge resolved from the API
  // key, gate scans come through the gate API and gate administration through the admin API.
  callers: {
    'marquee.entry.v1.SecureEntryService': {
      GetOrder: ['edge-gateway'],
      SecureRender: ['edge-gateway'],
      ValidateScan: ['edge-gateway'],
      CreateGate: ['edge-gateway'],
      ListGates: ['edge-gateway'],
      RevokeGate: ['edge-gateway'],
      // Cart's resale asks which seats were admitted before it lists tickets.
      ListAdmittedSeats: ['cart'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
