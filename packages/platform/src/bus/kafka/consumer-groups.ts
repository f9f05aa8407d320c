/**
 * The consumer groups of the Kafka adapter. kafkajs needs every member of a group to subscribe to
 * the same topics, hence one kafkajs consumer per group, holding every subscription of the group
 * on this bus. `eachBatch` handles one record at a time per partition, or up to `keysInParallel`
 * records of different keys (partitions in parallel up to the largest `concurrency` of the group's
 * subscriptions); an offset is committed
 * (offset-commits.ts) only once its record was handled or dead-lettered. Nothing is committed
 * automatically.
 */
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { deliver, distinctKeyRun, keysInParallelOf, maxAttemptsOf } from '../delivery.js';
import type { EventHandler, SubscribeOptions, TopicDef } from '../types.js';
import type { KafkaClients } from './clients.js';
import { sendToDeadLetter } from './dead-letter.js';
import { OffsetCommits, type PartitionCommits } from './offset-commits.js';
import { toReceived } from './records.js';
import { type RecordVerifier, verifierFor } from './signing.js';
import type { TopicPreparation } from './topic-preparation.js';

interface Subscription {
  topic: TopicDef<unknown>;
  /** The producer-signature check of a signed topic, when the bus checks signatures. */
  verify: RecordVerifier | undefined;
  fromBeginning: boolean;
  maxAttempts: number;
  concurrency: number;
  keysInParallel: number;
  handler: EventHandler<unknown>;
}

/** One group's consumer and the subscriptions it serves. */
export class ConsumerGroup {
  readonly id: string;
  readonly consumer: Consumer;
  readonly subscriptions = new Map<string, Subscription>();
  /** Offsets handled and not yet committed, per partition. */
  readonly commits: OffsetCommits;
  /** Topics the running consumer was subscribed with. */
  readonly #subscribed = new Set<string>();
  #connected = false;
  #running = false;
  /** Serialises start/restart of this group's consumer (start() and a late subscribe() may race). */
  #lock: Promise<void> = Promise.resolve();
  readonly #clients: KafkaClients;
  readonly #topics: TopicPreparation;

  constructor(id: string, clients: KafkaClients, topics: TopicPreparation) {
    this.id = id;
    this.#clients = clients;
    this.#topics = topics;
    this.consumer = clients.createConsumer(id);
    this.commits = new OffsetCommits(id, clients.commitIntervalMs, clients.logger);
  }

  /** (Re)starts the group's consumer so that it covers every topic subscribed so far. */
  run(): Promise<void> {
    const run = this.#lock.then(() => (this.#clients.closed ? undefined : this.#sync()));
    this.#lock = run.catch(() => {});
    return run;
  }

  async #sync(): Promise<void> {
    const pending = [...this.subscriptions.values()].filter(
      (s) => !this.#subscribed.has(s.topic.name),
    );
    if (this.#running && pending.length === 0) return;
    await Promise.all(pending.map((s) => this.#topics.beforeUse(s.topic)));
    if (!this.#connected) {
      await this.consumer.connect();
      this.#connected = true;
    }
    if (this.#running) {
      // kafkajs cannot add a topic to a running consumer: stop (drains, keeps commits), resubscribe.
      await this.commits.flush();
      await this.consumer.stop();
      this.#running = false;
    }
    for (const subscription of pending) {
      await this.consumer.subscribe({
        topics: [subscription.topic.name],
        fromBeginning: subscription.fromBeginning,
      });
      this.#subscribed.add(subscription.topic.name);
    }
    const concurrency = Math.max(...[...this.subscriptions.values()].map((s) => s.concurrency));
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: concurrency,
      eachBatch: (payload) => this.#handleBatch(payload),
    });
    this.#running = true;
  }

  async #handleBatch(payload: EachBatchPayload): Promise<void> {
    const { isRunning, isStale } = payload;
    const subscription = this.subscriptions.get(payload.batch.topic);
    if (!subscription) return;
    const state = this.commits.of(payload);
    try {
      await this.#consume(subscription, payload, state);
    } catch (error) {
      // What was handled before the failure stays handled; the failure itself propagates.
      await this.commits.commit(state).catch(() => {});
      throw error;
    }
    if (isStale()) {
      this.commits.drop(state);
      return;
    }
    // Closing: commit before the consumer leaves its group. Otherwise the timer commits, with
    // whatever the next batches of this partition handle meanwhile.
    if (this.#clients.abort.signal.aborted || !isRunning()) await this.commits.commit(state);
  }

  async #consume(
    subscription: Subscription,
    payload: EachBatchPayload,
    state: PartitionCommits,
  ): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { abort, retry, logger, producer } = this.#clients;
    const { messages } = batch;
    for (let next = 0; next < messages.length;) {
      // Stop between records when closing or when a rebalance took the partition away; what was
      // not committed is delivered again to whoever owns the partition next.
      if (abort.signal.aborted || !isRunning() || isStale()) return;
      const taken = messages.slice(
        next,
        next + distinctKeyRun(messages, next, subscription.keysInParallel, keyOf),
      );
      next += taken.length;
      const outcomes = await Promise.all(
        taken.map((message) => {
          const record = toReceived(batch.topic, batch.partition, message);
          return deliver({
            system: 'kafka',
            topic: subscription.topic,
            group: this.id,
            record,
            handler: subscription.handler,
            maxAttempts: subscription.maxAttempts,
            retry,
            signal: abort.signal,
            keepAlive: heartbeat,
            logger,
            verify: subscription.verify,
          }).then((outcome) => ({ outcome, record, message }));
        }),
      );
      // In offset order: a record is committed only after every record before it.
      for (const { outcome, record, message } of outcomes) {
        if (outcome.kind === 'aborted') return;
        if (outcome.kind === 'dead-letter')
          await sendToDeadLetter(producer, this.id, record, message, outcome);
        resolveOffset(message.offset);
        this.commits.handled(state, BigInt(message.offset) + 1n);
      }
      await heartbeat();
    }
  }
}

const keyOf = (message: KafkaMessage): string => message.key?.toString('utf8') ?? '';

/** Every consumer group of the bus, by id. */
export class ConsumerGroups {
  readonly #groups = new Map<string, ConsumerGroup>();
  readonly #clients: KafkaClients;
  readonly #topics: TopicPreparation;

  constructor(clients: KafkaClients, topics: TopicPreparation) {
    this.#clients = clients;
    this.#topics = topics;
  }

  get size(): number {
    return this.#groups.size;
  }

  values(): IterableIterator<ConsumerGroup> {
    return this.#groups.values();
  }

  /** Registers a subscription in its group (made on first use); the caller runs the group. */
  add<T>(topic: TopicDef<T>, options: SubscribeOptions, handler: EventHandler<T>): ConsumerGroup {
    let group = this.#groups.get(options.group);
    if (group?.subscriptions.has(topic.name)) {
      throw new Error(`group ${options.group} already subscribes to ${topic.name} on this bus`);
    }
    // Validate before registering anything, so a bad call leaves no half-made group behind.
    const subscription: Subscription = {
      topic: topic as TopicDef<unknown>,
      verify: verifierFor(this.#clients.options.signatures, topic as TopicDef<unknown>),
      fromBeginning: options.fromBeginning ?? true,
      maxAttempts: maxAttemptsOf(options.maxAttempts),
      concurrency: Math.max(1, options.concurrency ?? 1),
      keysInParallel: keysInParallelOf(options.keysInParallel),
      handler: handler as EventHandler<unknown>,
    };
    if (!group) {
      group = new ConsumerGroup(options.group, this.#clients, this.#topics);
      this.#groups.set(group.id, group);
    }
    group.subscriptions.set(topic.name, subscription);
    return group;
  }

  /** Commits what each group handled and disconnects its consumer (close). */
  closeAll(): Promise<void>[] {
    return [...this.#groups.values()].map(async (group) => {
      // Partitions idle since their last record: their offsets go before the member leaves.
      await group.commits.flush();
      await group.consumer.disconnect();
    });
  }
}
