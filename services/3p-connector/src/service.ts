import { systemClock } from '@marquee/platform/kernel';
import type { Logger } from '@marquee/platform/logger';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { openServiceStores } from '@marquee/platform/store';
import { allTopics, orderCancelledTopic } from '@marquee/proto/topics';
import { systemResolver } from './adapters/egress-agent.js';
import { importMetrics } from './adapters/import-metrics.js';
import { randomIds } from './adapters/ids.js';
import { createPartnerApiFactory } from './adapters/partner-http.js';
import { createSecretBox, credentialsKeys } from './adapters/secret-box.js';
import { createConnectorStorage, type ConnectorStorage } from './adapters/stores.js';
import { CancelQueue } from './app/cancel-queue.js';
import { HealthMonitor, Scheduler } from './app/health-monitor.js';
import { Importer } from './app/importer.js';
import type { SecretBox } from './app/ports.js';
import { PartnerRegistry } from './app/registry.js';
import { ConnectorRuntime } from './app/runtime.js';
import type { ThreePConnectorConfig } from './config.js';
import { egressPolicy } from './domain/egress.js';
import { partnerAdminGrpc } from './ports/grpc/admin-grpc.js';
import { connectorGrpc } from './ports/grpc/connector-grpc.js';
import { orderCancelledHandler } from './ports/kafka/order-cancelled-handler.js';

/** How often the scheduler looks at the timetable (bounded by the configured intervals). */
const tickMs = (config: ThreePConnectorConfig) =>
  Math.max(50, Math.min(1_000, config.HEALTH_INTERVAL_MS, config.IMPORT_INTERVAL_MS));

/**
 * Composition root of 3p-connector: storage (Mongo or memory), partner HTTP clients, the importer,
 * healthchecks and their scheduler, the runtime calls and the cancel queue with its worker, the
 * `order-cancelled` consumer, the gRPC APIs, and the outbox relay.
 */
export async function composeThreePConnector(
  infra: ServiceInfra,
  config: ThreePConnectorConfig,
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const secrets = createSecretBox(
    credentialsKeys(config.PARTNER_CREDENTIALS_KEY, (message) => logger.warn(message)),
  );
  const { storage, outboxSources } = await openServiceStores(infra, (stores) =>
    createConnectorStorage(stores, secrets),
  );
  const { registry, scheduler, cancels, runtime } = composeUseCases(
    storage,
    secrets,
    config,
    logger,
  );
  await bus.subscribe(
    orderCancelledTopic,
    { group: config.ORDER_CANCELLED_GROUP },
    orderCancelledHandler({ cancels, events: storage.importedEvents, logger }),
  );
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  // One worker per process; replicas are kept apart by the claim (compare-and-set on the version).
  const work = exclusive(() => cancels.processDue(), 'cancel queue pass failed', logger);
  const tick = exclusive(() => scheduler.tick(Date.now()), 'scheduler tick failed', logger);
  let timer: NodeJS.Timeout | undefined;
  let worker: NodeJS.Timeout | undefined;
  return {
    grpc: [connectorGrpc(runtime), partnerAdminGrpc(registry)],
    start: async () => {
      await relay.start();
      timer = setInterval(() => void tick(), tickMs(config));
      timer.unref();
      worker = setInterval(() => void work(), config.QUEUE_POLL_MS);
      worker.unref();
    },
    stop: async () => {
      clearInterval(timer);
      clearInterval(worker);
      await relay.stop();
    },
  };
}

/** The use cases over the storage and the partner HTTP clients (egress rules from the config). */
function composeUseCases(
  storage: ConnectorStorage,
  secrets: SecretBox,
  config: ThreePConnectorConfig,
  logger: Logger,
) {
  const clock = systemClock;
  const egress = egressPolicy({
    requireHttps: config.NODE_ENV === 'production',
    allowedHosts: config.PARTNER_ALLOWED_HOSTS,
  });
  const api = createPartnerApiFactory(secrets, {
    timeoutMs: config.PARTNER_CALL_TIMEOUT_MS,
    listingTimeoutMs: config.PARTNER_LISTING_TIMEOUT_MS,
    maxResponseBytes: config.PARTNER_MAX_RESPONSE_BYTES,
    egress,
    logger,
  });
  const importer = new Importer({
    partners: storage.partners,
    venueImports: storage.venueImports,
    events: storage.importedEvents,
    resources: storage.resources,
    api,
    ids: randomIds,
    clock,
    log: logger,
    metrics: importMetrics,
  });
  const registry = new PartnerRegistry({
    partners: storage.partners,
    venueImports: storage.venueImports,
    queue: storage.queue,
    secrets,
    ids: randomIds,
    clock,
    imports: importer,
    egress,
    resolveHost: async (host) => (await systemResolver(host)).map((a) => a.address),
  });
  const monitor = new HealthMonitor({
    partners: storage.partners,
    api,
    imports: importer,
    clock,
    log: logger,
  });
  const scheduler = new Scheduler({
    partners: storage.partners,
    monitor,
    importer,
    healthIntervalMs: config.HEALTH_INTERVAL_MS,
    importIntervalMs: config.IMPORT_INTERVAL_MS,
    log: logger,
  });
  const cancels = new CancelQueue({
    partners: storage.partners,
    queue: storage.queue,
    failures: storage.callFailures,
    api,
    clock,
    log: logger,
    maxBackoffMs: config.QUEUE_MAX_BACKOFF_MS,
  });
  const runtime = new ConnectorRuntime({
    partners: storage.partners,
    events: storage.importedEvents,
    api,
    failures: storage.callFailures,
    cancels,
    importer,
    clock,
    log: logger,
  });
  return { registry, scheduler, cancels, runtime };
}

/** A background pass that never overlaps itself; a failure is logged and the next pass runs. */
function exclusive(pass: () => Promise<unknown>, failed: string, logger: Logger) {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      await pass();
    } catch (error) {
      logger.error({ err: error }, failed);
    } finally {
      running = false;
    }
  };
}
