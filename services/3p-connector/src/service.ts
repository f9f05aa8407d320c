import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { ThreePConnectorConfig } from './config.js';

/**
 * Composition root of 3p-connector: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeThreePConnector(
  _infra: ServiceInfra,
  _config: ThreePConnectorConfig,
): Promise<ServiceParts> {
  return {};
}
