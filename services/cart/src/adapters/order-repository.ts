import type { ContactKey } from '@marquee/proto/order-contact';
import { metrics } from '@marquee/platform/metrics';
import { createOutboxEvent } from '@marquee/platform/outbox';
import type { VersionedStore } from '@marquee/platform/store';
import {
  orderCancelledTopic,
  orderConfirmedTopic,
  orderPrintedTopic,
  paymentRefundedTopic,
} from '@marquee/proto/topics';
import type { OrderRepository, Stored } from '../app/ports.js';
import type { Order } from '../domain/order.js';
import {
  orderCancelledMessage,
  orderConfirmedMessage,
  orderPrintedMessage,
  paymentRefundedMessage,
} from './messages.js';
import { withoutVersion } from '@marquee/platform/kernel';

export type OrderDoc = Stored<Order>;

type OrderWrites = Pick<
  OrderRepository,
  | 'insertConfirmed'
  | 'updateCancelled'
  | 'updatePayment'
  | 'updatePrinted'
  | 'updateContactErased'
  | 'updateTicketCancelPending'
>;
type OrderQueries = Omit<OrderRepository, keyof OrderWrites>;

/** Orders confirmed and cancelled, counted when written with their `order-*` event. */
const ordersConfirmed = metrics.counter('marquee_orders_confirmed', {
  description: 'Orders confirmed (written with their order-confirmed event)',
});
const ordersCancelled = metrics.counter('marquee_orders_cancelled', {
  description: 'Orders cancelled (written with their order-cancelled event)',
});

/** The writes of orders: each one that publishes writes its topic record in the same document. */
function orderWrites(
  store: VersionedStore<OrderDoc>,
  contactKeys: readonly ContactKey[],
): OrderWrites {
  return {
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
    updateContactErased: (order, expectedVersion) =>
      store.update(order.id, expectedVersion, { ...order }),
    updateTicketCancelPending: (order, expectedVersion) =>
      store.update(order.id, expectedVersion, { ...order }),
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
  };
}

/** The reads of orders, each over an index of the `orders` collection. */
function orderQueries(store: VersionedStore<OrderDoc>): OrderQueries {
  return {
    get: (id) => store.get(id),
    async findByPaymentId(paymentId) {
      const [found] = await store.find({ paymentId }, { limit: 1 });
      return found;
    },
    listByFan: (fanId, limit) => store.find({ fanId }, { limit }),
    findTicketCancelDue: (now, limit) =>
      store.find({ ticketCancelDueAt: { $lte: now } }, { sort: { ticketCancelDueAt: 1 }, limit }),
    findRefundDue: (now, limit) =>
      store.find({ refundDueAt: { $lte: now } }, { sort: { refundDueAt: 1 }, limit }),
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

/** Orders over the `orders` collection; `order-confirmed` seals the buyer's contact with `contactKeys`. */
export function orderRepository(
  store: VersionedStore<OrderDoc>,
  contactKeys: readonly ContactKey[],
): OrderRepository {
  return { ...orderQueries(store), ...orderWrites(store, contactKeys) };
}
