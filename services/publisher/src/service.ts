import { allTopics } from '@marquee/proto/topics';
import { publishingV1 } from '@marquee/proto';
import { ensureIndexes } from '@marquee/platform/mongo';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { createMemoryStore, createMongoStore } from '@marquee/platform/store';
import { newEventId } from './adapters/event-ids.js';
import {
  createPublishedEventRepository,
  PUBLISHED_EVENTS_COLLECTION,
  publishedEventIndexes,
  type StoredPublishedEvent,
} from './adapters/published-event-repository.js';
import { createPublishing } from './app/publishing.js';
import type { PublisherConfig } from './config.js';
import { publisherServiceImplementation } from './ports/grpc/publisher-service.js';

/**
 * Composition root of publisher: the published-event store (Mongo, or memory in the embedded
 * default), the use cases, the gRPC API and the outbox relay that moves `event-changed` to the bus.
 */
export async function composePublisher(
  infra: ServiceInfra,
  _config: PublisherConfig,
): Promise<ServiceParts> {
  const { logger, mongo } = infra;
  let store;
  if (mongo) {
    const mongoStore = createMongoStore<StoredPublishedEvent>({
      connection: mongo,
      collection: PUBLISHED_EVENTS_COLLECTION,
      indexes: publishedEventIndexes,
    });
    // Built before serving: autoIndex is off (platform/mongo).
    await ensureIndexes(mongo, [mongoStore], logger);
    store = mongoStore;
  } else {
    store = createMemoryStore<StoredPublishedEvent>({
      name: PUBLISHED_EVENTS_COLLECTION,
      indexes: publishedEventIndexes,
    });
  }
  const publishing = createPublishing({
    repository: createPublishedEventRepository(store),
    newId: newEventId,
    clock: () => new Date(),
  });
  const relay = createOutboxRelay({
    sources: [store],
    publish: busRawPublisher(infra.bus, allTopics),
    logger,
  });
  return {
    grpc: [
      {
        definition: publishingV1.PublisherServiceService,
        // The request's `app_id` says whose event it is: only the edge, which resolved it from
        // the caller's API key, may assert it. Any other service is refused (platform service auth).
        access: {
          PublishEvent: { callers: ['edge-gateway'] },
          UpdateEvent: { callers: ['edge-gateway'] },
          DeleteEvent: { callers: ['edge-gateway'] },
          GetEvent: { callers: ['edge-gateway'] },
        },
        implementation: publisherServiceImplementation(publishing),
      },
    ],
    start: async () => relay.start(),
    stop: () => relay.stop(),
  };
}
