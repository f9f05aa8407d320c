/**
 * The in-process event bus of the embedded default (docs/run-modes.md). It keeps Kafka's semantics so
 * that the embedded mode cannot drift from the distributed one — the same contract suite runs on
 * both (test/bus/bus-contract.ts): a per-topic log split into partitions by key hash, consumer
 * groups with committed offsets, one record at a time per partition, commit only after the handler
 * succeeded, bounded retries then `<topic>.dlq`, tombstones, and `close()` that drains.
 *
 * The log lives in a {@link MemoryBroker} (memory/broker.ts). Several buses may share one broker,
 * as processes share a Kafka cluster: a bus closed and replaced by a new one with the same group
 * resumes from the group's committed offsets. `createMemoryBus` composes the modules of ./memory/
 * (README.md, "Modules") and owns the bus's life: start, readiness and close.
 */
import { maxAttemptsOf, retryPolicy, type RetryPolicy } from './delivery.js';
import { stderrLogger, type BusLogger } from './logger.js';
import { MemoryBroker, type MemoryBrokerOptions, type MemoryRecord } from './memory/broker.js';
import type { MemoryConsumerContext } from './memory/consumers.js';
import { MemoryGlobalReader } from './memory/global-reader.js';
import { consumeGroup, type GroupSubscription } from './memory/group-consumer.js';
import { publishToBroker } from './memory/publisher.js';
import type {
  EventBus,
  EventHandler,
  GlobalSubscribeOptions,
  GlobalSubscription,
  OutgoingEvent,
  SubscribeOptions,
  TopicDef,
} from './types.js';

export {
  createMemoryBroker,
  MemoryBroker,
  partitionFor,
  type MemoryBrokerOptions,
  type MemoryRecord,
} from './memory/broker.js';

export interface MemoryBusOptions {
  /** CloudEvents `source` of published events, e.g. `//marquee/publisher`. */
  source: string;
  /** Share one broker between buses to model several processes on one cluster (default: a private one). */
  broker?: MemoryBroker;
  /** Retention of the private broker (MemoryBrokerOptions.retain); ignored with `broker`. */
  retain?: MemoryBrokerOptions['retain'];
  logger?: BusLogger;
  /** Backoff between handler attempts. */
  retry?: Partial<RetryPolicy>;
  /** Reported on publish spans (default `marquee-memory`). */
  clientId?: string;
}

export interface MemoryBus extends EventBus {
  readonly broker: MemoryBroker;
  /** Every record of a topic in append order (e.g. `bus.records('event-changed.dlq')`). */
  records(topic: string): MemoryRecord[];
}

export function createMemoryBus(options: MemoryBusOptions): MemoryBus {
  const broker = options.broker ?? new MemoryBroker({ retain: options.retain });
  const logger = options.logger ?? stderrLogger;
  const publishing = { source: options.source, clientId: options.clientId ?? 'marquee-memory' };
  const subscriptions: GroupSubscription[] = [];
  const readers: MemoryGlobalReader[] = [];
  const abort = new AbortController();
  const context: MemoryConsumerContext = {
    broker,
    logger,
    retry: retryPolicy(options.retry),
    signal: abort.signal,
  };
  let state: 'created' | 'started' | 'closed' = 'created';
  let closing: Promise<void> | undefined;

  const assertOpen = (): void => {
    if (state === 'closed') throw new Error('event bus is closed');
  };

  const launch = (subscription: GroupSubscription): void => {
    subscription.running = consumeGroup(context, subscription).catch((error: unknown) => {
      logger.error(
        { topic: subscription.topic.name, group: subscription.group, err: error },
        'memory consumer crashed',
      );
    });
  };

  const launchGlobal = (reader: MemoryGlobalReader): void => {
    reader.running = reader.consume(context).catch((error: unknown) => {
      logger.error(
        { topic: reader.topic.name, subscription: reader.name, err: error },
        'memory global consumer crashed',
      );
    });
  };

  return {
    broker,

    records: (topic) => broker.records(topic),

    async publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
      assertOpen();
      publishToBroker(broker, publishing, topic, events);
    },

    async subscribe<T>(
      topic: TopicDef<T>,
      subscribeOptions: SubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<void> {
      assertOpen();
      if (
        subscriptions.some((s) => s.group === subscribeOptions.group && s.topic.name === topic.name)
      ) {
        throw new Error(
          `group ${subscribeOptions.group} already subscribes to ${topic.name} on this bus`,
        );
      }
      const subscription: GroupSubscription = {
        topic: topic as TopicDef<unknown>,
        group: subscribeOptions.group,
        fromBeginning: subscribeOptions.fromBeginning ?? true,
        maxAttempts: maxAttemptsOf(subscribeOptions.maxAttempts),
        concurrency: Math.max(1, subscribeOptions.concurrency ?? 1),
        handler: handler as EventHandler<unknown>,
      };
      subscriptions.push(subscription);
      broker.ensureTopic(topic.name);
      if (state === 'started') launch(subscription);
    },

    async subscribeGlobal<T>(
      topic: TopicDef<T>,
      globalOptions: GlobalSubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<GlobalSubscription> {
      assertOpen();
      const reader = new MemoryGlobalReader(
        topic as TopicDef<unknown>,
        globalOptions,
        handler as EventHandler<unknown>,
      );
      readers.push(reader);
      broker.ensureTopic(topic.name);
      if (state === 'started') launchGlobal(reader);
      return reader.catchUp.subscription;
    },

    async start(): Promise<void> {
      assertOpen();
      if (state === 'started') return;
      state = 'started';
      for (const subscription of subscriptions) launch(subscription);
      for (const reader of readers) launchGlobal(reader);
    },

    async ready(): Promise<boolean> {
      return state === 'started';
    },

    close(): Promise<void> {
      closing ??= (async () => {
        state = 'closed';
        // Stops fetching and cuts retry backoffs short; a handler already running is awaited, and
        // committed if it succeeds.
        abort.abort();
        await Promise.all([
          ...subscriptions.map((subscription) => subscription.running),
          ...readers.map((reader) => reader.running),
        ]);
      })();
      return closing;
    },
  };
}
