import { randomBytes } from 'node:crypto';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { createAuthGatewayClient } from './adapters/auth-gateway-client.js';
import { createCartClient } from './adapters/cart-client.js';
import { createCatalogIndexerClient } from './adapters/catalog-indexer-client.js';
import { createCommerceClient } from './adapters/commerce-client.js';
import { createDealsClient } from './adapters/deals-client.js';
import { createPartnerAdminClient } from './adapters/partner-admin-client.js';
import { createPublisherClient } from './adapters/publisher-client.js';
import { createReconcilerClient } from './adapters/reconciler-client.js';
import { createSecureEntryClient } from './adapters/secure-entry-client.js';
import { createTopPicksClient } from './adapters/top-picks-client.js';
import { createWaitingRoomClient } from './adapters/waiting-room-client.js';
import { cachingDeveloperAccess } from './adapters/caching-developer-access.js';
import type { EdgeGatewayConfig } from './config.js';
import { createStripeWebhookClient } from './adapters/stripe-webhook-client.js';
import { registerEdgeRoutes } from './ports/http/edge-app.js';
import { OPENAPI_DOCUMENT_VERSION } from './ports/http/openapi.js';
import { TrustedProxies } from '@marquee/platform/http';
import { registerOAuthProxy } from './ports/http/oauth-proxy.js';
import { registerTicketPage } from './ports/http/secure-entry/ticket-page.js';

/**
 * The admin token: the configured one; without one, a production start refuses to run and
 * development generates one.
 */
function adminTokenOf(config: EdgeGatewayConfig): string {
  if (config.ADMIN_TOKEN) return config.ADMIN_TOKEN;
  if (config.NODE_ENV === 'production')
    throw new Error('ADMIN_TOKEN (or ADMIN_TOKEN_FILE) is required in production');
  const adminToken = randomBytes(24).toString('base64url');
  // Printed once on the terminal, never logged: logs are shipped elsewhere.
  console.log(
    `edge-gateway: ADMIN_TOKEN not set; generated admin token for this process: ${adminToken}`,
  );
  return adminToken;
}

/** Composition root of edge-gateway: backend clients and the public HTTP surface. */
export async function composeEdgeGateway(
  infra: ServiceInfra,
  config: EdgeGatewayConfig,
): Promise<ServiceParts> {
  const adminToken = adminTokenOf(config);
  const options = {
    deadlineMs: config.BACKEND_DEADLINE_MS,
    maxInFlight: config.BACKEND_MAX_IN_FLIGHT,
    logger: infra.logger,
  };
  const auth = createAuthGatewayClient(config.GRPC_ADDR_AUTH_GATEWAY, options);
  const deals = createDealsClient(config.GRPC_ADDR_DEALS, options);
  const catalog = createCatalogIndexerClient(config.GRPC_ADDR_CATALOG_INDEXER, options);
  const publishing = createPublisherClient(config.GRPC_ADDR_PUBLISHER, options);
  const partners = createPartnerAdminClient(config.GRPC_ADDR_3P_CONNECTOR, options);
  const reconciliation = createReconcilerClient(config.GRPC_ADDR_RECONCILER, options);
  const topPicks = createTopPicksClient(config.GRPC_ADDR_CART, options);
  const partnerCart = createCartClient(config.GRPC_ADDR_CART, {
    ...options,
    maxInFlight: config.PARTNER_CART_MAX_IN_FLIGHT,
  });
  const waitingRoom = createWaitingRoomClient(config.GRPC_ADDR_CART, {
    deadlineMs: config.BACKEND_DEADLINE_MS,
    logger: infra.logger,
  });
  const commerce = createCommerceClient(config.GRPC_ADDR_CART, options);
  const secureEntry = createSecureEntryClient(config.GRPC_ADDR_SECURE_ENTRY, options);
  const stripeWebhooks = createStripeWebhookClient(config.GRPC_ADDR_CART, options);
  return {
    http: async (app) => {
      await registerEdgeRoutes(app, {
        adminToken,
        ...(config.ADMIN_TOKEN_PREVIOUS ? { previousAdminToken: config.ADMIN_TOKEN_PREVIOUS } : {}),
        version: OPENAPI_DOCUMENT_VERSION,
        fees: {
          serviceFeeBps: config.CART_SERVICE_FEE_BPS,
          serviceFeeMinMinor: config.CART_SERVICE_FEE_MIN_MINOR,
          processingFeeMinor: config.CART_PROCESSING_FEE_MINOR,
          feeTaxBps: config.CART_FEE_TAX_BPS,
        },
        ...(config.STRIPE_WEBHOOK_SECRET
          ? { stripeWebhookSecret: config.STRIPE_WEBHOOK_SECRET }
          : {}),
        backends: {
          developerAccess: cachingDeveloperAccess(auth),
          deals,
          catalog,
          publishing,
          partners,
          reconciliation,
          topPicks,
          partnerCart,
          waitingRoom,
          commerce,
          // Fan tokens are introspected on every call (a revoked grant stops working at once);
          // approvals arrive with the cached key check (cachingDeveloperAccess: 30 s).
          fanTokens: auth,
          appAccess: auth,
          appOAuth: auth,
          appQuota: auth,
          secureEntry,
          stripeWebhooks,
        },
      });
      await registerTicketPage(app);
      await registerOAuthProxy(app, {
        upstream: config.HTTP_URL_AUTH_GATEWAY,
        trustedProxies: new TrustedProxies(config.TRUSTED_PROXIES),
      });
    },
    stop: async () => {
      for (const client of [auth, deals, catalog, publishing, partners, reconciliation])
        client.close();
      for (const client of [topPicks, partnerCart, waitingRoom, commerce, secureEntry])
        client.close();
      stripeWebhooks.close();
    },
  };
}
