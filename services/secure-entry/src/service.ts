import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { SecureEntryConfig } from './config.js';

/**
 * Composition root of secure-entry: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeSecureEntry(
  _infra: ServiceInfra,
  _config: SecureEntryConfig,
): Promise<ServiceParts> {
  return {};
}
