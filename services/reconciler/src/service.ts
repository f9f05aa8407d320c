import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { ReconcilerConfig } from './config.js';

/**
 * Composition root of reconciler: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeReconciler(
  _infra: ServiceInfra,
  _config: ReconcilerConfig,
): Promise<ServiceParts> {
  return {};
}
