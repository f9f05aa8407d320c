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
  /** The service's own V8 flags (ServiceDefinition.v8Flags): the embedded process sets them all. */
  v8Flags: readonly string[];
  boot(
    infra: ServiceInfra,
    env: NodeJS.ProcessEnv,
  ): Promise<{ parts: ServiceParts; httpPort: number }>;
}

export const bootable = <C extends { HTTP_PORT: number }>(
  service: ServiceDefinition<C>,
): Bootable => ({
  name: service.name,
  v8Flags: service.v8Flags ?? [],
  async boot(infra, env) {
    const config = service.loadConfig(env);
    return { parts: await service.compose(infra, config), httpPort: config.HTTP_PORT };
  },
});

/**
 * The back-end services in start order (the edge starts last, once it knows their addresses).
 * `edgeAddressKey`: the config key that carries each one's gRPC address (the edge's, and any other
 * caller's: the Helm chart's `GRPC_ADDR_<NAME>` convention). `needs`: the `GRPC_ADDR_*` keys a
 * service calls; the runner fills them from the services started before it.
 */
export const backendServices: ReadonlyArray<{
  service: Bootable;
  edgeAddressKey?: string;
  needs?: readonly string[];
}> = [
  { service: bootable(authGatewayService), edgeAddressKey: 'GRPC_ADDR_AUTH_GATEWAY' },
  { service: bootable(publisherService), edgeAddressKey: 'GRPC_ADDR_PUBLISHER' },
  { service: bootable(catalogIndexerService), edgeAddressKey: 'GRPC_ADDR_CATALOG_INDEXER' },
  {
    service: bootable(dealsService),
    edgeAddressKey: 'GRPC_ADDR_DEALS',
    needs: ['GRPC_ADDR_CATALOG_INDEXER'],
  },
  { service: bootable(partnerReferenceService) },
  { service: bootable(threePConnectorService), edgeAddressKey: 'GRPC_ADDR_3P_CONNECTOR' },
  { service: bootable(cartService), edgeAddressKey: 'GRPC_ADDR_CART' },
  { service: bootable(secureEntryService), edgeAddressKey: 'GRPC_ADDR_SECURE_ENTRY' },
  { service: bootable(reconcilerService), edgeAddressKey: 'GRPC_ADDR_RECONCILER' },
];
