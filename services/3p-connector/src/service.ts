import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { createServiceStores } from '@marquee/platform/store';
import { allTopics } from '@marquee/proto/topics';
import { randomIds } from './adapters/ids.js';
import { createPartnerApiFactory } from './adapters/partner-http.js';
import { createSecretBox, credentialsKey } from './adapters/secret-box.js';
import { createConnectorStorage } from './adapters/stores.js';
import { HealthMonitor, Scheduler } from './app/health-monitor.js';
import { Importer } from './app/importer.js';
import { PartnerRegistry } from './app/registry.js';
import type { ThreePConnectorConfig } from './config.js';
import { partnerAdminGrpc } from './ports/grpc/admin-grpc.js';

/** How often the scheduler looks at the timetable (bounded by the configured intervals). */
const tickMs = (config: ThreePConnectorConfig) =>
  Math.max(50, Math.min(1_000, config.HEALTH_INTERVAL_MS, config.IMPORT_INTERVAL_MS));

/**
 * Composition root of 3p-connector: storage (Mongo or memory), partner HTTP clients, the importer,
 * healthchecks and their scheduler, the gRPC APIs, and the outbox relay.
 */
export async function composeThreePConnector(
  infra: ServiceInfra,
  config: ThreePConnectorConfig,
): Promise<ServiceParts> {
  const { logger, bus, mongo } = infra;
  const clock = () => new Date();
  const secrets = createSecretBox(
    credentialsKey(config.PARTNER_CREDENTIALS_KEY, (message) => logger.warn(message)),
  );
  const storage = createConnectorStorage(createServiceStores(mongo, { logger }), secrets);
  await storage.ensureIndexes();
  const api = createPartnerApiFactory(secrets, {
    timeoutMs: config.PARTNER_CALL_TIMEOUT_MS,
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
  });
  const registry = new PartnerRegistry({
    partners: storage.partners,
    venueImports: storage.venueImports,
    queue: storage.queue,
    secrets,
    ids: randomIds,
    clock,
    imports: importer,
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
  const relay = createOutboxRelay({
    sources: storage.outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    try {
      await scheduler.tick(Date.now());
    } catch (error) {
      logger.error({ err: error }, 'scheduler tick failed');
    } finally {
      ticking = false;
    }
  };
  return {
    grpc: [partnerAdminGrpc(registry)],
    start: async () => {
      await relay.start();
      timer = setInterval(() => void tick(), tickMs(config));
      timer.unref();
    },
    stop: async () => {
      clearInterval(timer);
      await relay.stop();
    },
  };
}
