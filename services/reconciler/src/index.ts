import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadReconcilerConfig, type ReconcilerConfig } from './config.js';
import { composeReconciler } from './service.js';

export { configSchema, loadReconcilerConfig, type ReconcilerConfig } from './config.js';

/** reconciler as the process runner and the embedded default see it. */
export const reconcilerService: ServiceDefinition<ReconcilerConfig> = {
  name: 'reconciler',
  loadConfig: loadReconcilerConfig,
  compose: composeReconciler,
  // The partners' side of each booking and order, through the connector.
  calls: ['3p-connector'],
  // The edge only: the admin API's reconciliation.
  callers: {
    'marquee.reconciliation.v1.ReconcilerService': {
      GetCase: ['edge-gateway'],
      ListCases: ['edge-gateway'],
      ReconcileEvent: ['edge-gateway'],
      GetEventReport: ['edge-gateway'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
