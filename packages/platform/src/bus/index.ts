/**
 * `@marquee/platform/bus`: the event-bus port and its adapters. A service's `main.ts` picks one
 * (`createKafkaBus` when `KAFKA_BROKERS` is set, `createMemoryBus` in the embedded default) and hands
 * the `EventBus` to code that never learns which.
 */
export type {
  EventBus,
  EventHandler,
  GlobalSubscribeOptions,
  GlobalSubscription,
  IncomingEvent,
  OutgoingEvent,
  SubscribeOptions,
  TopicDef,
} from './types.js';
export { dlqTopicName } from './types.js';
export {
  CE_ID,
  CE_SOURCE,
  CE_SPECVERSION,
  CE_TIME,
  CE_TYPE,
  CONTENT_TYPE,
  DLQ_ATTEMPTS,
  DLQ_ERROR,
  DLQ_ORIGINAL_OFFSET,
  DLQ_ORIGINAL_PARTITION,
  DLQ_ORIGINAL_TOPIC,
  PROTOBUF_CONTENT_TYPE,
} from './cloud-events.js';
export type { BusLogger } from './logger.js';
export { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_POLICY, type RetryPolicy } from './delivery.js';
export {
  createKafkaBus,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  type KafkaBus,
  type KafkaBusOptions,
} from './kafka-bus.js';
export {
  ensureTopics,
  TopicMismatchError,
  verifyTopics,
  type EnsureTopicsOptions,
  type TopicSpec,
} from './ensure-topics.js';
export type { KafkaLogLevel } from './kafka-log.js';
export {
  createMemoryBroker,
  createMemoryBus,
  MemoryBroker,
  type MemoryBrokerOptions,
  type MemoryBus,
  type MemoryBusOptions,
  type MemoryRecord,
} from './memory-bus.js';
export {
  isSignedTopic,
  RecordSignatureError,
  SIGNATURE_HEADER,
  SIGNED_TOPIC_PATTERN,
  signatureProblem,
  signRecord,
  type RecordSigning,
  type SignedRecord,
} from './record-signature.js';
