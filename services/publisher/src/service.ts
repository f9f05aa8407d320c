import { systemClock } from '@marquee/platform/kernel';
import { allTopics } from '@marquee/proto/topics';
import { publishingV1 } from '@marquee/proto';
import { createIdempotency } from '@marquee/platform/idempotency';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { openServiceStores } from '@marquee/platform/store';
import { newEventId } from './adapters/event-ids.js';
import { createPublishedEventRepository } from './adapters/published-event-repository.js';
import { createPublisherStorage } from './adapters/stores.js';
import { createPublishing } from './app/publishing.js';
import type { PublisherConfig } from './config.js';
import { publisherServiceImplementation } from './ports/grpc/publisher-service.js';

/** How often expired idempotency records are deleted (FerretDB has no TTL indexes). */
const PURGE_EVERY_MS = 60_000;

/**
 * Composition root of publisher: its storage (`openServiceStores`: Mongo, or memory in the
 * embedded default), the idempotency records of publications, the use cases, the gRPC API and the outbox
 * relay that moves `event-changed` to the bus.
 */
export async function composePublisher(
  infra: ServiceInfra,
  config: PublisherConfig,
): Promise<ServiceParts> {
  const { logger } = infra;
  const { storage } = await openServiceStores(infra, createPublisherStorage);
  const idempotency = createIdempotency(storage.idempotency, { ttlMs: config.IDEMPOTENCY_TTL_MS });
  const publishing = createPublishing({
    repository: createPublishedEventRepository(storage.events, storage.publicationKeys),
    newId: newEventId,
    clock: systemClock,
    publicationKeyWindowMs: config.IDEMPOTENCY_TTL_MS,
  });
  // One purge at a time per process; replicas purging together are kept apart by compare-and-set.
  let purgeTimer: NodeJS.Timeout | undefined;
  let purging = false;
  const purge = async () => {
    if (purging) return;
    purging = true;
    try {
      await idempotency.purgeExpired();
    } catch (error) {
      logger.warn({ err: error }, 'idempotency purge failed; the next one retries');
    } finally {
      purging = false;
    }
  };
  const relay = createOutboxRelay({
    // The published events carry `event-changed`; the idempotency records never carry events.
    sources: [storage.events],
    publish: busRawPublisher(infra.bus, allTopics),
    logger,
  });
  return {
    grpc: [
      {
        definition: publishingV1.PublisherServiceService,
        implementation: publisherServiceImplementation(publishing, idempotency),
      },
    ],
    start: async () => {
      await relay.start();
      purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
      purgeTimer.unref();
    },
    stop: async () => {
      clearInterval(purgeTimer);
      await relay.stop();
    },
  };
}
