import { contactKeysOf } from '@marquee/proto/order-contact';
import {
  createIdempotency,
  idempotencySecrets,
  type Idempotency,
} from '@marquee/platform/idempotency';
import { detachedFromCall } from '@marquee/platform/grpc';
import { systemClock } from '@marquee/platform/kernel';
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
import {
  admissionKeyOf,
  orderTokenBox,
  orderTokenKeys,
  sha256Hasher,
} from './adapters/secret-box.js';
import { createCartStorage } from './adapters/stores.js';
import { createStripeClient, createStripeProcessor } from './adapters/stripe-processor.js';
import { rememberingLatestHits } from './adapters/tracking-cache.js';
import {
  CartApp,
  InMemorySoldOutBook,
  soldOutTtlOf,
  tellingPlacesBack,
  type CartSettings,
} from './app/index.js';
import type {
  Clock,
  Log,
  PartnerConnector,
  PaymentProcessor,
  SecretBox,
  SoldOutBook,
} from './app/ports.js';
import { pendingResumeMs, type CartConfig } from './config.js';
import { parseMaintenanceWindow } from './domain/maintenance.js';
import { DurableProjection } from './adapters/durable-projection.js';
import {
  EventProjectionStore,
  type EventProjectionDoc,
} from './adapters/event-projection-store.js';
import { availabilityChangedHandler, eventChangedHandler } from './ports/kafka/event-projection.js';
import { cartGrpc } from './ports/grpc/cart-grpc.js';
import { fanDeletedHandler } from './ports/kafka/fan-deleted.js';
import { composeCommerce, createCommerceStorage, type AccessCodes } from './commerce/index.js';
import {
  cartOrderLookup,
  composeTopPicks,
  connectorLiveSeats,
  createTopPicksStorage,
  projectionEventSource,
  secureEntryAdmittedSeats,
  type AdmittedSeats,
} from './top-picks/index.js';
import { composeWaitingRoom, createWaitingRoomStorage } from './waiting-room/index.js';

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

type Storage = Awaited<ReturnType<typeof openStorage>>;
type Projection = Awaited<ReturnType<typeof openProjection>>;
type Clients = ReturnType<typeof openClients>;
type TopPicks = ReturnType<typeof composeTopPicks>;
type Commerce = ReturnType<typeof composeCommerce>;

/** Cart's fee schedule, as the cart and the top picks' prices charge it. */
const feesOf = (config: CartConfig) => ({
  serviceFeeBps: config.CART_SERVICE_FEE_BPS,
  serviceFeeMinMinor: config.CART_SERVICE_FEE_MIN_MINOR,
  processingFeeMinor: config.CART_PROCESSING_FEE_MINOR,
  feeTaxBps: config.CART_FEE_TAX_BPS,
});

/** The core's, commerce's and top picks' collections (Mongo or memory, `openServiceStores`). */
async function openStorage(infra: ServiceInfra, config: CartConfig) {
  const { logger } = infra;
  const {
    storage: { idempotency, commerce, topPicks, waitingRoom, ...core },
    kind,
    outboxSources,
    relayout,
  } = await openServiceStores(infra, (stores) => ({
    ...createCartStorage(stores, {
      sandboxAreaCapacity: config.CART_SANDBOX_AREA_CAPACITY,
      contactKeys: contactKeysOf(config.ORDER_CONTACT_KEYS, (message) => logger.warn(message)),
    }),
    commerce: createCommerceStorage(stores),
    topPicks: createTopPicksStorage(stores),
    waitingRoom: createWaitingRoomStorage(stores),
  }));
  return { core, idempotency, commerce, topPicks, waitingRoom, kind, outboxSources, relayout };
}

/**
 * The event projection, read and applied in memory, every topic read whole at each start; with
 * Mongo, DurableProjection loads it from and writes it behind to the `events` collection.
 */
async function openProjection(storage: Storage, clock: Clock, logger: ServiceInfra['logger']) {
  const durable =
    storage.kind === 'mongo'
      ? new DurableProjection(
          createMemoryStore<EventProjectionDoc>({ name: 'events' }),
          storage.core.events,
          logger,
        )
      : undefined;
  const events = new EventProjectionStore(
    durable ? durable.memory : storage.core.events,
    () => clock.now(),
    (eventId) => durable?.changed(eventId),
  );
  if (durable) {
    const loaded = await durable.load();
    logger.info({ events: loaded }, 'event projection loaded');
  }
  return { events, durable };
}

/** The gRPC clients cart opens itself (tests give their own connector and admitted seats). */
function openClients(
  config: CartConfig,
  options: CartComposeOptions,
  logger: ServiceInfra['logger'],
) {
  const deadline = { deadlineMs: config.CONNECTOR_DEADLINE_MS, logger };
  const connector = options.connector
    ? undefined
    : createConnectorClient(config.GRPC_ADDR_3P_CONNECTOR, deadline);
  const entrySeats = options.admittedSeats
    ? undefined
    : secureEntryAdmittedSeats(config.GRPC_ADDR_SECURE_ENTRY, deadline);
  return {
    connector: options.connector ?? connector!,
    admittedSeats: options.admittedSeats ?? entrySeats!,
    close: () => {
      connector?.close();
      entrySeats?.close();
    },
  };
}

/** What the cart application is told by the config: holds, reserves, retries, fees, URLs. */
function cartSettings(config: CartConfig): CartSettings {
  return {
    reserveWaitMs: config.CART_RESERVE_WAIT_MS,
    maxReservesInFlight: config.CART_MAX_RESERVES_IN_FLIGHT,
    reserveQueueMax: config.CART_RESERVE_QUEUE_MAX,
    reserveQueueWaitMs: config.CART_RESERVE_QUEUE_WAIT_MS,
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
    fees: feesOf(config),
    maintenance: parseMaintenanceWindow(config.CART_MAINTENANCE_WINDOW),
    trackingWindowMs: config.CART_TRACKING_WINDOW_MS,
    termsUrl: config.CART_TERMS_URL,
    secureEntryAgreementUrl: config.CART_SECURE_ENTRY_AGREEMENT_URL,
    redemptionBaseUrl: config.CART_REDEMPTION_BASE_URL,
  };
}

/** The cart application over the core's stores, the connector and the payment processors. */
function createCartApp(input: {
  config: CartConfig;
  storage: Storage;
  events: EventProjectionStore;
  resale: TopPicks['app'];
  connector: PartnerConnector;
  secrets: SecretBox;
  clock: Clock;
  logger: ServiceInfra['logger'];
  soldOutBook: SoldOutBook;
}): CartApp {
  const { config, clock, logger } = input;
  const sandboxProcessor = meteredProcessor(
    createSandboxProcessor({ timeoutMs: config.CART_PAYMENT_TIMEOUT_MS }),
  );
  const chosen = paymentProcessorOf(config, sandboxProcessor, logger);
  return new CartApp({
    ...input.storage.core,
    tracking: rememberingLatestHits(input.storage.core.tracking, {
      ttlMs: config.CART_TRACKING_CACHE_MS,
      now: () => clock.now().getTime(),
    }),
    events: input.events,
    resale: input.resale,
    detach: detachedFromCall,
    connector: input.connector,
    // Production-prefix carts: Stripe when configured (README, "Payment"); sandbox carts: sandbox.
    processor: chosen === sandboxProcessor ? chosen : meteredProcessor(chosen),
    sandboxProcessor,
    secrets: input.secrets,
    ids: randomIds,
    hasher: sha256Hasher,
    clock,
    log: logger,
    settings: cartSettings(config),
    soldOutBook: input.soldOutBook,
  });
}

/**
 * Both projection topics whole, in this process (a global table, as catalog-indexer's):
 * event-changed is compacted, availability-changed kept a day; the version and sequence rules make
 * any order of reading, and what `load` brought, converge.
 */
async function subscribeProjection(
  infra: ServiceInfra,
  config: CartConfig,
  options: CartComposeOptions,
  { events, durable }: Projection,
) {
  const { bus, logger } = infra;
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
  return { eventFeed, availabilityFeed, caughtUp };
}

/**
 * The consumer groups of cart, one per database like every read model's: admissions at the gates
 * withdraw live resale listings of the admitted seats; a deleted fan's order contacts are erased.
 */
async function subscribeGroups(
  infra: ServiceInfra,
  config: CartConfig,
  app: CartApp,
  topPicks: TopPicks,
): Promise<void> {
  await infra.bus.subscribe(
    ticketScannedTopic,
    {
      group: `${readModelConsumerGroup(config, 'cart')}.ticket-scanned`,
      maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
    },
    topPicks.ticketScanned,
  );
  await infra.bus.subscribe(
    fanDeletedTopic,
    {
      group: `${readModelConsumerGroup(config, 'cart')}.fan-deleted`,
      maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
    },
    fanDeletedHandler({ app, log: infra.logger }),
  );
}

/**
 * One sweep at a time per process (replicas are kept apart by compare-and-set), and at most a
 * fifth of the time: the sweeper's queries scan on the dev/CI Mongo-wire server, and a sweep that
 * grew slow must not take the store from the reserves it serves. Expired Idempotency-Key records
 * and ended carts past their retention go once a minute; a full batch of carts (a backlog) brings
 * the next one forward to the next sweep.
 */
function cartSweeper(
  config: CartConfig,
  app: CartApp,
  idempotency: Idempotency,
  commerce: Commerce,
  logger: ServiceInfra['logger'],
) {
  let lastPurge = 0;
  let cartBacklog = false;
  return periodic(
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
}

/**
 * Carts written before `fanId` was kept a field hold it packed, where a deletion's query does not
 * reach: rewritten once, in the background (safe with several replicas; a failure is retried at the
 * next start). Until then such a cart is not found by a fan's deletion.
 */
function relayoutInBackground(storage: Storage, logger: ServiceInfra['logger']): void {
  storage.relayout().then(
    (rewritten) => {
      if (rewritten > 0)
        logger.info({ rewritten }, 'stored documents rewritten by the fields kept today');
    },
    (err: unknown) =>
      logger.warn({ err }, 'rewriting stored documents by the fields kept today failed'),
  );
}

/** Top picks, fan sessions and resale listings (README, "Top picks and resale"). */
function topPicksOf(
  config: CartConfig,
  storage: Storage,
  events: EventProjectionStore,
  clients: Clients,
  clock: Clock,
  logger: ServiceInfra['logger'],
): TopPicks {
  return composeTopPicks({
    storage: storage.topPicks,
    events: projectionEventSource(events, { fees: feesOf(config), now: () => clock.now() }),
    orders: cartOrderLookup(storage.core.orders),
    liveSeats: connectorLiveSeats(clients.connector),
    admittedSeats: clients.admittedSeats,
    logger,
    clock,
    sessionTtlMs: config.CART_FAN_SESSION_TTL_SECONDS * 1000,
  });
}

/** The commerce API (/commerce/v2) on the same app, events and idempotency (src/commerce). */
function commerceOf(
  config: CartConfig,
  options: CartComposeOptions,
  parts: {
    app: CartApp;
    storage: Storage;
    events: EventProjectionStore;
    secrets: SecretBox;
    idempotency: Idempotency;
    clock: Clock;
    logger: ServiceInfra['logger'];
  },
): Commerce {
  return composeCommerce({
    carts: parts.app,
    events: parts.events,
    secrets: parts.secrets,
    fees: parts.app.fees,
    clock: parts.clock,
    idempotency: parts.idempotency,
    logger: parts.logger,
    connectorAddress: config.GRPC_ADDR_3P_CONNECTOR,
    deadlineMs: config.CONNECTOR_DEADLINE_MS,
    ...(options.accessCodes ? { accessCodes: options.accessCodes } : {}),
    passwordFailures: parts.storage.commerce.passwordFailures,
    passwordThrottle: {
      windowMs: config.CART_PRESALE_PASSWORD_WINDOW_SECONDS * 1000,
      perApp: config.CART_PRESALE_PASSWORD_FAILURES_PER_APP,
      perFan: config.CART_PRESALE_PASSWORD_FAILURES_PER_FAN,
    },
  });
}

/**
 * Composition root of cart: storage (Mongo or memory through `openServiceStores`), the event
 * projection and its two consumers, the cart application over 3p-connector and the payment
 * processors, the slices (commerce, top picks), the sweeper, the outbox relay and gRPC.
 */
export async function composeCart(
  infra: ServiceInfra,
  config: CartConfig,
  options: CartComposeOptions = {},
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const clock = options.clock ?? systemClock;
  const storage = await openStorage(infra, config);
  const projection = await openProjection(storage, clock, logger);
  const { events, durable } = projection;
  const clients = openClients(config, options, logger);
  const tokenKeys = orderTokenKeys(config.CART_ORDER_TOKEN_KEY, (message) => logger.warn(message));
  const secrets = orderTokenBox(tokenKeys);
  const topPicks = topPicksOf(config, storage, events, clients, clock, logger);
  // What the partner answered sold out lately; places coming back reopen a sold-out queue.
  let placesBack = (_eventId: string) => {};
  const settings = cartSettings(config);
  const soldOutBook = tellingPlacesBack(
    new InMemorySoldOutBook(clock, soldOutTtlOf(settings)),
    (eventId) => placesBack(eventId),
  );
  const app = createCartApp({
    ...{ config, storage, events, secrets, clock, logger, soldOutBook },
    resale: topPicks.app,
    connector: clients.connector,
  });
  // Idempotency records answer order and redemption tokens again: sealed, under keys derived from
  // the order token key, and the requests digested with a keyed MAC (README, "Idempotency keys").
  const idempotency = createIdempotency(storage.idempotency, {
    ttlMs: config.IDEMPOTENCY_TTL_MS,
    secrets: idempotencySecrets(tokenKeys),
  });
  const commerce = commerceOf(config, options, {
    ...{ app, storage, events, secrets, idempotency, clock, logger },
  });
  const feeds = await subscribeProjection(infra, config, options, projection);
  await subscribeGroups(infra, config, app, topPicks);
  const relay = createOutboxRelay({
    sources: storage.outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  const sweeper = cartSweeper(config, app, idempotency, commerce, logger);
  const waitingRoom = composeWaitingRoom({
    storage: storage.waitingRoom,
    admissionKey: admissionKeyOf(tokenKeys),
    ...{ clock, logger, soldOutBook },
    tickMs: config.CART_QUEUE_TICK_MS,
    holdings: { carts: storage.core.carts, defaultLimit: config.CART_HELD_TICKETS_PER_EVENT },
  });
  placesBack = (eventId) => waitingRoom.gate.placesReturned(eventId);

  return {
    grpc: [
      cartGrpc(app, idempotency, waitingRoom.gate),
      commerce.grpc,
      topPicks.grpc,
      waitingRoom.grpc,
    ],
    // Not ready (no traffic) until the projection has what the topics held at start. Mongo is not
    // in it: a shared dependency, probed by the platform for metrics and logs (hostService).
    readiness: {
      'event-changed': async () => feeds.eventFeed.caughtUp(),
      'availability-changed': async () => feeds.availabilityFeed.caughtUp(),
    },
    start: async () => {
      await relay.start();
      topPicks.start();
      // Written behind once caught up, so a replayed event is written once, not per record.
      void feeds.caughtUp.then(() => durable?.start(PROJECTION_WRITE_BEHIND_MS));
      sweeper.start();
      waitingRoom.start();
      relayoutInBackground(storage, logger);
    },
    stop: async () => {
      await sweeper.stop();
      await waitingRoom.stop();
      await app.drain();
      await durable?.stop();
      await relay.stop();
      clients.close();
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
