import { systemClock } from '@marquee/platform/kernel';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { openServiceStores } from '@marquee/platform/store';
import { authV1 } from '@marquee/proto';
import { allTopics } from '@marquee/proto/topics';
import { createArgon2Hasher } from './adapters/argon2-hasher.js';
import { createAuthStorage } from './adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from './adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from './adapters/store-repositories.js';
import { DeveloperAccess } from './app/developer-access.js';
import { FanDeletion } from './app/fan-deletion.js';
import { OAuthFlows } from './app/oauth-flows.js';
import type { AuthGatewayConfig } from './config.js';
import { authServiceImplementation } from './ports/grpc/auth-service.js';
import { TrustedProxies } from '@marquee/platform/http';
import { oauthRoutes } from './ports/http/oauth-routes.js';

/** Expired interactions, codes and tokens are deleted this often (FerretDB has no TTL indexes). */
const PURGE_INTERVAL_MS = 60_000;

/**
 * Composition root of auth-gateway: its stores and rate counters (`openServiceStores`: Mongo, or
 * memory in the embedded default), the use cases, the gRPC API, the `/oauth/*` routes and the outbox
 * relay of `app-authorized` and `fan-deleted`.
 */
export async function composeAuthGateway(
  infra: ServiceInfra,
  config: AuthGatewayConfig,
): Promise<ServiceParts> {
  const { logger } = infra;
  const { storage, outboxSources } = await openServiceStores(infra, createAuthStorage);
  const { stores, counter } = storage;
  const apps = createAppRepository(stores);
  const fans = createFanRepository(stores);
  const hasher = createArgon2Hasher();
  const clock = systemClock;
  const access = new DeveloperAccess({
    apps,
    fans,
    counter,
    hasher,
    clock,
    defaultQuota: {
      perDay: config.DEFAULT_QUOTA_PER_DAY,
      perSecond: config.DEFAULT_QUOTA_PER_SECOND,
      heldTicketsPerEvent: config.DEFAULT_QUOTA_HELD_TICKETS_PER_EVENT,
    },
  });
  const oauth = createOAuthRepository(stores);
  const flows = new OAuthFlows({
    apps,
    fans,
    oauth,
    keys: createKeyStore(stores, config.USER_ID_KEY),
    hasher,
    counter,
    clock,
  });
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(infra.bus, allTopics),
    logger,
  });
  let purge: NodeJS.Timeout | undefined;
  return {
    grpc: [
      {
        definition: authV1.AuthServiceService,
        implementation: authServiceImplementation(
          access,
          {
            async introspect(accessToken) {
              const found = await flows.introspect(accessToken);
              return found
                ? { active: true, ...found }
                : authV1.IntrospectTokenResponse.fromPartial({ active: false });
            },
          },
          flows,
          new FanDeletion({ fans, oauth, clock }),
        ),
      },
    ],
    http: oauthRoutes({ flows, trustedProxies: new TrustedProxies(config.TRUSTED_PROXIES) }),
    start: async () => {
      relay.start();
      // Apps created before tracking ids existed get one; a failure is retried at the next start.
      access.backfillTrackingIds().then(
        (assigned) => {
          if (assigned > 0) logger.info({ assigned }, 'tracking ids given to older apps');
        },
        (err: unknown) => logger.warn({ err }, 'giving older apps tracking ids failed'),
      );
      purge = setInterval(() => {
        flows.purgeExpired().catch((err: unknown) => {
          logger.warn({ err }, 'purging expired interactions, codes and tokens failed');
        });
      }, PURGE_INTERVAL_MS);
      purge.unref();
    },
    stop: async () => {
      clearInterval(purge);
      await relay.stop();
    },
  };
}
