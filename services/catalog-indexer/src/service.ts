import { availabilityChangedTopic, eventChangedTopic, type TopicDef } from '@marquee/proto';
import type { AvailabilityChanged, EventChanged } from '@marquee/proto/catalog/v1';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { createMemoryAvailabilityRecords } from './adapters/availability-records.js';
import { createMemoryEventRecords } from './adapters/memory-event-records.js';
import { discoveryDocuments } from './adapters/discovery-documents.js';
import { protobufEventCodec } from './adapters/protobuf-event-codec.js';
import { Catalog } from './app/catalog.js';
import type { CatalogIndexerConfig } from './config.js';
import { catalogGrpc } from './ports/grpc/catalog-grpc.js';
import { availabilityChangedHandler } from './ports/kafka/availability-changed-handler.js';
import { eventChangedHandler } from './ports/kafka/event-changed-handler.js';

/**
 * Composition root of catalog-indexer: the read model and the search index, both in memory and
 * built by reading `event-changed` and `availability-changed` whole (global subscriptions: every
 * replica reads every partition, README "Replicas"), and CatalogService over gRPC. Ready once both
 * topics are read up to where they ended when the replica started.
 */
export async function composeCatalogIndexer(
  infra: ServiceInfra,
  config: CatalogIndexerConfig,
): Promise<ServiceParts> {
  const { parts } = await buildCatalogIndexer(infra, { name: config.SERVICE_NAME });
  return parts;
}

/**
 * The composition with its catalog exposed; tests and benchmarks give their own topics.
 * `name` names the global subscriptions (`<name>.event-changed`, `<name>.availability-changed`) in
 * logs and Kafka's group list.
 */
export async function buildCatalogIndexer(
  infra: ServiceInfra,
  options: {
    topic?: TopicDef<EventChanged>;
    availabilityTopic?: TopicDef<AvailabilityChanged>;
    name?: string;
  } = {},
): Promise<{ parts: ServiceParts; catalog: Catalog }> {
  const catalog = new Catalog({
    records: createMemoryEventRecords(),
    availability: createMemoryAvailabilityRecords(),
    eventCodec: protobufEventCodec,
    documents: discoveryDocuments,
  });
  const name = options.name ?? 'catalog-indexer';
  const started = performance.now();
  const events = await infra.bus.subscribeGlobal(
    options.topic ?? eventChangedTopic,
    { name: `${name}.event-changed` },
    eventChangedHandler(catalog, infra.logger),
  );
  // Not compacted (a day of retention): the sequence rule makes any order of reading converge.
  const availability = await infra.bus.subscribeGlobal(
    options.availabilityTopic ?? availabilityChangedTopic,
    { name: `${name}.availability-changed` },
    availabilityChangedHandler(catalog, infra.logger),
  );
  void Promise.all([events.whenCaughtUp(), availability.whenCaughtUp()]).then(() =>
    infra.logger.info(
      { events: catalog.index.size, ms: Math.round(performance.now() - started) },
      'caught up with event-changed and availability-changed',
    ),
  );
  const grpcPort = catalogGrpc(catalog);
  return {
    parts: {
      grpc: [grpcPort],
      // Not ready (no traffic from Kubernetes or the stack) until the whole read model is here.
      readiness: {
        'event-changed': async () => events.caughtUp(),
        'availability-changed': async () => availability.caughtUp(),
      },
      // Before the gRPC server stops: end the change streams, or it would wait for them.
      beforeStop: () => grpcPort.close(),
    },
    catalog,
  };
}
