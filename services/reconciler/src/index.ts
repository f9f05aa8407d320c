import type { ServiceDefinition } from '@marquee/platform/service';
import { loadReconcilerConfig, type ReconcilerConfig } from './config.js';
import { composeReconciler } from './service.js';

export { configSchema, loadReconcilerConfig, type ReconcilerConfig } from './config.js';

/** reconciler as the process runner and the embedded default see it. */
export const reconcilerService: ServiceDefinition<ReconcilerConfig> = {
  name: 'reconciler',
  loadConfig: loadReconcilerConfig,
  compose: composeReconciler,
};
