import { DEVELOPMENT_CONTACT_KEYS, type ContactKey } from '@marquee/proto/order-contact';
import { idempotencyIndexes, type IdempotencyRecord } from '@marquee/platform/idempotency';
import { errorKindOf } from '@marquee/platform/kernel';
import { metrics } from '@marquee/platform/metrics';
import { createOutboxEvent, type OutboxEvent } from '@marquee/platform/outbox';
import {
  deleteAtVersion,
  isVersionConflict,
  type ServiceCollection,
  type ServiceStores,
  type VersionedStore,
} from '@marquee/platform/store';
import {
  bookingExpiredTopic,
  bookingHeldTopic,
  bookingReleasedTopic,
  paymentCapturedTopic,
} from '@marquee/proto/topics';
import type {
  CartEvent,
  CartRepository,
  OrderRepository,
  PaymentAttempt,
  PaymentAttemptRepository,
  SandboxInventory,
  Stored,
  StripeEventRepository,
  TrackingHit,
  TrackingRepository,
} from '../app/ports.js';
import { listingIdsOf } from '../app/inventory/inventory.js';
import { FINAL_STATUSES, type Cart } from '../domain/cart.js';
import type { EventProjectionDoc } from './event-projection-store.js';
import {
  bookingExpiredMessage,
  bookingHeldMessage,
  bookingReleasedMessage,
  paymentCapturedMessage,
} from './messages.js';
import { orderRepository, type OrderDoc } from './order-repository.js';
import { sandboxInventory, type SandboxAreaDoc } from './sandbox-inventory.js';
import { withoutVersion } from '@marquee/platform/kernel';

type CartDoc = Stored<Cart>;
type TrackingDoc = Stored<TrackingHit>;

/** The collections of cart (memory or Mongo, chosen by `openServiceStores`). */
export interface CartStorage {
  carts: CartRepository;
  orders: OrderRepository;
  tracking: TrackingRepository;
  attempts: PaymentAttemptRepository;
  stripeEvents: StripeEventRepository;
  sandbox: SandboxInventory;
  /** The event projection as stored (the durable copy of the one applied in memory). */
  events: VersionedStore<EventProjectionDoc>;
  /** `Idempotency-Key` records of the partner cart and commerce writes. */
  idempotency: ServiceCollection<IdempotencyRecord>;
}

export function createCartStorage(
  stores: ServiceStores,
  options: {
    sandboxAreaCapacity: number;
    /** Seals the buyer's contact on `order-confirmed`; default: the development ring. */
    contactKeys?: readonly ContactKey[];
  },
): CartStorage {
  // `due`: the sweeper's query (`findDue`) reads only due carts on the single-writer Mongo mode.
  // `endedAt`: the purge of carts ended longer ago than the retention (`findEndedBefore`).
  // `appId, eventId, status`: an app's live carts of an event (`findLive`, its held-ticket quota).
  // `fanId`: a deleted fan's carts (`listByFan`), whose personal data is erased; being indexed, it
  // is kept a field (a cart last written before it was indexed keeps it packed until its next write).
  // Packed: a cart is read and written by id (and by `sweepAt` and `endedAt`) only, and on
  // FerretDB each of the four writes of a reserve and release costs per stored field. Who, what
  // and where stay fields.
  const carts = stores.collection<CartDoc>(
    'carts',
    [
      { fields: { sweepAt: 1 }, due: true },
      { fields: { endedAt: 1 } },
      { fields: { appId: 1, eventId: 1, status: 1 } },
      { fields: { fanId: 1 } },
    ],
    { pack: { keep: ['status', 'appId', 'eventId'] } },
  );
  const orders = stores.collection<OrderDoc>('orders', [
    { fields: { orderNumber: 1 }, unique: true, name: 'order_number_unique' },
    { fields: { appId: 1, confirmedAt: -1 } },
    { fields: { tokenSha256: 1 } },
    // A buyer's orders of an event (`listByBuyer`, the event's ticket limit per buyer).
    { fields: { appId: 1, eventId: 1, status: 1 } },
    // The sweeper's query of refunds owed by cancelled orders (`findRefundDue`).
    { fields: { refundDueAt: 1 }, due: true },
    // The sweeper's query of partial cancels still waiting for the partner (`findTicketCancelDue`).
    { fields: { ticketCancelDueAt: 1 }, due: true },
    // The order of a payment (Stripe's webhook events name the PaymentIntent).
    { fields: { paymentId: 1 } },
    // A fan's orders, whose contact is erased when the fan is deleted (`listByFan`).
    { fields: { fanId: 1 } },
  ]);
  const tracking = stores.collection<TrackingDoc>('tracking_hits', [
    { fields: { appId: 1, eventId: 1, at: -1 } },
  ]);
  const sandbox = stores.collection<SandboxAreaDoc>('sandbox_inventory', [
    { fields: { eventId: 1 } },
  ]);
  const events = stores.collection<EventProjectionDoc>('events');
  const attempts = stores.collection<Stored<PaymentAttempt>>('payment_attempts', [
    { fields: { checkAt: 1 }, due: true },
  ]);
  return {
    carts: cartRepository(carts),
    orders: orderRepository(orders, options.contactKeys ?? DEVELOPMENT_CONTACT_KEYS),
    tracking: trackingRepository(tracking),
    attempts: paymentAttemptRepository(attempts),
    stripeEvents: stripeEventRepository(
      stores.collection<StripeEventDoc>('stripe_events', [{ fields: { at: 1 } }]),
    ),
    sandbox: sandboxInventory(sandbox, options.sandboxAreaCapacity),
    events,
    idempotency: stores.collection<IdempotencyRecord>('idempotency', idempotencyIndexes),
  };
}

function cartOutbox(events: readonly CartEvent[]): OutboxEvent[] {
  return events.map((event) => {
    switch (event.type) {
      case 'booking-held':
        return createOutboxEvent(bookingHeldTopic, {
          key: event.cart.id,
          value: bookingHeldMessage(event.cart),
          time: event.cart.heldAt ?? event.cart.updatedAt,
        });
      case 'booking-released':
        return createOutboxEvent(bookingReleasedTopic, {
          key: event.cart.id,
          value: bookingReleasedMessage(event.cart),
          time: event.cart.updatedAt,
        });
      case 'booking-expired':
        return createOutboxEvent(bookingExpiredTopic, {
          key: event.cart.id,
          value: bookingExpiredMessage(event.cart),
          time: event.cart.updatedAt,
        });
      case 'payment-captured':
        return createOutboxEvent(paymentCapturedTopic, {
          key: event.cart.id,
          value: paymentCapturedMessage(event.cart, event.provider),
          time: event.cart.payment?.capturedAt ?? event.cart.updatedAt,
        });
    }
  });
}

/**
 * Reserves by outcome and tickets held, counted when the cart's state is written: a reserve
 * `held` (PENDING to HELD, or a cart inserted HELD) adds its tickets to
 * `marquee_tickets_held_total`; a reserve that `failed` (PENDING to FAILED) is labelled with its
 * partner cart code (a small fixed set). Carts ending are counted by status (`marquee_carts_ended_total`).
 */
const reserves = metrics.counter('marquee_reserves', {
  description: 'Reserves that ended, by outcome (held, failed) and failure code',
});
const ticketsHeld = metrics.counter('marquee_tickets_held', {
  description: 'Tickets held by reserves (partner, sandbox and resale inventory)',
});
const cartsEnded = metrics.counter('marquee_carts_ended', {
  description: 'Carts that reached a final status (COMMITTED, RELEASED, EXPIRED, FAILED)',
});

function countTransition(before: Cart | undefined, after: Cart): void {
  if (before?.status === after.status) return;
  if (after.status === 'HELD' && (before === undefined || before.status === 'PENDING')) {
    reserves.add(1, { outcome: 'held', code: '' });
    ticketsHeld.add(after.tickets.length, { inventory: inventoryOf(after) });
  } else if (after.status === 'FAILED' && before?.status === 'PENDING') {
    reserves.add(1, { outcome: 'failed', code: after.failure?.code ?? '' });
  }
  if (FINAL_STATUSES.includes(after.status)) cartsEnded.add(1, { status: after.status });
}

const inventoryOf = (cart: Cart): string =>
  listingIdsOf(cart.requests).length > 0 ? 'resale' : cart.sandbox ? 'sandbox' : 'partner';

export function cartRepository(store: VersionedStore<CartDoc>): CartRepository {
  return {
    get: (id) => store.get(id),
    insert: async (cart) => {
      const stored = await store.insert({ ...cart });
      countTransition(undefined, stored);
      return stored;
    },
    modify: async (id, change, events) => {
      // The state the written change was computed from: the last one `change` was given.
      let before: Cart | undefined;
      const written = await store.modify(
        id,
        (current) => {
          before = current;
          const next = change(current);
          return next && { ...withoutVersion(next as CartDoc), id };
        },
        events && { events: (from, after) => cartOutbox(events(from, after as Cart)) },
      );
      if (written && before && (before as Stored<Cart>).version !== written.version)
        countTransition(before, written);
      return written;
    },
    findDue: (now, limit) =>
      store.find({ sweepAt: { $lte: now } }, { sort: { sweepAt: 1 }, limit }),
    findLive: (appId, eventId, limit) =>
      // Unsorted: `createdAt` is packed; the caller orders the few carts it gets.
      store.find({ appId, eventId, status: { $in: ['PENDING', 'HELD', 'PAID'] } }, { limit }),
    listByFan: (fanId, limit) => store.find({ fanId }, { limit }),
    findEndedBefore: (cutoff, limit) =>
      store.find({ endedAt: { $lt: cutoff }, sweepAt: null }, { sort: { endedAt: 1 }, limit }),
    deleteAt: (id, version) => deleteAtVersion(store, id, version),
  };
}

interface StripeEventDoc {
  id: string;
  version: number;
  type: string;
  at: Date;
}

export function stripeEventRepository(
  store: VersionedStore<StripeEventDoc>,
): StripeEventRepository {
  return {
    has: async (eventId) => (await store.get(eventId)) !== undefined,
    async record(eventId, type, at) {
      try {
        await store.insert({ id: eventId, type, at });
      } catch (error) {
        if (errorKindOf(error) !== 'already_exists') throw error;
      }
    },
  };
}

export function paymentAttemptRepository(
  store: VersionedStore<Stored<PaymentAttempt>>,
): PaymentAttemptRepository {
  const raced = (error: unknown) => isVersionConflict(error) || errorKindOf(error) === 'not_found';
  return {
    async record(cartId, checkAt) {
      try {
        await store.insert({ id: cartId, checkAt });
      } catch (error) {
        if (errorKindOf(error) !== 'already_exists') throw error;
      }
    },
    findDue: (now, limit) =>
      store.find({ checkAt: { $lte: now } }, { sort: { checkAt: 1 }, limit }),
    async postpone(attempt, checkAt) {
      try {
        await store.update(attempt.id, attempt.version, { id: attempt.id, checkAt });
        return true;
      } catch (error) {
        if (raced(error)) return false;
        throw error;
      }
    },
    async remove(attempt) {
      try {
        return await store.delete(attempt.id, attempt.version);
      } catch (error) {
        if (raced(error)) return false;
        throw error;
      }
    },
  };
}

export function trackingRepository(store: VersionedStore<TrackingDoc>): TrackingRepository {
  return {
    async insert(hit) {
      await store.insert({ ...hit });
    },
    async latest(appId, eventId, since) {
      const [found] = await store.find(
        { appId, eventId, at: { $gte: since } },
        { sort: { at: -1 }, limit: 1 },
      );
      return found && withoutVersion(found);
    },
  };
}
