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
import { limitedPartnerApis } from './app/partner-limiter.js';
import type { SecretBox } from './app/ports.js';
import { PartnerRegistry } from './app/registry.js';
import { SecretReseal } from './app/secret-reseal.js';
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
  const keys = credentialsKeys(config.PARTNER_CREDENTIALS_KEY, (message) => logger.warn(message));
  const secrets = createSecretBox(keys);
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
  // While PARTNER_CREDENTIALS_KEY holds several keys (a rotation), every start re-seals the stored
  // partner secrets the first key did not seal, so the others can be dropped.
  const reseal =
    keys.length > 1
      ? resealer(new SecretReseal({ stores: storage.sealed, secrets, log: logger }), logger)
      : undefined;
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
      reseal?.start();
    },
    stop: async () => {
      reseal?.stop();
      clearInterval(timer);
      clearInterval(worker);
      await relay.stop();
    },
  };
}

/**
 * The partner HTTP clients, each partner's calls within its capacity: at most
 * PARTNER_MAX_CONCURRENT in flight, a FIFO queue of PARTNER_QUEUE_MAX beyond (app/partner-limiter.ts).
 */
function partnerApis(
  secrets: SecretBox,
  config: ThreePConnectorConfig,
  egress: ReturnType<typeof egressPolicy>,
  logger: Logger,
) {
  const limits = {
    maxConcurrent: config.PARTNER_MAX_CONCURRENT,
    queueMax: config.PARTNER_QUEUE_MAX,
    maxWaitMs: config.PARTNER_CALL_TIMEOUT_MS,
  };
  return limitedPartnerApis(
    createPartnerApiFactory(secrets, {
      timeoutMs: config.PARTNER_CALL_TIMEOUT_MS,
      listingTimeoutMs: config.PARTNER_LISTING_TIMEOUT_MS,
      maxResponseBytes: config.PARTNER_MAX_RESPONSE_BYTES,
      egress,
      logger,
    }),
    () => limits,
  );
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
  const api = partnerApis(secrets, config, egress, logger);
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

/** How long the re-seal of partner secrets waits after a store failure before it runs again. */
const RESEAL_RETRY_MS = 60_000;

/**
 * Runs the re-seal in the background until a pass completes (readiness never waits for it), again
 * `RESEAL_RETRY_MS` after a pass that failed (a store failure); logs the pass's counts.
 */
function resealer(reseal: SecretReseal, logger: Logger) {
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const pass = (): void => {
    if (stopped) return;
    reseal.run().then(
      (report) =>
        logger[report.failed > 0 ? 'warn' : 'info'](
          { report, keyId: reseal.keyId },
          're-seal of partner secrets done',
        ),
      (err: unknown) => {
        logger.warn(
          { err, retryMs: RESEAL_RETRY_MS },
          're-seal of partner secrets failed; retrying',
        );
        if (stopped) return;
        retry = setTimeout(pass, RESEAL_RETRY_MS);
        retry.unref();
      },
    );
  };
  return {
    start: pass,
    stop() {
      stopped = true;
      clearTimeout(retry);
    },
  };
}
