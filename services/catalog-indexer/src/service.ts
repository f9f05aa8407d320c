import { availabilityChangedTopic, eventChangedTopic, type TopicDef } from '@marquee/proto';
import type { AvailabilityChanged, EventChanged } from '@marquee/proto/catalog/v1';
import {
  readModelConsumerGroup,
  type ServiceInfra,
  type ServiceParts,
} from '@marquee/platform/service';
import {
  createMemoryAvailabilityRecords,
  createMongoAvailabilityRecords,
} from './adapters/availability-records.js';
import { createMemoryEventRecords } from './adapters/memory-event-records.js';
import { createMongoEventRecords } from './adapters/mongo-event-records.js';
import { discoveryDocuments } from './adapters/discovery-documents.js';
import { protobufEventCodec } from './adapters/protobuf-event-codec.js';
import { Catalog } from './app/catalog.js';
import type { EventCodec } from './domain/catalog-index.js';
import type { CatalogIndexerConfig } from './config.js';
import { catalogGrpc } from './ports/grpc/catalog-grpc.js';
import { availabilityChangedHandler } from './ports/kafka/availability-changed-handler.js';
import { eventChangedHandler } from './ports/kafka/event-changed-handler.js';

/**
 * Composition root of catalog-indexer: the read model (Mongo, or memory in the embedded default),
 * the search index rebuilt from it before anything is served, the `event-changed` and
 * `availability-changed` consumers that keep both current, and CatalogService over gRPC.
 */
export async function composeCatalogIndexer(
  infra: ServiceInfra,
  config: CatalogIndexerConfig,
): Promise<ServiceParts> {
  // One group per read-model database: reading the compacted topic from the beginning rebuilds it.
  const { parts } = await buildCatalogIndexer(infra, {
    group: readModelConsumerGroup(config, 'catalog_indexer'),
  });
  return parts;
}

/**
 * The composition with its catalog exposed; tests give their own topics and consumer group.
 * `availability-changed` is consumed by a group of its own, `<group>.availability`: its offsets
 * then never depend on the `event-changed` ones, and a new read-model database (a new `group`)
 * replays both topics.
 */
export async function buildCatalogIndexer(
  infra: ServiceInfra,
  options: {
    topic?: TopicDef<EventChanged>;
    availabilityTopic?: TopicDef<AvailabilityChanged>;
    group?: string;
  } = {},
): Promise<{ parts: ServiceParts; catalog: Catalog }> {
  let records;
  let availability;
  if (infra.mongo) {
    const mongoRecords = createMongoEventRecords(infra.mongo);
    await mongoRecords.ensureIndexes();
    records = mongoRecords;
    const mongoAvailability = createMongoAvailabilityRecords(infra.mongo);
    await mongoAvailability.ensureIndexes();
    availability = mongoAvailability;
  } else {
    records = createMemoryEventRecords();
    availability = createMemoryAvailabilityRecords();
  }
  const catalog = new Catalog({
    records,
    availability,
    eventCodec: protobufEventCodec as EventCodec,
    documents: discoveryDocuments,
  });
  const started = performance.now();
  const loaded = await catalog.rebuild();
  infra.logger.info(
    { events: loaded, ms: Math.round(performance.now() - started) },
    'search index rebuilt from the read model',
  );
  const group = options.group ?? 'catalog-indexer';
  await infra.bus.subscribe(
    options.topic ?? eventChangedTopic,
    { group, fromBeginning: true },
    eventChangedHandler(catalog, infra.logger),
  );
  // Not compacted (a day of retention): from the beginning, the sequence rule makes a replay converge.
  await infra.bus.subscribe(
    options.availabilityTopic ?? availabilityChangedTopic,
    { group: `${group}.availability`, fromBeginning: true },
    availabilityChangedHandler(catalog, infra.logger),
  );
  const grpcPort = catalogGrpc(catalog);
  return {
    parts: {
      grpc: [grpcPort],
      // Before the gRPC server stops: end the change streams, or it would wait for them.
      beforeStop: () => grpcPort.close(),
    },
    catalog,
  };
}
