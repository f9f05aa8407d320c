export type {
  OutboxEvent,
  OutboxSource,
  PendingOutbox,
  RawOutgoingEvent,
  RawPublisher,
} from './types.js';
export { busRawPublisher } from './bus-publisher.js';
export { createOutboxEvent, type NewOutboxEvent } from './outbox-event.js';
export { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './relay.js';
