import { threePConnectorService } from '@marquee/3p-connector';
import { authGatewayService } from '@marquee/auth-gateway';
import { cartService } from '@marquee/cart';
import { catalogIndexerService } from '@marquee/catalog-indexer';
import { dealsService } from '@marquee/deals';
import { partnerReferenceService } from '@marquee/partner-reference';
import { runAsService } from '@marquee/platform/grpc';
import type { ServiceDefinition, ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { mergeV8Options, NO_V8_OPTIONS, type V8Options } from '@marquee/platform/v8';
import { edgeGatewayService } from '@marquee/edge-gateway';
import { publisherService } from '@marquee/publisher';
import { reconcilerService } from '@marquee/reconciler';
import { secureEntryService } from '@marquee/secure-entry';

/** A service with its config type erased: the runner only needs to validate, compose and serve it. */
export interface Bootable {
  name: string;
  /** The service's V8 options (ServiceDefinition.v8): the embedded process runs with all of them. */
  v8: V8Options;
  boot(
    infra: ServiceInfra,
    env: NodeJS.ProcessEnv,
  ): Promise<{ parts: ServiceParts; httpPort: number }>;
}

export const bootable = <C extends { HTTP_PORT: number }>(
  service: ServiceDefinition<C>,
): Bootable => ({
  name: service.name,
  v8: service.v8 ?? NO_V8_OPTIONS,
  async boot(infra, env) {
    const config = service.loadConfig(env);
    // Clients made while composing speak for this service (its gRPC calls carry its name).
    const parts = await runAsService(service.name, () => service.compose(infra, config));
    return { parts, httpPort: config.HTTP_PORT };
  },
});

/** What the runner knows when it starts a service: what each service's `env` may use. */
export interface EmbeddedContext {
  adminToken: string;
  /** partner-reference's HTTP port (`PARTNER_PORT`; 0 = ephemeral). */
  partnerPort: number;
  /** The OAuth client partner-reference accepts and the connector is registered with. */
  partnerClient: { id: string; secret: string };
  /** Key that encrypts partner secrets at rest in the connector (one per embedded run). */
  partnerCredentialsKey: string;
}

export interface BackendService {
  service: Bootable;
  /**
   * The config key that carries its gRPC address (the edge's, and any other caller's: the Helm
   * chart's `GRPC_ADDR_<NAME>` convention).
   */
  edgeAddressKey?: string;
  /** The `GRPC_ADDR_*` keys it calls; the runner fills them from the services started before it. */
  needs?: readonly string[];
  /** Its own settings in the embedded default (ports, secrets); HTTP_PORT defaults to ephemeral. */
  env?: (context: EmbeddedContext) => NodeJS.ProcessEnv;
  /** Its HTTP base URL goes to the edge under this key (the edge proxies `/oauth/*` to auth-gateway). */
  edgeHttpUrlKey?: string;
}

/** The back-end services in start order (the edge starts last, once it knows their addresses). */
export const backendServices: ReadonlyArray<BackendService> = [
  {
    service: bootable(authGatewayService),
    edgeAddressKey: 'GRPC_ADDR_AUTH_GATEWAY',
    edgeHttpUrlKey: 'HTTP_URL_AUTH_GATEWAY',
  },
  { service: bootable(publisherService), edgeAddressKey: 'GRPC_ADDR_PUBLISHER' },
  { service: bootable(catalogIndexerService), edgeAddressKey: 'GRPC_ADDR_CATALOG_INDEXER' },
  {
    service: bootable(dealsService),
    edgeAddressKey: 'GRPC_ADDR_DEALS',
    needs: ['GRPC_ADDR_CATALOG_INDEXER'],
  },
  {
    service: bootable(partnerReferenceService),
    // The demo partner: its own port, the admin token of the run, and the client the connector uses.
    env: (context) => ({
      HTTP_PORT: String(context.partnerPort),
      ADMIN_TOKEN: context.adminToken,
      PARTNER_CLIENT_ID: context.partnerClient.id,
      PARTNER_CLIENT_SECRET: context.partnerClient.secret,
      PARTNER_SEED_DEMO: 'true',
    }),
  },
  {
    service: bootable(threePConnectorService),
    edgeAddressKey: 'GRPC_ADDR_3P_CONNECTOR',
    env: (context) => ({ PARTNER_CREDENTIALS_KEY: context.partnerCredentialsKey }),
  },
  {
    service: bootable(cartService),
    edgeAddressKey: 'GRPC_ADDR_CART',
    needs: ['GRPC_ADDR_3P_CONNECTOR'],
    // The nightly maintenance window would make the demo depend on the wall clock.
    env: () => ({ CART_MAINTENANCE_WINDOW: 'off' }),
  },
  { service: bootable(secureEntryService), edgeAddressKey: 'GRPC_ADDR_SECURE_ENTRY' },
  {
    service: bootable(reconcilerService),
    edgeAddressKey: 'GRPC_ADDR_RECONCILER',
    needs: ['GRPC_ADDR_3P_CONNECTOR'],
  },
];

/**
 * The V8 options of this process: those of every service it hosts, each once (a disagreement
 * between two services is an error). The same set the launch hook reads from the package.json
 * files of this package's service dependencies.
 */
export function hostedV8Options(): V8Options {
  return mergeV8Options(
    [...backendServices.map(({ service }) => service), bootable(edgeGatewayService)].map(
      ({ name, v8 }) => ({ name, v8 }),
    ),
  );
}
