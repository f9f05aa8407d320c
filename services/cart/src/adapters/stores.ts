import { DEVELOPMENT_CONTACT_KEYS, type ContactKey } from '@marquee/proto/order-contact';
import { AppError } from '@marquee/platform/errors';
import { idempotencyIndexes, type IdempotencyRecord } from '@marquee/platform/idempotency';
import { metrics } from '@marquee/platform/metrics';
import { createOutboxEvent, type OutboxEvent } from '@marquee/platform/outbox';
import {
  isVersionConflict,
  type ServiceCollection,
  type ServiceStores,
  type VersionedStore,
} from '@marquee/platform/store';
import {
  bookingExpiredTopic,
  bookingHeldTopic,
  bookingReleasedTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  orderPrintedTopic,
  paymentCapturedTopic,
  paymentRefundedTopic,
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
import { FINAL_STATUSES, type Cart, type HeldTicket } from '../domain/cart.js';
import type { Order } from '../domain/order.js';
import type { EventProjectionDoc } from './event-projection-store.js';
import {
  bookingExpiredMessage,
  bookingHeldMessage,
  bookingReleasedMessage,
  orderCancelledMessage,
  orderConfirmedMessage,
  orderPrintedMessage,
  paymentCapturedMessage,
  paymentRefundedMessage,
} from './messages.js';

type CartDoc = Stored<Cart>;
type OrderDoc = Stored<Order>;
type TrackingDoc = Stored<TrackingHit>;

const MAX_CAS_ATTEMPTS = 32;

const isKind = (error: unknown, kind: string): boolean =>
  (error as { kind?: unknown } | null)?.kind === kind;

function withoutVersion<T extends { version: number }>(doc: T): Omit<T, 'version'> {
  const { version: _version, ...rest } = doc;
  return rest;
}

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
    async deleteAt(id, version) {
      try {
        return await store.delete(id, version);
      } catch (error) {
        if (isVersionConflict(error)) return false;
        throw error;
      }
    },
  };
}

/** Orders confirmed and cancelled, counted when written with their `order-*` event. */
const ordersConfirmed = metrics.counter('marquee_orders_confirmed', {
  description: 'Orders confirmed (written with their order-confirmed event)',
});
const ordersCancelled = metrics.counter('marquee_orders_cancelled', {
  description: 'Orders cancelled (written with their order-cancelled event)',
});

export function orderRepository(
  store: VersionedStore<OrderDoc>,
  contactKeys: readonly ContactKey[],
): OrderRepository {
  return {
    get: (id) => store.get(id),
    insertConfirmed: async (order) => {
      const stored = await store.insert(
        { ...order },
        {
          events: [
            createOutboxEvent(orderConfirmedTopic, {
              key: order.id,
              value: orderConfirmedMessage(order, contactKeys),
              time: order.confirmedAt,
            }),
          ],
        },
      );
      ordersConfirmed.add(1);
      return stored;
    },
    updateCancelled: async (order, expectedVersion, ticketIds = []) => {
      const stored = await store.update(
        order.id,
        expectedVersion,
        { ...order },
        {
          events: [
            createOutboxEvent(orderCancelledTopic, {
              key: order.id,
              value: orderCancelledMessage(order, ticketIds),
              ...(order.cancelledAt ? { time: order.cancelledAt } : {}),
            }),
          ],
        },
      );
      ordersCancelled.add(1);
      return stored;
    },
    updatePayment: (order, expectedVersion, refunded = []) =>
      store.update(
        order.id,
        expectedVersion,
        { ...order },
        {
          events: refunded.map((refund) =>
            createOutboxEvent(paymentRefundedTopic, {
              key: order.id,
              value: paymentRefundedMessage(order, refund),
              time: refund.at,
            }),
          ),
        },
      ),
    async findByPaymentId(paymentId) {
      const [found] = await store.find({ paymentId }, { limit: 1 });
      return found;
    },
    listByFan: (fanId, limit) => store.find({ fanId }, { limit }),
    updateContactErased: (order, expectedVersion) =>
      store.update(order.id, expectedVersion, { ...order }),
    updateTicketCancelPending: (order, expectedVersion) =>
      store.update(order.id, expectedVersion, { ...order }),
    findTicketCancelDue: (now, limit) =>
      store.find({ ticketCancelDueAt: { $lte: now } }, { sort: { ticketCancelDueAt: 1 }, limit }),
    findRefundDue: (now, limit) =>
      store.find({ refundDueAt: { $lte: now } }, { sort: { refundDueAt: 1 }, limit }),
    updatePrinted: (order, expectedVersion) => {
      const at = new Date();
      return store.update(
        order.id,
        expectedVersion,
        { ...order },
        {
          events: [
            createOutboxEvent(orderPrintedTopic, {
              key: order.id,
              value: orderPrintedMessage(order, at),
              time: at,
            }),
          ],
        },
      );
    },
    async listByBuyer(buyer) {
      const docs = await store.find(
        {
          appId: buyer.appId,
          eventId: buyer.eventId,
          sandbox: false,
          status: 'CONFIRMED',
          ...(buyer.fanId !== undefined ? { fanId: buyer.fanId } : {}),
          ...(buyer.thirdPartyAccountId !== undefined
            ? { thirdPartyAccountId: buyer.thirdPartyAccountId }
            : {}),
        },
        { limit: buyer.limit },
      );
      return docs.map(withoutVersion);
    },
    async listByOwner(owner) {
      const docs = await store.find(
        {
          appId: owner.appId,
          sandbox: owner.sandbox,
          ...(owner.fanId !== undefined ? { fanId: owner.fanId } : {}),
          ...(owner.eventId ? { eventId: owner.eventId } : {}),
          ...(owner.status ? { status: owner.status } : {}),
        },
        { sort: { confirmedAt: -1 }, limit: owner.limit },
      );
      return docs.map(withoutVersion);
    },
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
        if (!isKind(error, 'already_exists')) throw error;
      }
    },
  };
}

export function paymentAttemptRepository(
  store: VersionedStore<Stored<PaymentAttempt>>,
): PaymentAttemptRepository {
  const raced = (error: unknown) => isVersionConflict(error) || isKind(error, 'not_found');
  return {
    async record(cartId, checkAt) {
      try {
        await store.insert({ id: cartId, checkAt });
      } catch (error) {
        if (!isKind(error, 'already_exists')) throw error;
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

// ------------------------------------------------------------------------------------------------
// Sandbox inventory

interface SandboxHold {
  cartId: string;
  quantity: number;
  seats: string[];
  expiresAt: Date;
}

/** One area of an event's sandbox inventory: capacity, sold count and live holds. */
export interface SandboxAreaDoc {
  id: string;
  version: number;
  eventId: string;
  areaId: string;
  generalAdmission: boolean;
  capacity: number;
  sold: number;
  /** Next seat number given out (sandbox seats are numbered in order and never reused). */
  nextSeat: number;
  holds: SandboxHold[];
}

const sandboxId = (eventId: string, areaId: string) => `${eventId}:${areaId}`;

const noSandboxInventory = () =>
  new AppError('resource_exhausted', 'the sandbox inventory cannot hold these tickets', {
    details: { reason: '20052' },
  });

/**
 * The sandbox inventory over the store: a hold is a compare-and-set on its area's document, which
 * counts sold tickets and live holds (expired holds no longer count), so concurrent sandbox carts
 * never oversell an area either.
 */
export function sandboxInventory(
  store: VersionedStore<SandboxAreaDoc>,
  defaultCapacity: number,
): SandboxInventory {
  const change = async (
    id: string,
    create: () => Omit<SandboxAreaDoc, 'version'>,
    apply: (doc: Omit<SandboxAreaDoc, 'version'>) => Omit<SandboxAreaDoc, 'version'> | undefined,
  ): Promise<Omit<SandboxAreaDoc, 'version'> | undefined> => {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await store.get(id);
      const current = stored ? withoutVersion(stored) : create();
      const next = apply(structuredClone(current));
      if (!next) return undefined;
      try {
        if (stored) await store.update(id, stored.version, next);
        else await store.insert(next);
        return next;
      } catch (error) {
        const raced = isVersionConflict(error) || isKind(error, 'already_exists');
        if (!raced || attempt >= MAX_CAS_ATTEMPTS) throw error;
      }
    }
  };

  const releaseAll = async (eventId: string, cartId: string) => {
    const docs = await store.find({ eventId });
    for (const doc of docs) {
      if (!doc.holds.some((h) => h.cartId === cartId)) continue;
      await change(
        doc.id,
        () => withoutVersion(doc),
        (d) => ({
          ...d,
          holds: d.holds.filter((h) => h.cartId !== cartId),
        }),
      );
    }
  };

  return {
    async hold({ eventId, cartId, lines, areas, expiresAt, now }) {
      // A resumed attempt starts from nothing: holds of an earlier attempt are given back first.
      await releaseAll(eventId, cartId);
      const tickets: Omit<HeldTicket, 'faceValueMinor' | 'areaDescription'>[] = [];
      let n = 0;
      for (const line of lines) {
        let held: SandboxHold | undefined;
        let heldArea: (typeof areas)[number] | undefined;
        for (const areaId of line.areaIds) {
          const area = areas.find((a) => a.areaId === areaId);
          if (!area) continue;
          const total = area.available + area.unavailable;
          const written = await change(
            sandboxId(eventId, areaId),
            () => ({
              id: sandboxId(eventId, areaId),
              eventId,
              areaId,
              generalAdmission: area.generalAdmission,
              capacity: total > 0 ? total : defaultCapacity,
              sold: 0,
              nextSeat: 1,
              holds: [],
            }),
            (doc) => {
              const live = doc.holds.filter((h) => h.expiresAt.getTime() > now.getTime());
              const taken = doc.sold + live.reduce((s, h) => s + h.quantity, 0);
              if (doc.capacity - taken < line.quantity) return undefined;
              const seats = doc.generalAdmission
                ? []
                : Array.from({ length: line.quantity }, (_, i) => String(doc.nextSeat + i));
              held = { cartId, quantity: line.quantity, seats, expiresAt };
              return {
                ...doc,
                nextSeat: doc.nextSeat + (doc.generalAdmission ? 0 : line.quantity),
                holds: [...doc.holds, held],
              };
            },
          );
          if (written) {
            heldArea = area;
            break;
          }
        }
        if (!held || !heldArea) {
          await releaseAll(eventId, cartId);
          throw noSandboxInventory();
        }
        for (let i = 0; i < line.quantity; i += 1) {
          n += 1;
          tickets.push({
            ticketId: `${cartId}-${n}`,
            areaId: heldArea.areaId,
            section: heldArea.sectionId,
            row: heldArea.generalAdmission ? '' : 'SBX',
            seat: held.seats[i] ?? '',
            priceLevelId: heldArea.priceLevelId,
            priceTypeId: line.priceTypeId,
            generalAdmission: heldArea.generalAdmission,
          });
        }
      }
      return tickets;
    },
    release: releaseAll,
    async sell(eventId, cartId) {
      const docs = await store.find({ eventId });
      for (const doc of docs) {
        if (!doc.holds.some((h) => h.cartId === cartId)) continue;
        await change(
          doc.id,
          () => withoutVersion(doc),
          (d) => {
            const mine = d.holds.filter((h) => h.cartId === cartId);
            if (mine.length === 0) return undefined;
            return {
              ...d,
              sold: d.sold + mine.reduce((s, h) => s + h.quantity, 0),
              holds: d.holds.filter((h) => h.cartId !== cartId),
            };
          },
        );
      }
    },
  };
}
