import { periodic, type Periodic } from '@marquee/platform/lifecycle';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { systemClock } from '@marquee/platform/kernel';
import { openServiceStores } from '@marquee/platform/store';
import {
  allTopics,
  bookingHeldTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  partnerCallFailedTopic,
  paymentCapturedTopic,
} from '@marquee/proto/topics';
import { createConnectorClient } from './adapters/connector-client.js';
import { createReconcilerStorage } from './adapters/stores.js';
import type { PartnerConnector } from './app/ports.js';
import { ReconcilerApp } from './app/reconciler-app.js';
import type { ReconcilerConfig } from './config.js';
import { reconcilerGrpc } from './ports/grpc/reconciler-grpc.js';
import {
  bookingHeldHandler,
  orderCancelledHandler,
  orderConfirmedHandler,
  partnerCallFailedHandler,
  paymentCapturedHandler,
} from './ports/kafka/handlers.js';

/** `booking-held` records of one partition recorded at once (each names its own cart). */
const BOOKING_HELD_KEYS_IN_PARALLEL = 16;

/**
 * Composition root of reconciler: storage (Mongo or memory through `openServiceStores`), the
 * outbox relay for `reconciliation-resolved`, the five consumers, the case worker, the report
 * schedule, the purge of settled transactions and gRPC. Tests may pass their own connector
 * instead of the gRPC client.
 */
export async function composeReconciler(
  infra: ServiceInfra,
  config: ReconcilerConfig,
  options: { connector?: PartnerConnector } = {},
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const { storage, outboxSources } = await openServiceStores(infra, createReconcilerStorage);
  const client = options.connector
    ? undefined
    : createConnectorClient(config.GRPC_ADDR_3P_CONNECTOR, {
        deadlineMs: config.CONNECTOR_DEADLINE_MS,
        logger,
      });
  // 0 keeps every transaction: no retention, no purge.
  const retentionMs = config.TRANSACTION_RETENTION_HOURS * 3_600_000;
  const app = new ReconcilerApp({
    ...storage,
    connector: options.connector ?? client!,
    clock: systemClock,
    log: logger,
    settings: {
      graceMs: config.RECONCILE_GRACE_MS,
      windowMs: config.RECONCILE_WINDOW_MS,
      backoffBaseMs: config.RECONCILE_BACKOFF_MS,
      backoffMaxMs: config.RECONCILE_BACKOFF_MAX_MS,
      lookbackMs: config.REPORT_LOOKBACK_MS,
      ...(retentionMs > 0 ? { retentionMs } : {}),
    },
  });
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });

  const subscription = { group: config.CONSUMER_GROUP, maxAttempts: config.CONSUMER_MAX_ATTEMPTS };
  // One hold a cart: the records of a fetch insert their transactions together (grouped inserts),
  // not one command each. Facts of other topics stay one at a time (an order's facts fold together).
  await bus.subscribe(
    bookingHeldTopic,
    { ...subscription, keysInParallel: BOOKING_HELD_KEYS_IN_PARALLEL },
    bookingHeldHandler(app),
  );
  await bus.subscribe(orderConfirmedTopic, subscription, orderConfirmedHandler(app));
  await bus.subscribe(orderCancelledTopic, subscription, orderCancelledHandler(app));
  await bus.subscribe(paymentCapturedTopic, subscription, paymentCapturedHandler(app));
  await bus.subscribe(partnerCallFailedTopic, subscription, partnerCallFailedHandler(app));

  // One run at a time per job, and at most a fifth of the time (platform `periodic`): a slow
  // partner or a slow store makes the next run wait longer, never overlap.
  const jobs: Periodic[] = [];
  const every = (intervalMs: number, name: string, work: () => Promise<unknown>) => {
    const job = periodic(work, {
      intervalMs,
      onError: (error) => logger.warn({ err: error }, `${name} failed; next run retries`),
    });
    job.start();
    jobs.push(job);
  };

  return {
    grpc: [reconcilerGrpc(app)],
    start: async () => {
      await relay.start();
      every(config.RECONCILE_INTERVAL_MS, 'reconciliation worker', async () => {
        await app.sweepStaleBookings();
        await app.resolveDueCases();
        await app.sweepMoneyChecks();
      });
      if (retentionMs > 0) {
        every(config.TRANSACTION_PURGE_INTERVAL_MS, 'transaction purge', () =>
          app.purgeSettledTransactions(),
        );
      }
      if (config.REPORT_INTERVAL_MS > 0) {
        every(config.REPORT_INTERVAL_MS, 'event reports', () => app.reportActiveEvents());
      }
    },
    stop: async () => {
      await Promise.all(jobs.map((job) => job.stop()));
      await relay.stop();
      client?.close();
    },
  };
}
