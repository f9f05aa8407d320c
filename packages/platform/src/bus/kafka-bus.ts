/**
 * The Kafka adapter of the event-bus port (docs/architecture.md, Event bus), on kafkajs 2.2.4.
 *
 * - Producer: idempotent, `acks: -1`, one request in flight (KIP-98's condition for ordered,
 *   duplicate-free retries), Java-compatible murmur2 partitioner so a key lands where any other
 *   Kafka client would put it.
 * - Records: CloudEvents Kafka binding in binary mode plus W3C trace context, made and read by the
 *   bus itself; keep `@opentelemetry/instrumentation-kafkajs` out of the SDK or every record gets
 *   two spans and a second `traceparent`.
 * - Consumers: one kafkajs consumer per group, `eachBatch` processed one record at a time per
 *   partition, offset `n + 1` committed only after the handler succeeded or the record reached
 *   `<topic>.dlq`. Nothing is committed automatically.
 *
 * `createKafkaBus` composes the modules of ./kafka/ (README.md, "Modules"); kafka/lifecycle.ts
 * owns the bus's life: start, readiness and close.
 */
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS } from './consumer-timing.js';
import type { TopicSpec } from './ensure-topics.js';
import { KafkaClients } from './kafka/clients.js';
import { ConsumerGroups } from './kafka/consumer-groups.js';
import { GlobalReader } from './kafka/global-readers.js';
import { KafkaBusLifecycle } from './kafka/lifecycle.js';
import type { KafkaBus, KafkaBusOptions } from './kafka/options.js';
import { KafkaPublisher } from './kafka/publisher.js';
import { TopicPreparation } from './kafka/topic-preparation.js';
import type {
  EventHandler,
  GlobalSubscribeOptions,
  GlobalSubscription,
  OutgoingEvent,
  SubscribeOptions,
  TopicDef,
} from './types.js';

export { KAFKA_CLIENT_RETRY, type KafkaBus, type KafkaBusOptions } from './kafka/options.js';
// The defaults live with the service config's (kafkajs-free); re-exported for the bus's callers.
export { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS };

export function createKafkaBus(options: KafkaBusOptions): KafkaBus {
  const clients = new KafkaClients(options);
  const topics = new TopicPreparation(clients);
  const publisher = new KafkaPublisher(clients, topics);
  const groups = new ConsumerGroups(clients, topics);
  const lifecycle = new KafkaBusLifecycle(clients, groups, publisher);

  return {
    publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
      return publisher.publish(topic, events);
    },

    async subscribe<T>(
      topic: TopicDef<T>,
      subscribeOptions: SubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<void> {
      clients.assertOpen();
      const group = groups.add(topic, subscribeOptions, handler);
      await lifecycle.whenStarted(() => group.run());
    },

    async subscribeGlobal<T>(
      topic: TopicDef<T>,
      globalOptions: GlobalSubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<GlobalSubscription> {
      clients.assertOpen();
      const reader = new GlobalReader(
        clients,
        topics,
        topic as TopicDef<unknown>,
        globalOptions,
        handler as EventHandler<unknown>,
      );
      lifecycle.addReader(reader);
      await lifecycle.whenStarted(() => reader.run());
      return reader.catchUp.subscription;
    },

    start: () => lifecycle.start(),

    ready: () => lifecycle.ready(),

    async ensureTopics(list: readonly TopicSpec[]): Promise<void> {
      clients.assertOpen();
      await Promise.all(list.map((topic) => topics.once(topic)));
    },

    close: () => lifecycle.close(),
  };
}
