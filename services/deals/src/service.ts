import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { TopicDef } from '@marquee/platform/bus';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { systemClock } from '@marquee/platform/kernel';
import { openServiceStores } from '@marquee/platform/store';
import type { EventChanged } from '@marquee/proto/catalog/v1';
import { allTopics, dealChangedTopic, eventChangedTopic } from '@marquee/proto/topics';
import {
  cachedVenueDirectory,
  createCatalogVenueDirectory,
} from './adapters/catalog-venue-directory.js';
import { createDealsStorage } from './adapters/repositories.js';
import { randomIds } from './adapters/ids.js';
import { DealsApp } from './app/deals-app.js';
import { eventConsumerGroup, type DealsConfig } from './config.js';
import { dealsGrpc } from './ports/grpc/deals-grpc.js';
import {
  dealChangedHandler,
  deletedEventDealsHandler,
  eventChangedHandler,
} from './ports/kafka/event-changed-handler.js';

/**
 * Composition root of deals: deals (Mongo or memory) with the outbox relay for `deal-changed`, the
 * search index (deals loaded from storage), the event projection and every replica's deal writes
 * read whole from `event-changed` and `deal-changed` (global subscriptions, README "Replicas"), the
 * shared consumer that ends the deals of deleted events, and gRPC. Ready once both topics are read
 * up to where they ended at start. Tests may give their own `event-changed` topic, so that a test
 * does not first project every event other suites ever published on a shared broker.
 */
export async function composeDeals(
  infra: ServiceInfra,
  config: DealsConfig,
  options: { eventTopic?: TopicDef<EventChanged> } = {},
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const { storage, outboxSources } = await openServiceStores(infra, createDealsStorage);
  const catalog = createCatalogVenueDirectory(config.GRPC_ADDR_CATALOG_INDEXER, {
    deadlineMs: 5_000,
    logger,
  });
  const app = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: systemClock,
    ids: randomIds,
    venues: cachedVenueDirectory(catalog, {
      ttlMs: config.VENUE_CACHE_TTL_MS,
      maxEntries: 10_000,
    }),
  });
  await app.load();
  logger.info(app.stats(), 'deals search index loaded');
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  // Venues catalog-indexer did not know yet when their event was projected: asked again each interval.
  let resolver: NodeJS.Timeout | undefined;
  let resolving = false;
  const resolvePending = async () => {
    if (resolving || app.pendingVenueCount() === 0) return;
    resolving = true;
    try {
      const resolved = await app.resolvePendingVenues();
      if (resolved > 0) logger.info({ resolved }, 'venue coordinates resolved');
    } catch (error) {
      logger.warn({ err: error }, 'venue resolution failed; retrying at the next interval');
    } finally {
      resolving = false;
    }
  };
  const eventTopic = options.eventTopic ?? eventChangedTopic;
  // The compacted topic holds every event's current state: each replica reads it whole. An
  // unreachable catalog-indexer fails the record: EVENT_MAX_ATTEMPTS retries with backoff capped
  // at 10 s (default 360, about an hour) before it is logged and skipped.
  const events = await bus.subscribeGlobal(
    eventTopic,
    { name: `${config.SERVICE_NAME}.event-changed`, maxAttempts: config.EVENT_MAX_ATTEMPTS },
    eventChangedHandler(app),
  );
  // Every replica's deal writes (30 days of them; older deals were loaded from storage above).
  const dealChanges = await bus.subscribeGlobal(
    dealChangedTopic,
    { name: `${config.SERVICE_NAME}.deal-changed` },
    dealChangedHandler(app),
  );
  // Ending the deals of a deleted event is a write: once for the service, by the group member that
  // owns the tombstone's partition.
  await bus.subscribe(
    eventTopic,
    {
      group: eventConsumerGroup(config),
      fromBeginning: true,
      maxAttempts: config.EVENT_MAX_ATTEMPTS,
    },
    deletedEventDealsHandler(app),
  );
  return {
    grpc: [dealsGrpc(app)],
    readiness: {
      'event-changed': async () => events.caughtUp(),
      'deal-changed': async () => dealChanges.caughtUp(),
    },
    start: async () => {
      await relay.start();
      resolver = setInterval(() => void resolvePending(), config.VENUE_RETRY_INTERVAL_MS);
      resolver.unref();
    },
    stop: async () => {
      clearInterval(resolver);
      await relay.stop();
      catalog.close();
    },
  };
}
