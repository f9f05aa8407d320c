import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { AuthGatewayConfig } from './config.js';

/**
 * Composition root of auth-gateway: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeAuthGateway(
  _infra: ServiceInfra,
  _config: AuthGatewayConfig,
): Promise<ServiceParts> {
  return {};
}
