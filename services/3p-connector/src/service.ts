import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { createServiceStores } from '@marquee/platform/store';
import { allTopics } from '@marquee/proto/topics';
import { randomIds } from './adapters/ids.js';
import { createSecretBox, credentialsKey } from './adapters/secret-box.js';
import { createConnectorStorage } from './adapters/stores.js';
import { PartnerRegistry } from './app/registry.js';
import type { ThreePConnectorConfig } from './config.js';
import { partnerAdminGrpc } from './ports/grpc/admin-grpc.js';

/**
 * Composition root of 3p-connector: storage (Mongo or memory), the partner registry and its gRPC
 * admin API, and the outbox relay.
 */
export async function composeThreePConnector(
  infra: ServiceInfra,
  config: ThreePConnectorConfig,
): Promise<ServiceParts> {
  const { logger, bus, mongo } = infra;
  const secrets = createSecretBox(
    credentialsKey(config.PARTNER_CREDENTIALS_KEY, (message) => logger.warn(message)),
  );
  const storage = createConnectorStorage(createServiceStores(mongo, { logger }), secrets);
  await storage.ensureIndexes();
  const registry = new PartnerRegistry({
    partners: storage.partners,
    venueImports: storage.venueImports,
    queue: storage.queue,
    secrets,
    ids: randomIds,
    clock: () => new Date(),
    imports: { importVenues: () => undefined },
  });
  const relay = createOutboxRelay({
    sources: storage.outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  return {
    grpc: [partnerAdminGrpc(registry)],
    start: async () => relay.start(),
    stop: () => relay.stop(),
  };
}
