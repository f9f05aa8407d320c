import { threePConnectorService } from '@marquee/3p-connector';
import { authGatewayService } from '@marquee/auth-gateway';
import { cartService } from '@marquee/cart';
import { catalogIndexerService } from '@marquee/catalog-indexer';
import { dealsService } from '@marquee/deals';
import { partnerReferenceService } from '@marquee/partner-reference';
import type { ServiceDefinition, ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { publisherService } from '@marquee/publisher';
import { reconcilerService } from '@marquee/reconciler';
import { secureEntryService } from '@marquee/secure-entry';

/** A service with its config type erased: the runner only needs to validate, compose and serve it. */
export interface Bootable {
  name: string;
  boot(
    infra: ServiceInfra,
    env: NodeJS.ProcessEnv,
  ): Promise<{ parts: ServiceParts; httpPort: number }>;
}

export const bootable = <C extends { HTTP_PORT: number }>(
  service: ServiceDefinition<C>,
): Bootable => ({
  name: service.name,
  async boot(infra, env) {
    const config = service.loadConfig(env);
    return { parts: await service.compose(infra, config), httpPort: config.HTTP_PORT };
  },
});

/**
 * The back-end services in start order (the edge starts last, once it knows their addresses).
 * The edge-gateway config key that carries each one's gRPC address, where the edge calls it.
 */
export const backendServices: ReadonlyArray<{ service: Bootable; edgeAddressKey?: string }> = [
  { service: bootable(authGatewayService), edgeAddressKey: 'AUTH_GATEWAY_ADDR' },
  { service: bootable(publisherService), edgeAddressKey: 'PUBLISHER_ADDR' },
  { service: bootable(catalogIndexerService), edgeAddressKey: 'CATALOG_INDEXER_ADDR' },
  { service: bootable(dealsService), edgeAddressKey: 'DEALS_ADDR' },
  { service: bootable(partnerReferenceService) },
  { service: bootable(threePConnectorService), edgeAddressKey: 'CONNECTOR_ADDR' },
  { service: bootable(cartService), edgeAddressKey: 'CART_ADDR' },
  { service: bootable(secureEntryService), edgeAddressKey: 'SECURE_ENTRY_ADDR' },
  { service: bootable(reconcilerService), edgeAddressKey: 'RECONCILER_ADDR' },
];
