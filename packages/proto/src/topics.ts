/**
 * The Kafka topic catalog: the authoritative list of every topic Marquee produces, with the protobuf
 * message each carries (docs/topics.md describes it). The event bus (`@marquee/platform/bus`) takes
 * these objects; the Helm chart's topic Job, docs/api/asyncapi.yaml and docs/topics.md follow them.
 */
import { AppAuthorized } from './gen/marquee/auth/v1/app.js';
import { FanDeleted } from './gen/marquee/auth/v1/fan.js';
import { BookingExpired, BookingHeld, BookingReleased } from './gen/marquee/cart/v1/booking.js';
import {
  OrderCancelled,
  OrderConfirmed,
  OrderPrinted,
  PaymentCaptured,
  PaymentRefunded,
} from './gen/marquee/cart/v1/order.js';
import { QueueAdmitted, QueueOpened } from './gen/marquee/cart/v1/queue.js';
import { AvailabilityChanged } from './gen/marquee/catalog/v1/availability.js';
import { EventChanged } from './gen/marquee/catalog/v1/event.js';
import { DealChanged } from './gen/marquee/deals/v1/deal.js';
import { TicketIssued, TicketScanned, TicketVoided } from './gen/marquee/entry/v1/ticket.js';
import { PartnerCallFailed, PartnerHealthChanged } from './gen/marquee/partner/v1/partner.js';
import { ReconciliationResolved } from './gen/marquee/reconciliation/v1/case.js';

/**
 * A topic of the catalog. Same shape as `TopicDef` in `@marquee/platform/bus` (structural typing),
 * copied here so that this package never depends on the platform; the extra fields are documentation
 * for the Helm topic catalog and for operators.
 */
export interface TopicDef<T> {
  /** Kafka topic name, kebab-case, no environment prefix (a deployment may add one). */
  readonly name: string;
  /** CloudEvents `ce_type`: the fully qualified protobuf message name of the record value. */
  readonly type: string;
  /** What the record key is. */
  readonly keyDescription: string;
  /** Log compaction: only `event-changed`, whose records carry whole states and tombstones. */
  readonly compacted: boolean;
  /** Retention in ms; -1 keeps records forever. */
  readonly retentionMs: number;
  /** The service(s) that produce the topic, comma-separated (the first one owns it). */
  readonly producer: string;
  /** The producing services, one per entry. */
  readonly producers: readonly string[];
  /** Services that consume the topic; each consumed topic gets a `<name>.dlq` twin. */
  readonly consumers: readonly string[];
  /** The proto file (under proto/) that defines the message, for analytics teams. */
  readonly protoFile: string;
  /**
   * Whether the analytics principal may read the topic (and its `.dlq` twin). A topic whose
   * records hold personal data in clear is not; on a readable one personal data is sealed.
   */
  readonly analyticsReadable: boolean;
  /** The message fields (proto names, dotted paths) that hold personal data, and how. */
  readonly personalData: readonly PersonalField[];
  /** Protobuf binary codec of the record value (ts-proto `encode(m).finish()` / `decode`). */
  readonly codec: {
    encode(message: T): Uint8Array;
    decode(bytes: Uint8Array): T;
  };
}

/**
 * A field of a topic's message that holds personal data. `contact`: data that identifies a person
 * (an e-mail, a partner's account id, which partners may make an e-mail); `pseudonymous`:
 * Marquee's own random ids of a fan, personal only together with auth-gateway's records.
 * `sealed`: encrypted for the services given the key (only they read it); `clear`: as it is,
 * allowed only on topics analytics may not read; `retired`: a deprecated field kept in the schema
 * so that decoders of older versions still read the message, always sent empty.
 */
export interface PersonalField {
  readonly field: string;
  readonly kind: 'contact' | 'pseudonymous';
  readonly form: 'sealed' | 'clear' | 'retired';
  /** What the field holds, for the AsyncAPI document. */
  readonly holds: string;
}

/** The message type carried by a topic. */
export type TopicMessage<D> = D extends TopicDef<infer T> ? T : never;

/** The encode/decode pair every ts-proto message object has. */
interface MessageFns<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

const DAY_MS = 24 * 60 * 60 * 1000;

interface TopicSpec<T> {
  name: string;
  type: string;
  protoFile: string;
  keyDescription: string;
  compacted?: boolean;
  retentionMs: number;
  producers: readonly string[];
  consumers: readonly string[];
  message: MessageFns<T>;
  /** Default: readable, no personal data. */
  analyticsReadable?: boolean;
  personalData?: readonly PersonalField[];
}

function topic<T>(spec: TopicSpec<T>): TopicDef<T> {
  const { message } = spec;
  return Object.freeze({
    name: spec.name,
    type: spec.type,
    keyDescription: spec.keyDescription,
    compacted: spec.compacted ?? false,
    retentionMs: spec.retentionMs,
    producer: spec.producers.join(', '),
    producers: Object.freeze([...spec.producers]),
    consumers: Object.freeze([...spec.consumers]),
    protoFile: spec.protoFile,
    analyticsReadable: spec.analyticsReadable ?? true,
    personalData: Object.freeze([...(spec.personalData ?? [])]),
    codec: Object.freeze({
      encode: (m: T): Uint8Array => message.encode(m).finish(),
      decode: (b: Uint8Array): T => message.decode(b),
    }),
  });
}

// Retention choices: compacted state is kept forever; facts that only matter until the next
// synchronisation are short-lived; commercial facts (orders, tickets, reconciliation) stay 30 days so
// analytics and replays can reach a month back. Deployments may override per topic in Helm values.

/** Whole current state of a discovery event; compacted; a tombstone means deleted. */
export const eventChangedTopic: TopicDef<EventChanged> = topic({
  name: 'event-changed',
  type: 'marquee.catalog.v1.EventChanged',
  protoFile: 'marquee/catalog/v1/event.proto',
  keyDescription: 'event id',
  compacted: true,
  retentionMs: -1,
  producers: ['publisher', '3p-connector'],
  consumers: ['catalog-indexer', 'deals', 'cart', 'secure-entry'],
  message: EventChanged,
});

/** Availability of a partner-hosted event after a synchronisation. */
export const availabilityChangedTopic: TopicDef<AvailabilityChanged> = topic({
  name: 'availability-changed',
  type: 'marquee.catalog.v1.AvailabilityChanged',
  protoFile: 'marquee/catalog/v1/availability.proto',
  keyDescription: 'event id',
  retentionMs: 1 * DAY_MS,
  producers: ['3p-connector'],
  consumers: ['catalog-indexer', 'cart'],
  message: AvailabilityChanged,
});

/** A deal was created, changed or ended. */
export const dealChangedTopic: TopicDef<DealChanged> = topic({
  name: 'deal-changed',
  type: 'marquee.deals.v1.DealChanged',
  protoFile: 'marquee/deals/v1/deal.proto',
  keyDescription: 'event id',
  retentionMs: 30 * DAY_MS,
  producers: ['deals'],
  // deals' replicas read the whole topic back into their read model (subscribeGlobal).
  consumers: ['deals'],
  message: DealChanged,
});

/** A fan approved a developer app. */
export const appAuthorizedTopic: TopicDef<AppAuthorized> = topic({
  name: 'app-authorized',
  type: 'marquee.auth.v1.AppAuthorized',
  protoFile: 'marquee/auth/v1/app.proto',
  keyDescription: 'client id',
  retentionMs: 30 * DAY_MS,
  producers: ['auth-gateway'],
  consumers: [],
  message: AppAuthorized,
  // Operators only: a fan's ids in clear, linking the fan to the apps they use.
  analyticsReadable: false,
  personalData: [
    { field: 'fan_id', kind: 'pseudonymous', form: 'clear', holds: "the fan's platform id" },
    { field: 'user_id', kind: 'pseudonymous', form: 'clear', holds: "the fan's id for the app" },
  ],
});

/**
 * An operator deleted a fan: cart and secure-entry blank the contact fields of the fan's orders.
 * A command in effect (it makes consumers erase data), so its records are signed.
 */
export const fanDeletedTopic: TopicDef<FanDeleted> = topic({
  name: 'fan-deleted',
  type: 'marquee.auth.v1.FanDeleted',
  protoFile: 'marquee/auth/v1/fan.proto',
  keyDescription: 'fan id',
  retentionMs: 30 * DAY_MS,
  producers: ['auth-gateway'],
  consumers: ['cart', 'secure-entry'],
  message: FanDeleted,
  // Operators only: fan ids reach analytics on no other topic, so a readable copy would only
  // hand out a list of ids in clear, with nothing for analytics to erase.
  analyticsReadable: false,
  personalData: [
    {
      field: 'fan_id',
      kind: 'pseudonymous',
      form: 'clear',
      holds: "the deleted fan's platform id (resolves to no one once deleted)",
    },
  ],
});

/** Tickets held at the partner for a cart. */
export const bookingHeldTopic: TopicDef<BookingHeld> = topic({
  name: 'booking-held',
  type: 'marquee.cart.v1.BookingHeld',
  protoFile: 'marquee/cart/v1/booking.proto',
  keyDescription: 'cart id',
  retentionMs: 7 * DAY_MS,
  producers: ['cart'],
  consumers: ['reconciler'],
  message: BookingHeld,
});

/** A hold was given back before it expired. */
export const bookingReleasedTopic: TopicDef<BookingReleased> = topic({
  name: 'booking-released',
  type: 'marquee.cart.v1.BookingReleased',
  protoFile: 'marquee/cart/v1/booking.proto',
  keyDescription: 'cart id',
  retentionMs: 7 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: BookingReleased,
});

/** A hold timed out. */
export const bookingExpiredTopic: TopicDef<BookingExpired> = topic({
  name: 'booking-expired',
  type: 'marquee.cart.v1.BookingExpired',
  protoFile: 'marquee/cart/v1/booking.proto',
  keyDescription: 'cart id',
  retentionMs: 7 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: BookingExpired,
});

/** The partner confirmed a paid booking as an order. */
export const orderConfirmedTopic: TopicDef<OrderConfirmed> = topic({
  name: 'order-confirmed',
  type: 'marquee.cart.v1.OrderConfirmed',
  protoFile: 'marquee/cart/v1/order.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: ['secure-entry', 'reconciler'],
  message: OrderConfirmed,
  personalData: [
    {
      field: 'sealed_contact',
      kind: 'contact',
      form: 'sealed',
      holds:
        "OrderContact: the buyer's e-mail, the partner account id and the fan id, sealed for cart and secure-entry (ORDER_CONTACT_KEYS)",
    },
    { field: 'third_party_account_id', kind: 'contact', form: 'retired', holds: 'nothing' },
    { field: 'customer_email', kind: 'contact', form: 'retired', holds: 'nothing' },
    { field: 'fan_id', kind: 'pseudonymous', form: 'retired', holds: 'nothing' },
  ],
});

/** An order was cancelled. */
export const orderCancelledTopic: TopicDef<OrderCancelled> = topic({
  name: 'order-cancelled',
  type: 'marquee.cart.v1.OrderCancelled',
  protoFile: 'marquee/cart/v1/order.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: ['secure-entry', '3p-connector', 'reconciler'],
  message: OrderCancelled,
});

/** Printing of an order was recorded or rolled back. */
export const orderPrintedTopic: TopicDef<OrderPrinted> = topic({
  name: 'order-printed',
  type: 'marquee.cart.v1.OrderPrinted',
  protoFile: 'marquee/cart/v1/order.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: OrderPrinted,
});

/** The payment of a cart was captured at commit (before its order is written). */
export const paymentCapturedTopic: TopicDef<PaymentCaptured> = topic({
  name: 'payment-captured',
  type: 'marquee.cart.v1.PaymentCaptured',
  protoFile: 'marquee/cart/v1/order.proto',
  keyDescription: 'cart id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: ['reconciler'],
  message: PaymentCaptured,
});

/** A refund of an order's payment was recorded. */
export const paymentRefundedTopic: TopicDef<PaymentRefunded> = topic({
  name: 'payment-refunded',
  type: 'marquee.cart.v1.PaymentRefunded',
  protoFile: 'marquee/cart/v1/order.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: PaymentRefunded,
});

/** Tickets of a confirmed order were issued. */
export const ticketIssuedTopic: TopicDef<TicketIssued> = topic({
  name: 'ticket-issued',
  type: 'marquee.entry.v1.TicketIssued',
  protoFile: 'marquee/entry/v1/ticket.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['secure-entry'],
  consumers: [],
  message: TicketIssued,
});

/** Tickets stopped being valid for entry. */
export const ticketVoidedTopic: TopicDef<TicketVoided> = topic({
  name: 'ticket-voided',
  type: 'marquee.entry.v1.TicketVoided',
  protoFile: 'marquee/entry/v1/ticket.proto',
  keyDescription: 'order id',
  retentionMs: 30 * DAY_MS,
  producers: ['secure-entry'],
  consumers: [],
  message: TicketVoided,
});

/** A gate scanned a ticket (admitted or refused). */
export const ticketScannedTopic: TopicDef<TicketScanned> = topic({
  name: 'ticket-scanned',
  type: 'marquee.entry.v1.TicketScanned',
  protoFile: 'marquee/entry/v1/ticket.proto',
  keyDescription: 'ticket id',
  retentionMs: 30 * DAY_MS,
  producers: ['secure-entry'],
  consumers: ['cart'],
  message: TicketScanned,
});

/** A partner's healthcheck changed state. */
export const partnerHealthChangedTopic: TopicDef<PartnerHealthChanged> = topic({
  name: 'partner-health-changed',
  type: 'marquee.partner.v1.PartnerHealthChanged',
  protoFile: 'marquee/partner/v1/partner.proto',
  keyDescription: 'partner id',
  retentionMs: 7 * DAY_MS,
  producers: ['3p-connector'],
  consumers: [],
  message: PartnerHealthChanged,
});

/** A runtime call to a partner failed or has an unknown outcome. */
export const partnerCallFailedTopic: TopicDef<PartnerCallFailed> = topic({
  name: 'partner-call-failed',
  type: 'marquee.partner.v1.PartnerCallFailed',
  protoFile: 'marquee/partner/v1/partner.proto',
  keyDescription: 'order or cart id',
  retentionMs: 30 * DAY_MS,
  producers: ['3p-connector'],
  consumers: ['reconciler'],
  message: PartnerCallFailed,
});

/** The reconciler decided an in-doubt transaction. */
export const reconciliationResolvedTopic: TopicDef<ReconciliationResolved> = topic({
  name: 'reconciliation-resolved',
  type: 'marquee.reconciliation.v1.ReconciliationResolved',
  protoFile: 'marquee/reconciliation/v1/case.proto',
  keyDescription: 'case id',
  retentionMs: 30 * DAY_MS,
  producers: ['reconciler'],
  consumers: [],
  message: ReconciliationResolved,
});

/** An event's on-sale opened behind its waiting room (the early joiners were ordered). */
export const queueOpenedTopic: TopicDef<QueueOpened> = topic({
  name: 'queue-opened',
  type: 'marquee.cart.v1.QueueOpened',
  protoFile: 'marquee/cart/v1/queue.proto',
  keyDescription: 'event id',
  retentionMs: 30 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: QueueOpened,
});

/** A fan was let through an event's waiting room. */
export const queueAdmittedTopic: TopicDef<QueueAdmitted> = topic({
  name: 'queue-admitted',
  type: 'marquee.cart.v1.QueueAdmitted',
  protoFile: 'marquee/cart/v1/queue.proto',
  keyDescription: 'event id',
  retentionMs: 7 * DAY_MS,
  producers: ['cart'],
  consumers: [],
  message: QueueAdmitted,
});

/** Every topic, in the order of docs/topics.md. */
export const allTopics = Object.freeze([
  eventChangedTopic,
  availabilityChangedTopic,
  dealChangedTopic,
  appAuthorizedTopic,
  fanDeletedTopic,
  bookingHeldTopic,
  bookingReleasedTopic,
  bookingExpiredTopic,
  orderConfirmedTopic,
  orderCancelledTopic,
  orderPrintedTopic,
  paymentCapturedTopic,
  paymentRefundedTopic,
  queueOpenedTopic,
  queueAdmittedTopic,
  ticketIssuedTopic,
  ticketVoidedTopic,
  ticketScannedTopic,
  partnerHealthChangedTopic,
  partnerCallFailedTopic,
  reconciliationResolvedTopic,
] as const);

/** Any topic of the catalog. */
export type AnyTopicDef = (typeof allTopics)[number];

const byName: ReadonlyMap<string, AnyTopicDef> = new Map(allTopics.map((t) => [t.name, t]));

/** The topic with this name, or undefined (e.g. for a `.dlq` twin or an unknown name). */
export function findTopic(name: string): AnyTopicDef | undefined {
  return byName.get(name);
}

/** The topic with this name; throws when the name is not in the catalog. */
export function getTopic(name: string): AnyTopicDef {
  const found = byName.get(name);
  if (!found) {
    throw new Error(`unknown topic "${name}"; known: ${[...byName.keys()].join(', ')}`);
  }
  return found;
}
