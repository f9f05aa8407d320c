import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { PartnerReferenceConfig } from './config.js';

/**
 * Composition root of partner-reference: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composePartnerReference(
  _infra: ServiceInfra,
  _config: PartnerReferenceConfig,
): Promise<ServiceParts> {
  return {};
}
