import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { PublisherConfig } from './config.js';

/**
 * Composition root of publisher: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composePublisher(
  _infra: ServiceInfra,
  _config: PublisherConfig,
): Promise<ServiceParts> {
  return {};
}
