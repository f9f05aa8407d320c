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
 * (README.md, "Modules"); memory/lifecycle.ts owns the bus's life: start, readiness and close.
 */
import { keysInParallelOf, maxAttemptsOf, retryPolicy, type RetryPolicy } from './delivery.js';
import { stderrLogger, type BusLogger } from './logger.js';
import { MemoryBroker, type MemoryBrokerOptions, type MemoryRecord } from './memory/broker.js';
import { MemoryGlobalReader } from './memory/global-reader.js';
import { MemoryBusLifecycle } from './memory/lifecycle.js';
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
  const publishing = { source: options.source, clientId: options.clientId ?? 'marquee-memory' };
  const lifecycle = new MemoryBusLifecycle({
    broker,
    logger: options.logger ?? stderrLogger,
    retry: retryPolicy(options.retry),
  });

  return {
    broker,

    records: (topic) => broker.records(topic),

    async publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
      lifecycle.assertOpen();
      publishToBroker(broker, publishing, topic, events);
    },

    async subscribe<T>(
      topic: TopicDef<T>,
      subscribeOptions: SubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<void> {
      lifecycle.assertOpen();
      lifecycle.assertNotSubscribed(subscribeOptions.group, topic.name);
      lifecycle.addSubscription({
        topic: topic as TopicDef<unknown>,
        group: subscribeOptions.group,
        fromBeginning: subscribeOptions.fromBeginning ?? true,
        maxAttempts: maxAttemptsOf(subscribeOptions.maxAttempts),
        concurrency: Math.max(1, subscribeOptions.concurrency ?? 1),
        keysInParallel: keysInParallelOf(subscribeOptions.keysInParallel),
        handler: handler as EventHandler<unknown>,
      });
    },

    async subscribeGlobal<T>(
      topic: TopicDef<T>,
      globalOptions: GlobalSubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<GlobalSubscription> {
      lifecycle.assertOpen();
      const reader = new MemoryGlobalReader(
        topic as TopicDef<unknown>,
        globalOptions,
        handler as EventHandler<unknown>,
      );
      lifecycle.addReader(reader);
      return reader.catchUp.subscription;
    },

    start: () => lifecycle.start(),

    ready: () => lifecycle.ready(),

    close: () => lifecycle.close(),
  };
}
