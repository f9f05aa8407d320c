import { ensureIndexes, pingMongo } from '@marquee/platform/mongo';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { allTopics, eventChangedTopic } from '@marquee/proto/topics';
import { createDealsStorage } from './adapters/repositories.js';
import { randomIds, systemClock } from './adapters/clock-and-ids.js';
import { DealsApp } from './app/deals-app.js';
import { eventConsumerGroup, type DealsConfig } from './config.js';
import { dealsGrpc } from './ports/grpc/deals-grpc.js';
import { eventChangedHandler } from './ports/kafka/event-changed-handler.js';

/**
 * Composition root of deals: storage (Mongo or memory), the outbox relay for `deal-changed`, the
 * `event-changed` consumer, the search index (rebuilt from storage before serving) and gRPC.
 */
export async function composeDeals(
  infra: ServiceInfra,
  config: DealsConfig,
): Promise<ServiceParts> {
  const { logger, bus, mongo } = infra;
  const storage = createDealsStorage(mongo);
  if (mongo) await ensureIndexes(mongo, storage.mongoCollections, logger);
  const app = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: systemClock,
    ids: randomIds,
  });
  await app.load();
  logger.info(app.stats(), 'deals search index loaded');
  const relay = createOutboxRelay({
    sources: storage.outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  // The compacted topic holds every event's current state: a new group reads it from the start.
  await bus.subscribe(
    eventChangedTopic,
    { group: eventConsumerGroup(config), fromBeginning: true },
    eventChangedHandler(app),
  );
  return {
    grpc: [dealsGrpc(app)],
    ...(mongo ? { readiness: { mongo: () => pingMongo(mongo) } } : {}),
    start: async () => relay.start(),
    stop: () => relay.stop(),
  };
}
