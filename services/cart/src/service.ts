import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { CartConfig } from './config.js';

/**
 * Composition root of cart: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeCart(
  _infra: ServiceInfra,
  _config: CartConfig,
): Promise<ServiceParts> {
  return {};
}
