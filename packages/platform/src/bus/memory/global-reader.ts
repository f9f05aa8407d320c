/**
 * A global subscription of the memory bus (../README.md, "Global subscriptions"): every partition
 * from the oldest record held, in this bus only, joining no group and committing nothing a group
 * would see. It holds the topic's records in the broker's retention as a group does (under a
 * holder name unique to the subscription) until it closes. Caught up at the end offsets of the
 * moment it starts; a record whose handler keeps failing is logged and skipped.
 */
import { randomUUID } from 'node:crypto';
import { deliver, maxAttemptsOf } from '../delivery.js';
import { createCatchUpTracker, logSkipped, type CatchUpTracker } from '../global-subscription.js';
import type { EventHandler, GlobalSubscribeOptions, TopicDef } from '../types.js';
import { limiter, type MemoryConsumerContext, toReceived } from './consumers.js';

export class MemoryGlobalReader {
  readonly topic: TopicDef<unknown>;
  readonly name: string;
  readonly catchUp: CatchUpTracker = createCatchUpTracker();
  running: Promise<void> | undefined;
  /** Its name in the broker's retention bookkeeping: unique per subscription. */
  readonly #holder: string;
  readonly #maxAttempts: number;
  readonly #concurrency: number;
  readonly #handler: EventHandler<unknown>;

  constructor(
    topic: TopicDef<unknown>,
    options: GlobalSubscribeOptions,
    handler: EventHandler<unknown>,
  ) {
    this.topic = topic;
    this.name = options.name;
    this.#holder = `global\u0000${options.name}\u0000${randomUUID()}`;
    this.#maxAttempts = maxAttemptsOf(options.maxAttempts);
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#handler = handler;
  }

  /** Reads until the bus closes. */
  async consume(context: MemoryConsumerContext): Promise<void> {
    const { broker } = context;
    const topic = this.topic.name;
    const partitions = broker.ensureTopic(topic);
    broker.hold(topic, this.#holder);
    try {
      this.catchUp.setTargets(
        Array.from({ length: partitions }, (_, partition) => ({
          partition,
          low: BigInt(broker.startOffset(topic, partition)),
          high: BigInt(broker.endOffset(topic, partition)),
        })),
      );
      const limit = limiter(this.#concurrency);
      await Promise.all(
        Array.from({ length: partitions }, (_, partition) =>
          this.#consumePartition(context, partition, limit),
        ),
      );
    } finally {
      broker.unhold(topic, this.#holder);
    }
  }

  async #consumePartition(
    context: MemoryConsumerContext,
    partition: number,
    limit: ReturnType<typeof limiter>,
  ): Promise<void> {
    const { broker, signal, retry, logger } = context;
    const topic = this.topic.name;
    let position = broker.startOffset(topic, partition);
    while (!signal.aborted) {
      position = Math.max(position, broker.startOffset(topic, partition));
      const record = broker.read(topic, partition, position);
      if (!record) {
        await broker.waitForAppend(topic, signal);
        continue;
      }
      const received = toReceived(record);
      const outcome = await limit(async () => {
        if (signal.aborted) return { kind: 'aborted' as const, attempts: 0 };
        return deliver({
          system: 'marquee.memory',
          topic: this.topic,
          group: this.name,
          record: received,
          handler: this.#handler,
          maxAttempts: this.#maxAttempts,
          retry,
          signal,
          logger,
          exhausted: 'skip',
        });
      });
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'dead-letter') logSkipped(logger, this.name, received, outcome);
      position += 1;
      broker.commit(this.#holder, topic, partition, position);
      this.catchUp.advance(partition, BigInt(position));
    }
  }
}
