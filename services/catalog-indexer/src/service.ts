import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import type { CatalogIndexerConfig } from './config.js';

/**
 * Composition root of catalog-indexer: builds its adapters and ports from the process's infrastructure.
 * The domain arrives with its issue; until then the service hosts health and readiness only.
 */
export async function composeCatalogIndexer(
  _infra: ServiceInfra,
  _config: CatalogIndexerConfig,
): Promise<ServiceParts> {
  return {};
}
