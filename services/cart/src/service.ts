import { contactKeysOf } from '@marquee/proto/order-contact';
import { createIdempotency, idempotencySecrets } from '@marquee/platform/idempotency';
import { detachedFromCall } from '@marquee/platform/grpc';
import { periodic } from '@marquee/platform/lifecycle';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { readModelConsumerGroup } from '@marquee/platform/service';
import { createMemoryStore, openServiceStores } from '@marquee/platform/store';
import {
  allTopics,
  availabilityChangedTopic,
  eventChangedTopic,
  fanDeletedTopic,
  ticketScannedTopic,
  type TopicDef,
} from '@marquee/proto/topics';
import type { AvailabilityChanged, EventChanged } from '@marquee/proto/catalog/v1';
import { createConnectorClient } from './adapters/connector-client.js';
import { randomIds } from './adapters/ids.js';
import { meteredProcessor } from './adapters/metered-processor.js';
import { createSandboxProcessor } from './adapters/sandbox-processor.js';
import { orderTokenBox, orderTokenKeys, sha256Hasher } from './adapters/secret-box.js';
import { createCartStorage } from './adapters/stores.js';
import { createStripeClient, createStripeProcessor } from './adapters/stripe-processor.js';
import { rememberingLatestHits } from './adapters/tracking-cache.js';
import { CartApp } from './app/index.js';
import type { Clock, Log, PartnerConnector, PaymentProcessor } from './app/ports.js';
import { pendingResumeMs, type CartConfig } from './config.js';
import { parseMaintenanceWindow } from './domain/maintenance.js';
import {
  availabilityChangedHandler,
  DurableProjection,
  eventChangedHandler,
  EventProjectionStore,
  type EventProjectionDoc,
} from './events/index.js';
import { cartGrpc } from './ports/grpc/cart-grpc.js';
import { fanDeletedHandler } from './ports/kafka/fan-deleted.js';
import { composeCommerce, type AccessCodes } from './commerce/index.js';
import {
  cartOrderLookup,
  composeTopPicks,
  connectorLiveSeats,
  createTopPicksStorage,
  projectionEventSource,
  secureEntryAdmittedSeats,
  type AdmittedSeats,
} from './top-picks/index.js';

/** How often the changed events of the projection are written behind to Mongo. */
const PROJECTION_WRITE_BEHIND_MS = 1_000;
/** Ended carts deleted per purge pass. */
const PURGE_BATCH = 500;

export interface CartComposeOptions {
  /** Tests give their own connector instead of the gRPC client. */
  connector?: PartnerConnector;
  /** Tests give their own clock (maintenance window, holds). */
  clock?: Clock;
  /** Tests give their own topics so a fresh database does not replay a shared broker. */
  eventTopic?: TopicDef<EventChanged>;
  availabilityTopic?: TopicDef<AvailabilityChanged>;
  /** Tests give their own password check instead of 3p-connector's VerifyAccessCode. */
  accessCodes?: AccessCodes;
  /** Tests give their own admitted seats instead of secure-entry's ListAdmittedSeats. */
  admittedSeats?: AdmittedSeats;
}

/**
 * Composition root of cart: storage (Mongo or memory through `openServiceStores`), the event
 * projection and its two consumers, the cart application over 3p-connector and the payment
 * processors, the sweeper, the outbox relay and gRPC.
 */
export async function composeCart(
  infra: ServiceInfra,
  config: CartConfig,
  options: CartComposeOptions = {},
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const clock = options.clock ?? { now: () => new Date() };
  const {
    storage: {
      idempotency: idempotencyStore,
      passwordFailures,
      topPicks: topPicksStorage,
      ...storage
    },
    kind,
    outboxSources,
    relayout,
  } = await openServiceStores(infra, (stores) => ({
    ...createCartStorage(stores, {
      sandboxAreaCapacity: config.CART_SANDBOX_AREA_CAPACITY,
      contactKeys: contactKeysOf(config.ORDER_CONTACT_KEYS, (message) => logger.warn(message)),
    }),
    topPicks: createTopPicksStorage(stores),
  }));
  // The event projection is read and applied in memory, every topic read whole at each start;
  // with Mongo, DurableProjection loads it from and writes it behind to the `events` collection.
  const durable =
    kind === 'mongo'
      ? new DurableProjection(
          createMemoryStore<EventProjectionDoc>({ name: 'events' }),
          storage.events,
          logger,
        )
      : undefined;
  const events = new EventProjectionStore(
    durable ? durable.memory : storage.events,
    () => clock.now(),
    (eventId) => durable?.changed(eventId),
  );
  if (durable) {
    const loaded = await durable.load();
    logger.info({ events: loaded }, 'event projection loaded');
  }
  const client = options.connector
    ? undefined
    : createConnectorClient(config.GRPC_ADDR_3P_CONNECTOR, {
        deadlineMs: config.CONNECTOR_DEADLINE_MS,
        logger,
      });
  const tokenKeys = orderTokenKeys(config.CART_ORDER_TOKEN_KEY, (message) => logger.warn(message));
  const secrets = orderTokenBox(tokenKeys);
  const sandboxProcessor = meteredProcessor(
    createSandboxProcessor({ timeoutMs: config.CART_PAYMENT_TIMEOUT_MS }),
  );
  const entrySeats = options.admittedSeats
    ? undefined
    : secureEntryAdmittedSeats(config.GRPC_ADDR_SECURE_ENTRY, {
        deadlineMs: config.CONNECTOR_DEADLINE_MS,
        logger,
      });
  const chosen = paymentProcessorOf(config, sandboxProcessor, logger);
  const processor = chosen === sandboxProcessor ? chosen : meteredProcessor(chosen);
  // Top picks, fan sessions and resale listings (README, "Top picks and resale").
  const topPicks = composeTopPicks({
    storage: topPicksStorage,
    events: projectionEventSource(events, {
      fees: {
        serviceFeeBps: config.CART_SERVICE_FEE_BPS,
        serviceFeeMinMinor: config.CART_SERVICE_FEE_MIN_MINOR,
        processingFeeMinor: config.CART_PROCESSING_FEE_MINOR,
        feeTaxBps: config.CART_FEE_TAX_BPS,
      },
      now: () => clock.now(),
    }),
    orders: cartOrderLookup(storage.orders),
    liveSeats: connectorLiveSeats(options.connector ?? client!),
    admittedSeats: options.admittedSeats ?? entrySeats!,
    logger,
    clock,
    sessionTtlMs: config.CART_FAN_SESSION_TTL_SECONDS * 1000,
  });
  const app = new CartApp({
    ...storage,
    tracking: rememberingLatestHits(storage.tracking, {
      ttlMs: config.CART_TRACKING_CACHE_MS,
      now: () => clock.now().getTime(),
    }),
    events,
    resale: topPicks.app,
    detach: detachedFromCall,
    connector: options.connector ?? client!,
    // Production-prefix carts: Stripe when configured (README, "Payment"); sandbox carts: sandbox.
    processor,
    sandboxProcessor,
    secrets,
    ids: randomIds,
    hasher: sha256Hasher,
    clock,
    log: logger,
    settings: {
      reserveWaitMs: config.CART_RESERVE_WAIT_MS,
      maxReservesInFlight: config.CART_MAX_RESERVES_IN_FLIGHT,
      soldOutHintMs: config.CART_SOLD_OUT_HINT_MS,
      pollAfterSeconds: config.CART_POLL_AFTER_SECONDS,
      reserveAttempts: config.CART_RESERVE_ATTEMPTS,
      reserveRetryMs: config.CART_RESERVE_RETRY_MS,
      pendingStaleMs: pendingResumeMs(config),
      owedRetryMs: config.CART_OWED_RETRY_MS,
      // A partial cancel's partner call ends within the connector's deadline: asked again after it.
      ticketCancelRetryMs: config.CONNECTOR_DEADLINE_MS + 5_000,
      commitGraceMs: config.CART_COMMIT_GRACE_MS,
      ...(config.CART_ENDED_RETENTION_HOURS > 0
        ? { endedRetentionMs: config.CART_ENDED_RETENTION_HOURS * 3_600_000 }
        : {}),
      sandboxHoldSeconds: config.CART_SANDBOX_HOLD_SECONDS,
      maxHoldSeconds: config.CART_MAX_HOLD_SECONDS,
      heldTicketsPerEvent: config.CART_HELD_TICKETS_PER_EVENT,
      fees: {
        serviceFeeBps: config.CART_SERVICE_FEE_BPS,
        serviceFeeMinMinor: config.CART_SERVICE_FEE_MIN_MINOR,
        processingFeeMinor: config.CART_PROCESSING_FEE_MINOR,
        feeTaxBps: config.CART_FEE_TAX_BPS,
      },
      maintenance: parseMaintenanceWindow(config.CART_MAINTENANCE_WINDOW),
      trackingWindowMs: config.CART_TRACKING_WINDOW_MS,
      termsUrl: config.CART_TERMS_URL,
      secureEntryAgreementUrl: config.CART_SECURE_ENTRY_AGREEMENT_URL,
      redemptionBaseUrl: config.CART_REDEMPTION_BASE_URL,
    },
  });
  // Idempotency records answer order and redemption tokens again: sealed, under keys derived from
  // the order token key, and the requests digested with a keyed MAC (README, "Idempotency keys").
  const idempotency = createIdempotency(idempotencyStore, {
    ttlMs: config.IDEMPOTENCY_TTL_MS,
    secrets: idempotencySecrets(tokenKeys),
  });

  // The commerce API (/commerce/v2) on the same app, events and idempotency (src/commerce).
  const commerce = composeCommerce({
    carts: app,
    events,
    secrets,
    fees: app.fees,
    clock,
    idempotency,
    logger,
    connectorAddress: config.GRPC_ADDR_3P_CONNECTOR,
    deadlineMs: config.CONNECTOR_DEADLINE_MS,
    ...(options.accessCodes ? { accessCodes: options.accessCodes } : {}),
    passwordFailures,
    passwordThrottle: {
      windowMs: config.CART_PRESALE_PASSWORD_WINDOW_SECONDS * 1000,
      perApp: config.CART_PRESALE_PASSWORD_FAILURES_PER_APP,
      perFan: config.CART_PRESALE_PASSWORD_FAILURES_PER_FAN,
    },
  });

  // Both topics whole, in this process (a global table, as catalog-indexer's): event-changed is
  // compacted, availability-changed kept a day; the version and sequence rules make any order of
  // reading, and what `load` brought, converge.
  const started = performance.now();
  const eventFeed = await bus.subscribeGlobal(
    options.eventTopic ?? eventChangedTopic,
    { name: `${infra.name}.event-changed`, maxAttempts: config.CONSUMER_MAX_ATTEMPTS },
    eventChangedHandler(events),
  );
  const availabilityFeed = await bus.subscribeGlobal(
    options.availabilityTopic ?? availabilityChangedTopic,
    { name: `${infra.name}.availability-changed`, maxAttempts: config.CONSUMER_MAX_ATTEMPTS },
    availabilityChangedHandler(events),
  );
  const caughtUp = Promise.all([eventFeed.whenCaughtUp(), availabilityFeed.whenCaughtUp()]).then(
    () =>
      logger.info(
        { ms: Math.round(performance.now() - started), unwritten: durable?.pending ?? 0 },
        'event projection caught up with event-changed and availability-changed',
      ),
  );
  // Admissions at the gates withdraw live resale listings of the admitted seats: one consumer
  // group for the service, tied to its database like every read model's.
  await bus.subscribe(
    ticketScannedTopic,
    {
      group: `${readModelConsumerGroup(config, 'cart')}.ticket-scanned`,
      maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
    },
    topPicks.ticketScanned,
  );
  // A deleted fan's order contacts are erased: one consumer group per database, like the above.
  await bus.subscribe(
    fanDeletedTopic,
    {
      group: `${readModelConsumerGroup(config, 'cart')}.fan-deleted`,
      maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
    },
    fanDeletedHandler({ app, log: logger }),
  );
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });

  // One sweep at a time per process (replicas are kept apart by compare-and-set), and at most a
  // fifth of the time: the sweeper's queries scan on the dev/CI Mongo-wire server, and a sweep
  // that grew slow must not take the store from the reserves it serves.
  // Expired Idempotency-Key records and ended carts past their retention go once a minute; a
  // full batch of carts (a backlog) brings the next one forward to the next sweep.
  let lastPurge = 0;
  let cartBacklog = false;
  const sweeper = periodic(
    async () => {
      await app.sweep();
      const minuteUp = Date.now() - lastPurge > 60_000;
      if (minuteUp) {
        lastPurge = Date.now();
        await idempotency.purgeExpired();
        await commerce.purgeExpired();
      }
      if (minuteUp || cartBacklog) cartBacklog = (await app.purgeEnded(PURGE_BATCH)) >= PURGE_BATCH;
    },
    {
      intervalMs: config.CART_SWEEP_INTERVAL_MS,
      onError: (error) => logger.warn({ err: error }, 'cart sweep failed; next run retries'),
    },
  );

  return {
    grpc: [cartGrpc(app, idempotency), commerce.grpc, topPicks.grpc],
    // Not ready (no traffic) until the projection has what the topics held at start. Mongo is not
    // in it: a shared dependency, probed by the platform for metrics and logs (hostService).
    readiness: {
      'event-changed': async () => eventFeed.caughtUp(),
      'availability-changed': async () => availabilityFeed.caughtUp(),
    },
    start: async () => {
      await relay.start();
      topPicks.start();
      // Written behind once caught up, so a replayed event is written once, not per record.
      void caughtUp.then(() => durable?.start(PROJECTION_WRITE_BEHIND_MS));
      sweeper.start();
      // Carts written before `fanId` was kept a field hold it packed, where a deletion's query
      // does not reach: rewritten once, in the background (safe with several replicas; a failure
      // is retried at the next start). Until then such a cart is not found by a fan's deletion.
      relayout().then(
        (rewritten) => {
          if (rewritten > 0)
            logger.info({ rewritten }, 'stored documents rewritten by the fields kept today');
        },
        (err: unknown) =>
          logger.warn({ err }, 'rewriting stored documents by the fields kept today failed'),
      );
    },
    stop: async () => {
      await sweeper.stop();
      await app.drain();
      await durable?.stop();
      await relay.stop();
      client?.close();
      entrySeats?.close();
      commerce.close();
      topPicks.stop();
    },
  };
}

/**
 * The processor of production-prefix carts (`CART_PAYMENT_PROCESSOR`; the config refuses a
 * production start without Stripe and its secrets). Logs which one, never a secret.
 */
export function paymentProcessorOf(
  config: CartConfig,
  sandboxProcessor: PaymentProcessor,
  log: Pick<Log, 'info' | 'warn'>,
): PaymentProcessor {
  if (config.CART_PAYMENT_PROCESSOR !== 'stripe') {
    // Development, or a production test stack (CART_PRODUCTION_SANDBOX_PAYMENTS).
    (config.NODE_ENV === 'production' ? log.warn : log.info).call(
      log,
      { processor: 'sandbox' },
      'production-prefix carts are paid through the sandbox processor: no money is taken',
    );
    return sandboxProcessor;
  }
  const secretKey = config.STRIPE_SECRET_KEY;
  if (!secretKey) throw new Error('CART_PAYMENT_PROCESSOR=stripe needs STRIPE_SECRET_KEY');
  const base = config.STRIPE_API_BASE;
  log.info(
    {
      processor: 'stripe',
      mode: secretKey.includes('_live_') ? 'live' : 'test',
      ...(base ? { api_base: base } : {}),
    },
    'production-prefix carts are paid through Stripe',
  );
  return createStripeProcessor(
    createStripeClient({
      secretKey,
      timeoutMs: config.CART_PAYMENT_TIMEOUT_MS,
      ...(base ? { apiBase: base } : {}),
    }),
  );
}
