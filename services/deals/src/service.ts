import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { DealsConfig } from './config.js';

/**
 * Composition root of deals: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeDeals(
  _infra: ServiceInfra,
  _config: DealsConfig,
): Promise<ServiceParts> {
  return {};
}
