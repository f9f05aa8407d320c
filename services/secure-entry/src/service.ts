import { contactKeysOf } from '@marquee/proto/order-contact';
import { busRawPublisher, createOutboxRelay } from '@marquee/platform/outbox';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { systemClock } from '@marquee/platform/kernel';
import { openServiceStores } from '@marquee/platform/store';
import {
  allTopics,
  eventChangedTopic,
  fanDeletedTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  type TopicDef,
} from '@marquee/proto/topics';
import type { OrderConfirmed } from '@marquee/proto/cart/v1';
import { createEntryCrypto, cryptoRandomness, entryKeys } from './adapters/entry-crypto.js';
import { cartOrdersClient } from './adapters/cart-orders.js';
import { createEntryStorage } from './adapters/stores.js';
import { runUntilDone } from './app/backfill-loop.js';
import { FanIdBackfill } from './app/fan-id-backfill.js';
import { FanErasure } from './app/fan-erasure.js';
import type { EntryCrypto, Log, TicketRepository } from './app/ports.js';
import { SecureEntry } from './app/secure-entry.js';
import { TicketSecretReseal } from './app/ticket-secret-reseal.js';
import { consumerGroup, type SecureEntryConfig } from './config.js';
import { secureEntryGrpc } from './ports/grpc/secure-entry-grpc.js';
import {
  eventChangedHandler,
  fanDeletedHandler,
  orderCancelledHandler,
  orderConfirmedHandler,
} from './ports/kafka/handlers.js';

/** How long the re-seal of ticket secrets waits after a store failure before it runs again. */
const RESEAL_RETRY_MS = 60_000;

export interface SecureEntryComposeOptions {
  /**
   * Tests give their own copy of `order-confirmed` (records relayed from the real one), so a fresh
   * database does not replay every order a shared broker holds.
   */
  orderConfirmedTopic?: TopicDef<OrderConfirmed>;
}

/**
 * Composition root of secure-entry: keys and crypto, storage (Mongo or memory), the use cases, the
 * consumers of `order-confirmed`, `order-cancelled`, `event-changed` and `fan-deleted`, the gRPC
 * API and the outbox relay of `ticket-issued`, `ticket-voided` and `ticket-scanned`.
 */
export async function composeSecureEntry(
  infra: ServiceInfra,
  config: SecureEntryConfig,
  options: SecureEntryComposeOptions = {},
): Promise<ServiceParts> {
  const { logger, bus } = infra;
  const keys = entryKeys(
    { tokenKeys: config.SECURE_ENTRY_TOKEN_KEYS, secretKey: config.SECURE_ENTRY_SECRET_KEY },
    (message) => logger.warn(message),
  );
  const crypto = createEntryCrypto(keys);
  const { storage, outboxSources } = await openServiceStores(infra, createEntryStorage);
  const entry = new SecureEntry({
    ...storage,
    crypto,
    random: cryptoRandomness,
    clock: systemClock,
    log: logger,
    refreshHours: config.TOKEN_REFRESH_HOURS_BEFORE_EVENT,
    delayHours: config.DELAYED_DELIVERY_HOURS_BEFORE_EVENT,
    gateCacheMs: config.GATE_CACHE_MS,
    scanLimits: {
      scansPerMinute: config.GATE_SCANS_PER_MINUTE,
      forgedPerMinute: config.GATE_FORGED_SCANS_PER_MINUTE,
    },
  });
  const erasure = new FanErasure({ ...storage, clock: systemClock });
  const group = consumerGroup(config);
  const contactKeys = contactKeysOf(config.ORDER_CONTACT_KEYS, (message) => logger.warn(message));
  await bus.subscribe(
    options.orderConfirmedTopic ?? orderConfirmedTopic,
    { group },
    orderConfirmedHandler({ entry, erasure, logger, contactKeys }),
  );
  await bus.subscribe(orderCancelledTopic, { group }, orderCancelledHandler({ entry }));
  // Its own group: a new database replays the whole event topic from the beginning, and the
  // order topics must not wait behind that replay (one consumer per group takes its partitions in
  // turn).
  await bus.subscribe(
    eventChangedTopic,
    { group: `${group}.events`, fromBeginning: true },
    eventChangedHandler({ entry }),
  );
  // Its own group, read from the beginning like the event topic: a new database, rebuilt from
  // order-confirmed, must learn every erasure the topic still holds.
  await bus.subscribe(
    fanDeletedTopic,
    { group: `${group}.fan-deleted`, fromBeginning: true },
    fanDeletedHandler({ erasure, logger }),
  );
  const relay = createOutboxRelay({
    sources: outboxSources,
    publish: busRawPublisher(bus, allTopics),
    logger,
  });
  const cartOrders = cartOrdersClient(config.GRPC_ADDR_CART, {
    deadlineMs: config.CART_DEADLINE_MS,
    logger,
  });
  const backfill = new FanIdBackfill({ ...storage, cartOrders, clock: systemClock });
  const reseal = ticketSecretReseal(keys.secretKeys.length, storage.tickets, crypto, logger);
  let backfilling: { stop(): void } | undefined;
  return {
    grpc: [secureEntryGrpc(entry)],
    start: async () => {
      await relay.start();
      // Orders stored before secure-entry kept the fan id get it from cart, once; in the
      // background, so readiness never waits for cart (which may start after this service).
      backfilling = runUntilDone(() => backfill.run(), {
        retryMs: config.FAN_ID_BACKFILL_RETRY_MS,
        log: logger,
        what: 'fan id backfill of older orders',
      });
      reseal.start();
    },
    stop: async () => {
      backfilling?.stop();
      reseal.stop();
      cartOrders.close();
      await relay.stop();
    },
  };
}

/**
 * While SECURE_ENTRY_SECRET_KEY holds several keys (a rotation), every start re-seals, in the
 * background, the ticket secrets the first key did not seal, so the others can be dropped; with
 * one key there is nothing to do.
 */
function ticketSecretReseal(
  ringSize: number,
  tickets: TicketRepository,
  crypto: EntryCrypto,
  log: Log,
): { start(): void; stop(): void } {
  let running: { stop(): void } | undefined;
  const reseal = new TicketSecretReseal({ tickets, crypto, log });
  return {
    start() {
      if (ringSize < 2) return;
      running = runUntilDone(() => reseal.run(), {
        retryMs: RESEAL_RETRY_MS,
        log,
        what: `re-seal of ticket secrets under key ${crypto.secretKeyId}`,
      });
    },
    stop: () => running?.stop(),
  };
}
