/**
 * The global subscriptions of the Kafka adapter (../README.md, "Global subscriptions"). Each has a
 * reader: a consumer in a group of its own (`<name>.<uuid>`, one member, so every partition is
 * assigned to it; kafkajs has no manual assignment), reading from the earliest offset, never
 * committing. The groups hold no offsets and are deleted at close; one left by a crash is empty and
 * without offsets once its member's session ends, and the broker forgets it.
 *
 * A crash (the broker away longer than kafkajs's retries, say) is not left to kafkajs's own
 * restart: that rejoins the same group as a new member, and the broker holds the join until the
 * crashed member's session times out, then the reader reads the topic again from its first offset
 * since nothing is committed. The reader instead starts a fresh consumer in a fresh group, which
 * joins at once, and seeks each partition to the position it had reached.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { deliver, maxAttemptsOf } from '../delivery.js';
import { createCatchUpTracker, logSkipped, type CatchUpTracker } from '../global-subscription.js';
import type { EventHandler, GlobalSubscribeOptions, TopicDef } from '../types.js';
import type { KafkaClients } from './clients.js';
import { KAFKA_CLIENT_RETRY } from './options.js';
import { toReceived } from './records.js';
import { type RecordVerifier, verifierFor } from './signing.js';
import type { TopicPreparation } from './topic-preparation.js';

/** kafkajs's own test for a crash it would restart after (retries ran out, or a retriable cause). */
function isRetriableCrash(error: unknown): boolean {
  if ((error as Error | undefined)?.name === 'KafkaJSNumberOfRetriesExceeded') return true;
  let cause = error as { cause?: unknown; retriable?: boolean } | undefined;
  while (cause?.cause !== undefined) cause = cause.cause as typeof cause;
  return cause?.retriable === true;
}

export class GlobalReader {
  readonly topic: TopicDef<unknown>;
  readonly name: string;
  readonly catchUp: CatchUpTracker = createCatchUpTracker();
  /** Every group this reader has joined, deleted at close. */
  readonly groupIds: string[] = [];
  started = false;
  readonly #verify: RecordVerifier | undefined;
  readonly #maxAttempts: number;
  readonly #concurrency: number;
  readonly #handler: EventHandler<unknown>;
  /** The running consumer and its group; replaced after a crash. */
  #consumer!: Consumer;
  #groupId!: string;
  /** Partition → next offset to handle, across consumers. */
  readonly #positions = new Map<number, bigint>();
  /** Crashes of its consumers so far. */
  #crashes = 0;
  /** Set while a crashed consumer is being replaced. */
  #replacing: Promise<void> | undefined;
  readonly #clients: KafkaClients;
  readonly #topics: TopicPreparation;

  constructor(
    clients: KafkaClients,
    topics: TopicPreparation,
    topic: TopicDef<unknown>,
    options: GlobalSubscribeOptions,
    handler: EventHandler<unknown>,
  ) {
    this.#clients = clients;
    this.#topics = topics;
    this.topic = topic;
    this.#verify = verifierFor(clients.options.signatures, topic);
    this.name = options.name;
    this.#maxAttempts = maxAttemptsOf(options.maxAttempts);
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#handler = handler;
    this.#setConsumer();
  }

  /** Reads the end offsets to catch up to, then starts the consumer (once). */
  async run(): Promise<void> {
    if (this.started || this.#clients.closed) return;
    this.started = true;
    await this.#topics.beforeUse(this.topic);
    await this.#clients.connectAdmin();
    // The end offsets of now: the replica is caught up once it has read up to them.
    const offsets = await this.#fetchTopicOffsets(this.topic.name);
    this.catchUp.setTargets(
      offsets.map(({ partition, low, high }) => ({
        partition,
        low: BigInt(low),
        high: BigInt(high),
      })),
    );
    await this.#runConsumer();
  }

  /** Disconnects its consumer, and the replacement of a crashed one under way (close). */
  async close(): Promise<void> {
    await this.#consumer.disconnect();
    // A replacement under way gives up once closed; its consumer may be newer than the one above.
    await this.#replacing;
    await this.#consumer.disconnect();
  }

  async #runConsumer(): Promise<void> {
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [this.topic.name], fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#concurrency,
      eachBatch: (payload) => this.#handleBatch(payload),
    });
  }

  async #handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { abort, retry, logger } = this.#clients;
    for (const message of batch.messages) {
      if (abort.signal.aborted || !isRunning() || isStale()) return;
      const record = toReceived(batch.topic, batch.partition, message);
      const outcome = await deliver({
        system: 'kafka',
        topic: this.topic,
        group: this.name,
        record,
        handler: this.#handler,
        maxAttempts: this.#maxAttempts,
        retry,
        signal: abort.signal,
        keepAlive: heartbeat,
        logger,
        exhausted: 'skip',
        verify: this.#verify,
      });
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'dead-letter') logSkipped(logger, this.name, record, outcome);
      // Moves this consumer's fetch position; nothing is committed.
      resolveOffset(message.offset);
      this.#advance(batch.partition, BigInt(message.offset) + 1n);
      await heartbeat();
    }
  }

  #advance(partition: number, next: bigint): void {
    this.#positions.set(partition, next);
    this.catchUp.advance(partition, next);
  }

  /**
   * After a crash: a fresh consumer in a fresh group, started again until it runs (the broker may
   * still be away), resuming where the crashed one stopped. kafkajs reports a failed join as a
   * crash (its `run()` resolves all the same), which counts here and makes the loop go again.
   */
  #replaceConsumer(): void {
    if (this.#replacing) return;
    const { logger, abort } = this.#clients;
    this.#replacing = (async () => {
      let fresh = true;
      for (let attempt = 0; !this.#clients.closed; attempt++) {
        if (fresh) {
          this.#setConsumer();
          logger.warn(
            { subscription: this.name, group: this.#groupId, partitions: this.#positions.size },
            'global subscription starts a fresh consumer after a crash, resuming where it stopped',
          );
        }
        const crashes = this.#crashes;
        try {
          await this.#runConsumer();
          if (this.#crashes === crashes) return;
          // A crash kafkajs would not retry (authorisation, say) leaves the bus not ready, for good.
          if (this.#clients.deadGroup === this.#groupId) return;
          fresh = true;
        } catch (error) {
          // Not connected yet: the same consumer (it joined no group) tries again.
          await this.#consumer.disconnect().catch(() => {});
          fresh = false;
          logger.warn(
            { err: error, subscription: this.name, group: this.#groupId },
            'global subscription could not start its consumer; trying again',
          );
        }
        const waitMs = Math.min(
          KAFKA_CLIENT_RETRY.initialRetryTime * 2 ** attempt,
          KAFKA_CLIENT_RETRY.maxRetryTime,
        );
        await delay(waitMs, undefined, { signal: abort.signal }).catch(() => {});
      }
    })().finally(() => {
      this.#replacing = undefined;
    });
  }

  /**
   * A topic created a moment ago may not have its leaders in every broker's metadata yet
   * (`UNKNOWN_TOPIC_OR_PARTITION`, `LEADER_NOT_AVAILABLE`): a few tries, as kafkajs's own retrier.
   */
  async #fetchTopicOffsets(topic: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#clients.admin.fetchTopicOffsets(topic);
      } catch (error) {
        if (attempt >= 6 || this.#clients.closed) throw error;
        this.#clients.logger.debug(
          { err: error, topic, attempt },
          'fetching end offsets failed; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  /** Gives the reader a new consumer in a group of its own, not yet connected. */
  #setConsumer(): void {
    const groupId = `${this.name}.${randomUUID()}`;
    const consumer = this.#clients.createConsumer(groupId, {
      // Crashes are handled here, by a fresh consumer, never by kafkajs's restart in the same group.
      restartOnFailure: () => Promise.resolve(false),
      onCrash: (error) => {
        if (this.#consumer !== consumer || this.#clients.closed) return;
        this.#crashes++;
        if (isRetriableCrash(error)) this.#replaceConsumer();
        else this.#clients.deadGroup = groupId;
      },
    });
    // A fetch of nothing but control records (transaction markers of a foreign producer) never
    // reaches eachBatch; kafkajs still reports its last offset, which may be the end to reach.
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) => {
      const { partition, batchSize, lastOffset } = event.payload;
      if (batchSize === 0) this.#advance(partition, BigInt(lastOffset) + 1n);
    });
    // kafkajs emits GROUP_JOIN after the assignment and before its first fetch: seeking here makes
    // a replacement consumer's first fetch start where the crashed one stopped.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      for (const [partition, next] of this.#positions) {
        consumer.seek({ topic: this.topic.name, partition, offset: next.toString() });
      }
    });
    this.#consumer = consumer;
    this.#groupId = groupId;
    this.groupIds.push(groupId);
  }
}
