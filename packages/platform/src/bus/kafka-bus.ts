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
 * `createKafkaBus` composes the modules of ./kafka/ (README.md, "Modules") and owns the bus's
 * life: start, readiness and close.
 */
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS } from './consumer-timing.js';
import type { TopicSpec } from './ensure-topics.js';
import { KafkaClients, withTimeout } from './kafka/clients.js';
import { ConsumerGroups } from './kafka/consumer-groups.js';
import { registerConsumerLag } from './kafka/consumer-lag.js';
import { GlobalReader } from './kafka/global-readers.js';
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
  const readers: GlobalReader[] = [];
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let stopLagGauge: (() => void) | undefined;

  async function startAll(): Promise<void> {
    await Promise.all([clients.connectProducer(), clients.connectAdmin()]);
    stopLagGauge ??= registerConsumerLag(clients, groups);
    for (const group of groups.values()) await group.run();
    for (const reader of readers) await reader.run();
  }

  async function closeAll(): Promise<void> {
    const { admin, producer, logger, readyTimeoutMs } = clients;
    clients.state = 'closed';
    stopLagGauge?.();
    // Cut retry backoffs short; a handler already running finishes and is committed if it succeeds.
    clients.abort.abort();
    await starting?.catch(() => {});
    // Consumers first: stopping drains their handlers, which may still dead-letter through the producer.
    const results = await Promise.allSettled([
      ...groups.closeAll(),
      ...readers.map((reader) => reader.close()),
    ]);
    // The global subscriptions' groups are empty now and hold no offsets: remove them at once.
    const started = readers.filter((reader) => reader.started).flatMap((r) => r.groupIds);
    if (started.length > 0 && clients.adminConnected) {
      await withTimeout(admin.deleteGroups(started), readyTimeoutMs).catch((err: unknown) =>
        // The broker forgets an empty group without offsets anyway.
        logger.debug({ err, groups: started }, 'could not delete global subscription groups'),
      );
    }
    await publisher.settled();
    results.push(...(await Promise.allSettled([producer.disconnect(), admin.disconnect()])));
    for (const result of results) {
      if (result.status === 'rejected')
        logger.warn({ err: result.reason }, 'error while closing the Kafka bus');
    }
  }

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
      if (clients.state === 'starting') await starting;
      if (clients.state === 'started') await group.run();
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
      readers.push(reader);
      if (clients.state === 'starting') await starting;
      if (clients.state === 'started') await reader.run();
      return reader.catchUp.subscription;
    },

    start(): Promise<void> {
      if (clients.closed) return Promise.reject(new Error('event bus is closed'));
      if (!starting) {
        clients.state = 'starting';
        starting = startAll().then(
          () => {
            if (clients.state === 'starting') clients.state = 'started';
          },
          (error: unknown) => {
            // Allow another start() after a failed one (e.g. the broker was not up yet).
            if (clients.state === 'starting') clients.state = 'created';
            starting = undefined;
            throw error;
          },
        );
      }
      return starting;
    },

    async ready(): Promise<boolean> {
      if (clients.closed || clients.deadGroup !== undefined) return false;
      const probe = (async () => {
        await clients.connectAdmin();
        await clients.admin.describeCluster();
      })();
      probe.catch(() => {}); // a probe that loses the race below must not become an unhandled rejection
      return withTimeout(probe, clients.readyTimeoutMs).then(
        () => true,
        () => false,
      );
    },

    async ensureTopics(list: readonly TopicSpec[]): Promise<void> {
      clients.assertOpen();
      await Promise.all(list.map((topic) => topics.once(topic)));
    },

    close(): Promise<void> {
      closing ??= closeAll();
      return closing;
    },
  };
}
