import { allTopics } from '@marquee/proto/topics';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import { ensureIndexes } from '@marquee/platform/mongo';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { authV1 } from '@marquee/proto';
import { createArgon2Hasher } from './adapters/argon2-hasher.js';
import { createMemoryAuthStores, createMongoAuthStores } from './adapters/auth-stores.js';
import { createMemoryRateCounter, createMongoRateCounter } from './adapters/rate-counters.js';
import { createAppRepository, createFanRepository } from './adapters/store-repositories.js';
import { DeveloperAccess } from './app/developer-access.js';
import type { AuthGatewayConfig } from './config.js';
import { authServiceImplementation } from './ports/grpc/auth-service.js';

/**
 * Composition root of auth-gateway: Mongo or memory stores (memory when `infra.mongo` is unset,
 * i.e. the embedded default), the use cases, the gRPC API and the outbox relay of `app-authorized`.
 */
export async function composeAuthGateway(
  infra: ServiceInfra,
  config: AuthGatewayConfig,
): Promise<ServiceParts> {
  const { logger, mongo } = infra;
  const stores = mongo ? createMongoAuthStores(mongo) : createMemoryAuthStores();
  if (mongo) await ensureIndexes(mongo, stores.all as never, logger);
  const access = new DeveloperAccess({
    apps: createAppRepository(stores),
    fans: createFanRepository(stores),
    counter: mongo ? createMongoRateCounter(mongo) : createMemoryRateCounter(),
    hasher: createArgon2Hasher(),
    clock: () => new Date(),
    defaultQuota: {
      perDay: config.DEFAULT_QUOTA_PER_DAY,
      perSecond: config.DEFAULT_QUOTA_PER_SECOND,
    },
  });
  const relay = createOutboxRelay({
    sources: stores.all,
    publish: busRawPublisher(infra.bus, allTopics),
    logger,
  });
  const inactive: authV1.IntrospectTokenResponse = authV1.IntrospectTokenResponse.fromPartial({});
  return {
    grpc: [
      {
        definition: authV1.AuthServiceService,
        implementation: authServiceImplementation(access, {
          introspect: async () => inactive,
        }),
      },
    ],
    start: async () => relay.start(),
    stop: () => relay.stop(),
  };
}
