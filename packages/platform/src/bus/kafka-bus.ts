import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConnectionOptions } from 'node:tls';
import {
  Kafka,
  Partitioners,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type Message,
  type SASLOptions,
} from 'kafkajs';
import { attributesFor, cloudEventHeaders, deadLetterHeaders } from './cloud-events.js';
import { countDeadLetter, countRefusedRecord } from './bus-metrics.js';
import {
  isSignedTopic,
  producersOf,
  RecordSignatureError,
  SIGNATURE_HEADER,
  signatureProblem,
  signRecord,
  type RecordSigning,
} from './record-signature.js';
import { metrics, type Observation } from '../metrics/registry.js';
import {
  consumerTimingProblem,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
} from './consumer-timing.js';
import {
  deliver,
  maxAttemptsOf,
  retryPolicy,
  type DeliveryOutcome,
  type ReceivedRecord,
  type RetryPolicy,
} from './delivery.js';
import {
  ensureTopics,
  verifyTopics,
  type EnsureTopicsOptions,
  type TopicSpec,
} from './ensure-topics.js';
import { createCatchUpTracker, logSkipped, type CatchUpTracker } from './global-subscription.js';
import { KAFKAJS_LOG_LEVELS, kafkaLogCreator, type KafkaLogLevel } from './kafka-log.js';
import { stderrLogger, type BusLogger } from './logger.js';
import { endSpan, startPublishSpan } from './tracing.js';
import {
  dlqTopicName,
  type EventBus,
  type EventHandler,
  type GlobalSubscribeOptions,
  type GlobalSubscription,
  type OutgoingEvent,
  type SubscribeOptions,
  type TopicDef,
} from './types.js';

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
 */

export interface KafkaBusOptions {
  brokers: string[];
  /** kafkajs client id; also `messaging.client.id` on publish spans. */
  clientId: string;
  /** CloudEvents `source` of published events, e.g. `//marquee/publisher`. */
  source: string;
  logger?: BusLogger;
  /** Threshold of kafkajs's own logs routed into `logger` (default `warn`). */
  kafkaLogLevel?: KafkaLogLevel;
  ssl?: boolean | ConnectionOptions;
  sasl?: SASLOptions;
  /**
   * Producer signatures on signed topics (bus/record-signature.ts): records this bus publishes to
   * them are signed as `signatures.producer`; records its consumers read from them are checked,
   * and dead-letter unhandled when unsigned or forged. Services get it from runService; without
   * it the bus neither signs nor checks.
   */
  signatures?: RecordSigning;
  /** Backoff between attempts of a failing handler. */
  retry?: Partial<RetryPolicy>;
  topics?: {
    /**
     * Create missing topics (and their `.dlq` twins) before first publish or subscribe, with the
     * catalog's compaction and retention (default true). Turn off where the deployment owns topic
     * creation and the service has no CreateTopics permission.
     */
    autoCreate?: boolean;
    /**
     * With `autoCreate` off: check instead, before first publish or subscribe, that each topic and
     * its `.dlq` twin exist with the catalog's compaction (`verifyTopics`), and fail that publish or
     * start naming what is missing or differs (default true). A consumer's topic is checked at
     * `start()`, so a service refuses to start on a topic the deployment has not created.
     */
    verify?: boolean;
  } & Omit<EnsureTopicsOptions, 'deadLetters'>;
  /** Bound of `ready()` (default 2000 ms). */
  readyTimeoutMs?: number;
  /** TCP connect timeout per broker (default 3000 ms). */
  connectionTimeoutMs?: number;
  consumer?: {
    /**
     * How long the group coordinator waits for a member that stopped heartbeating (a crashed or
     * hung process) before it takes the member's partitions away and gives them to the others
     * (default {@link DEFAULT_SESSION_TIMEOUT_MS}). It also bounds how long one handler call may
     * run without a heartbeat. The broker allows 6 s to 30 min unless configured otherwise.
     */
    sessionTimeoutMs?: number;
    /**
     * How often a member tells the coordinator it is alive and learns of a rebalance (default
     * {@link DEFAULT_HEARTBEAT_INTERVAL_MS}); below `sessionTimeoutMs`, at most a third of it by
     * Kafka's advice, so one lost heartbeat is not fatal.
     */
    heartbeatIntervalMs?: number;
    /**
     * Longest a fetch waits for new records (default 1000 ms). It bounds how long `close()` waits
     * for an idle consumer to notice; records that arrive are returned at once, unless `minBytes`
     * asks the broker to gather more.
     */
    maxWaitTimeMs?: number;
    /**
     * Bytes of records a fetch waits for, up to `maxWaitTimeMs` (default 1: each record is
     * answered at once). A consumer that need not react within the second can take its records in
     * batches: one fetch (and one commit) for many records, on both the broker and the consumer,
     * instead of one per record at a steady trickle. Global subscriptions always fetch at once.
     */
    minBytes?: number;
    /**
     * Longest a handled record stays uncommitted (default 500 ms), even when the next record's
     * handler is slow or retrying. Offsets are committed this long after the first record handled
     * since the last commit, carrying every record handled meanwhile across batches, and at once
     * when a handler fails for good, when the partition is left, and on close: instead of one
     * commit round trip per record or per batch. A crash redelivers at most this much work
     * (delivery is at least once anyway).
     */
    commitIntervalMs?: number;
  };
}

// The defaults live with the service config's (kafkajs-free); re-exported for the bus's callers.
export { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS };

/**
 * kafkajs's retries of its own requests (connect, fetch, produce, group calls). Its default caps the
 * wait between tries at 30 s, and a consumer whose retries ran out restarts after the last wait: in
 * a broker restart the consumers sat in 6-10 s waits after the broker was back, and discovery caught
 * up 12 s after it. Capped at 2 s, a consumer tries again at most 2 s after the broker answers;
 * eight tries span about 12 s before a consumer restarts. The producer keeps retrying (below).
 */
export const KAFKA_CLIENT_RETRY = { initialRetryTime: 300, maxRetryTime: 2_000, retries: 8 };

export interface KafkaBus extends EventBus {
  /**
   * Creates the given topics and their `.dlq` twins when missing (see {@link ensureTopics}); with
   * `topics.autoCreate` off, checks them instead (`verifyTopics`).
   */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
}

interface Subscription {
  topic: TopicDef<unknown>;
  /** The producer-signature check of a signed topic, when the bus checks signatures. */
  verify: ((record: ReceivedRecord) => string | undefined) | undefined;
  fromBeginning: boolean;
  maxAttempts: number;
  concurrency: number;
  handler: EventHandler<unknown>;
}

/** kafkajs needs every member of a group to subscribe to the same topics, hence one consumer per group. */
interface Group {
  id: string;
  consumer: Consumer;
  subscriptions: Map<string, Subscription>;
  /** Topics the running consumer was subscribed with. */
  subscribed: Set<string>;
  connected: boolean;
  running: boolean;
  /** Serialises start/restart of this group's consumer (start() and a late subscribe() may race). */
  lock: Promise<void>;
  /** Offsets handled and not yet committed, per `topic\u0000partition` (see `handleBatch`). */
  commits: Map<string, PartitionCommits>;
}

/**
 * One partition's offset commits in a group. They outlive the batch that handled the records: a
 * handled record's offset waits up to `commitIntervalMs` for a commit that carries every record
 * handled meanwhile, across batches, rather than one OffsetCommit per batch (at a steady trickle
 * a batch is one record: one broker write per record).
 */
interface PartitionCommits {
  topic: string;
  partition: number;
  /** Kafka's committed offset is the next record to read: that offset once a record was handled. */
  uncommitted: string | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The commits of this partition, one after another. */
  chain: Promise<void>;
  /**
   * The latest batch's commit call: the running consumer's own, which still commits while
   * `stop()` drains the batch (the consumer's public `commitOffsets` skips once stopping).
   */
  commitWith: EachBatchPayload['commitOffsetsIfNecessary'];
}

/**
 * A global subscription's consumer: a group of its own (`<name>.<uuid>`, one member, so every
 * partition is assigned to it; kafkajs has no manual assignment), reading from the earliest offset,
 * never committing. The groups hold no offsets and are deleted at close; one left by a crash is
 * empty and without offsets once its member's session ends, and the broker forgets it.
 *
 * A crash (the broker away longer than kafkajs's retries, say) is not left to kafkajs's own
 * restart: that rejoins the same group as a new member, and the broker holds the join until the
 * crashed member's session times out (a broker that restarts reloads the group with that member),
 * then the reader reads the topic again from its first offset since nothing is committed. The bus
 * instead starts a fresh consumer in a fresh group, which joins at once, and seeks each partition to
 * the position the reader had reached.
 */
interface GlobalReader {
  topic: TopicDef<unknown>;
  verify: ((record: ReceivedRecord) => string | undefined) | undefined;
  name: string;
  maxAttempts: number;
  concurrency: number;
  handler: EventHandler<unknown>;
  catchUp: CatchUpTracker;
  /** The running consumer and its group; replaced after a crash. */
  consumer: Consumer;
  groupId: string;
  /** Every group this reader has joined, deleted at close. */
  groupIds: string[];
  /** Partition → next offset to handle, across consumers. */
  positions: Map<number, bigint>;
  started: boolean;
  /** Crashes of its consumers so far. */
  crashes: number;
  /** Set while a crashed consumer is being replaced. */
  replacing?: Promise<void>;
}

/** kafkajs's own test for a crash it would restart after (retries ran out, or a retriable cause). */
function isRetriableCrash(error: unknown): boolean {
  if ((error as Error | undefined)?.name === 'KafkaJSNumberOfRetriesExceeded') return true;
  let cause = error as { cause?: unknown; retriable?: boolean } | undefined;
  while (cause?.cause !== undefined) cause = cause.cause as typeof cause;
  return cause?.retriable === true;
}

export function createKafkaBus(options: KafkaBusOptions): KafkaBus {
  if (options.brokers.length === 0) throw new Error('createKafkaBus: brokers is empty');
  const logger = options.logger ?? stderrLogger;
  const retry = retryPolicy(options.retry);
  const autoCreate = options.topics?.autoCreate ?? true;
  /** What happens to a topic before its first use: created, checked, or nothing. */
  const topicMode: 'create' | 'verify' | 'none' = autoCreate
    ? 'create'
    : (options.topics?.verify ?? true)
      ? 'verify'
      : 'none';
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
  const commitIntervalMs = options.consumer?.commitIntervalMs ?? 500;
  const sessionTimeoutMs = options.consumer?.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const heartbeatIntervalMs =
    options.consumer?.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const timingProblem = consumerTimingProblem(sessionTimeoutMs, heartbeatIntervalMs);
  if (timingProblem !== undefined) {
    throw new Error(
      `createKafkaBus: consumer.heartbeatIntervalMs / consumer.sessionTimeoutMs: ${timingProblem}`,
    );
  }

  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
    ...(options.sasl !== undefined ? { sasl: options.sasl } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    retry: KAFKA_CLIENT_RETRY,
    logLevel: KAFKAJS_LOG_LEVELS[options.kafkaLogLevel ?? 'warn'],
    logCreator: kafkaLogCreator(logger),
  });
  const producer = kafka.producer({
    idempotent: true,
    // An idempotent producer retries without limit (kafkajs's default for it; a limit would risk its
    // sequence numbers): a send waits out a broker restart, trying every 2 s at most.
    retry: { ...KAFKA_CLIENT_RETRY, retries: Number.MAX_SAFE_INTEGER },
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    // Topics come from ensureTopics with the catalog's settings, never from a broker's defaults.
    allowAutoTopicCreation: false,
  });
  // No retries: ready() must answer within its deadline, and ensureTopics is retried by its callers.
  const admin = kafka.admin({ retry: { retries: 1 } });

  const groups = new Map<string, Group>();
  const readers: GlobalReader[] = [];
  const ensured = new Map<string, Promise<void>>();
  const inFlightPublishes = new Set<Promise<void>>();
  const abort = new AbortController();
  let state: 'created' | 'starting' | 'started' | 'closed' = 'created';
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let producerConnected: Promise<void> | undefined;
  let adminConnected: Promise<void> | undefined;

  const assertOpen = (): void => {
    if (state === 'closed') throw new Error('event bus is closed');
  };

  let stopLagGauge: (() => void) | undefined;

  // A group whose consumer crashed and will not restart: the bus no longer consumes, so it is not ready.
  let deadGroup: string | undefined;

  // Never (re)connect once closed: a late ready() probe must not leave a socket holding the process open.
  const connectProducer = (): Promise<void> =>
    (producerConnected ??= (
      state === 'closed' ? Promise.reject(new Error('event bus is closed')) : producer.connect()
    ).catch((error: unknown) => {
      producerConnected = undefined;
      throw error;
    }));

  const connectAdmin = (): Promise<void> =>
    (adminConnected ??= (
      state === 'closed' ? Promise.reject(new Error('event bus is closed')) : admin.connect()
    ).catch((error: unknown) => {
      adminConnected = undefined;
      throw error;
    }));

  const ensureTopicOnce = (topic: TopicSpec): Promise<void> => {
    let pending = ensured.get(topic.name);
    if (!pending) {
      pending = (async () => {
        await connectAdmin();
        if (topicMode === 'verify') {
          const { warnings } = await verifyTopics(admin, [topic]);
          for (const warning of warnings) logger.warn({ topic: topic.name }, warning);
          return;
        }
        const created = await ensureTopics(admin, [topic], options.topics);
        if (created.length > 0) logger.info({ topics: created }, 'created Kafka topics');
      })();
      ensured.set(topic.name, pending);
      // Forget a failure so the next publish or start tries again.
      pending.catch(() => ensured.delete(topic.name));
    }
    return pending;
  };

  /** The headers with the producer's signature, on signed topics when the bus signs. */
  function signed(
    topic: string,
    key: string,
    value: Uint8Array | null,
    headers: Record<string, string>,
  ): Record<string, string> {
    // A signature handed in with the event's headers is never passed on as ours.
    const { [SIGNATURE_HEADER]: _given, ...rest } = headers;
    if (!options.signatures || !isSignedTopic(topic)) return rest;
    return {
      ...rest,
      [SIGNATURE_HEADER]: signRecord(options.signatures, { topic, key, value, headers: rest }),
    };
  }

  /** The signature check of a subscription's topic, when the bus checks and the topic is signed. */
  function verifierFor(
    topic: TopicDef<unknown>,
  ): ((record: ReceivedRecord) => string | undefined) | undefined {
    const signatures = options.signatures;
    if (!signatures || !isSignedTopic(topic.name)) return undefined;
    const producers = producersOf(topic);
    return (record) => signatureProblem(signatures.keyring, record, producers);
  }

  async function publishRecords<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
    if (topicMode !== 'none') await ensureTopicOnce(topic);
    await connectProducer();
    // Encode everything first: an event that cannot be encoded fails the call before anything is sent.
    const encoded = events.map((event) => ({
      event,
      value: event.value === null ? null : topic.codec.encode(event.value),
      attributes: attributesFor(topic, event, options.source),
    }));
    const spans = [];
    const messages: Message[] = [];
    for (const { event, value, attributes } of encoded) {
      const { span, traceHeaders } = startPublishSpan(
        'kafka',
        options.clientId,
        {
          topic: topic.name,
          key: event.key,
          id: attributes.id,
          bodySize: value?.byteLength ?? 0,
          tombstone: value === null,
        },
        event.headers,
      );
      spans.push(span);
      messages.push({
        key: event.key,
        value:
          value === null ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
        headers: signed(topic.name, event.key, value, {
          ...cloudEventHeaders(attributes, event.headers, value === null),
          ...traceHeaders,
        }),
        timestamp: String(attributes.time.getTime()),
      });
    }
    try {
      await producer.send({ topic: topic.name, acks: -1, messages });
    } catch (error) {
      for (const span of spans) endSpan(span, error);
      throw error;
    }
    for (const span of spans) endSpan(span);
  }

  /** The commit state of one partition of a group, made on first use. */
  function partitionCommits(group: Group, payload: EachBatchPayload): PartitionCommits {
    const { topic, partition } = payload.batch;
    const key = `${topic}\u0000${partition}`;
    let state = group.commits.get(key);
    if (state === undefined) {
      state = {
        topic,
        partition,
        uncommitted: undefined,
        timer: undefined,
        chain: Promise.resolve(),
        commitWith: payload.commitOffsetsIfNecessary,
      };
      group.commits.set(key, state);
    }
    state.commitWith = payload.commitOffsetsIfNecessary;
    return state;
  }

  /**
   * Commits what the partition handled since its last commit (nothing when that is nothing); the
   * commits of a partition run one after another. Rejects when the commit failed: the next commit
   * of the partition carries its offset, or the records come again (at least once).
   */
  function commitPartition(state: PartitionCommits): Promise<void> {
    clearTimeout(state.timer);
    state.timer = undefined;
    if (state.uncommitted === undefined) return state.chain.catch(() => {});
    const offset = state.uncommitted;
    state.uncommitted = undefined;
    const { topic, partition } = state;
    state.chain = state.chain
      .catch(() => {})
      .then(() => state.commitWith({ topics: [{ topic, partitions: [{ partition, offset }] }] }));
    return state.chain;
  }

  /** Every partition's pending offsets of the group, now (close, before the consumer leaves). */
  async function flushCommits(group: Group): Promise<void> {
    await Promise.all(
      [...group.commits.values()].map((state) =>
        commitPartition(state).catch((error: unknown) =>
          logger.warn({ err: error, topic: state.topic, group: group.id }, 'offset commit failed'),
        ),
      ),
    );
  }

  async function handleBatch(group: Group, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const subscription = group.subscriptions.get(batch.topic);
    if (!subscription) return;
    const state = partitionCommits(group, payload);
    const commit = () => commitPartition(state);
    const commitSoon = () => {
      state.timer ??= setTimeout(() => {
        state.timer = undefined;
        // A later commit of this partition carries this offset too; redelivery is harmless anyway.
        commit().catch((error: unknown) =>
          logger.warn({ err: error, topic: batch.topic, group: group.id }, 'offset commit failed'),
        );
      }, commitIntervalMs);
    };
    const consume = async () => {
      for (const message of batch.messages) {
        // Stop between records when closing or when a rebalance took the partition away; what was
        // not committed is delivered again to whoever owns the partition next.
        if (abort.signal.aborted || !isRunning() || isStale()) return;
        const record = toReceived(batch.topic, batch.partition, message);
        const outcome = await deliver({
          system: 'kafka',
          topic: subscription.topic,
          group: group.id,
          record,
          handler: subscription.handler,
          maxAttempts: subscription.maxAttempts,
          retry,
          signal: abort.signal,
          keepAlive: heartbeat,
          logger,
          verify: subscription.verify,
        });
        if (outcome.kind === 'aborted') return;
        if (outcome.kind === 'dead-letter') {
          await sendToDeadLetter(record, message, outcome);
          countDeadLetter(record.topic, group.id);
          if (outcome.error instanceof RecordSignatureError)
            countRefusedRecord(record.topic, group.id);
        }
        resolveOffset(message.offset);
        state.uncommitted = (BigInt(message.offset) + 1n).toString();
        commitSoon();
        await heartbeat();
      }
    };
    try {
      await consume();
    } catch (error) {
      // What was handled before the failure stays handled; the failure itself propagates.
      await commit().catch(() => {});
      throw error;
    }
    if (isStale()) {
      // A partition a rebalance took away is committed by its next owner, not by us.
      clearTimeout(state.timer);
      state.timer = undefined;
      state.uncommitted = undefined;
      return;
    }
    // Closing: commit before the consumer leaves its group. Otherwise the timer commits, with
    // whatever the next batches of this partition handle meanwhile.
    if (abort.signal.aborted || !isRunning()) await commit();
  }

  async function sendToDeadLetter(
    record: ReceivedRecord,
    message: KafkaMessage,
    outcome: Extract<DeliveryOutcome, { kind: 'dead-letter' }>,
  ): Promise<void> {
    // The original key and value bytes, untouched, so the record can be replayed as it was.
    // If this send fails the error propagates, nothing is committed, and the record comes back.
    await producer.send({
      topic: dlqTopicName(record.topic),
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: deadLetterHeaders(record.headers, {
            ...outcome,
            topic: record.topic,
            partition: record.partition,
            offset: record.offset,
          }),
        },
      ],
    });
  }

  async function handleGlobalBatch(reader: GlobalReader, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    for (const message of batch.messages) {
      if (abort.signal.aborted || !isRunning() || isStale()) return;
      const record = toReceived(batch.topic, batch.partition, message);
      const outcome = await deliver({
        system: 'kafka',
        topic: reader.topic,
        group: reader.name,
        record,
        handler: reader.handler,
        maxAttempts: reader.maxAttempts,
        retry,
        signal: abort.signal,
        keepAlive: heartbeat,
        logger,
        exhausted: 'skip',
        verify: reader.verify,
      });
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'dead-letter') logSkipped(logger, reader.name, record, outcome);
      // Moves this consumer's fetch position; nothing is committed.
      resolveOffset(message.offset);
      advanceReader(reader, batch.partition, BigInt(message.offset) + 1n);
      await heartbeat();
    }
  }

  function advanceReader(reader: GlobalReader, partition: number, next: bigint): void {
    reader.positions.set(partition, next);
    reader.catchUp.advance(partition, next);
  }

  async function runGlobal(reader: GlobalReader): Promise<void> {
    if (reader.started || state === 'closed') return;
    reader.started = true;
    if (topicMode !== 'none') await ensureTopicOnce(reader.topic);
    await connectAdmin();
    // The end offsets of now: the replica is caught up once it has read up to them.
    const offsets = await fetchTopicOffsets(reader.topic.name);
    reader.catchUp.setTargets(
      offsets.map(({ partition, low, high }) => ({
        partition,
        low: BigInt(low),
        high: BigInt(high),
      })),
    );
    await runReaderConsumer(reader);
  }

  async function runReaderConsumer(reader: GlobalReader): Promise<void> {
    await reader.consumer.connect();
    await reader.consumer.subscribe({ topics: [reader.topic.name], fromBeginning: true });
    await reader.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: reader.concurrency,
      eachBatch: (payload) => handleGlobalBatch(reader, payload),
    });
  }

  /**
   * After a crash: a fresh consumer in a fresh group, started again until it runs (the broker may
   * still be away), resuming where the crashed one stopped. kafkajs reports a failed join as a
   * crash (its `run()` resolves all the same), which counts here and makes the loop go again.
   */
  function replaceReaderConsumer(reader: GlobalReader): void {
    if (reader.replacing) return;
    const closed = () => state === 'closed';
    reader.replacing = (async () => {
      let fresh = true;
      for (let attempt = 0; !closed(); attempt++) {
        if (fresh) {
          setReaderConsumer(reader);
          logger.warn(
            { subscription: reader.name, group: reader.groupId, partitions: reader.positions.size },
            'global subscription starts a fresh consumer after a crash, resuming where it stopped',
          );
        }
        const crashes = reader.crashes;
        try {
          await runReaderConsumer(reader);
          if (reader.crashes === crashes) return;
          // A crash kafkajs would not retry (authorisation, say) leaves the bus not ready, for good.
          if (deadGroup === reader.groupId) return;
          fresh = true;
        } catch (error) {
          // Not connected yet: the same consumer (it joined no group) tries again.
          await reader.consumer.disconnect().catch(() => {});
          fresh = false;
          logger.warn(
            { err: error, subscription: reader.name, group: reader.groupId },
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
      reader.replacing = undefined;
    });
  }

  /**
   * A topic created a moment ago may not have its leaders in every broker's metadata yet
   * (`UNKNOWN_TOPIC_OR_PARTITION`, `LEADER_NOT_AVAILABLE`): a few tries, as kafkajs's own retrier.
   */
  async function fetchTopicOffsets(topic: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await admin.fetchTopicOffsets(topic);
      } catch (error) {
        if (attempt >= 6 || state === 'closed') throw error;
        logger.debug({ err: error, topic, attempt }, 'fetching end offsets failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  function createGlobalReader(
    topic: TopicDef<unknown>,
    globalOptions: GlobalSubscribeOptions,
    handler: EventHandler<unknown>,
  ): GlobalReader {
    // Its consumer and group are set just below (they refer to the reader).
    const reader = {
      topic,
      verify: verifierFor(topic),
      name: globalOptions.name,
      maxAttempts: maxAttemptsOf(globalOptions.maxAttempts),
      concurrency: Math.max(1, globalOptions.concurrency ?? 1),
      handler,
      catchUp: createCatchUpTracker(),
      groupIds: [],
      positions: new Map(),
      crashes: 0,
      started: false,
    } as Omit<GlobalReader, 'consumer' | 'groupId'> as GlobalReader;
    setReaderConsumer(reader);
    return reader;
  }

  /** Gives `reader` a new consumer in a group of its own, not yet connected. */
  function setReaderConsumer(reader: GlobalReader): void {
    const groupId = `${reader.name}.${randomUUID()}`;
    const consumer = createConsumer(groupId, {
      // Crashes are handled below, by a fresh consumer, never by kafkajs's restart in the same group.
      restartOnFailure: () => Promise.resolve(false),
      onCrash: (error) => {
        if (reader.consumer !== consumer || state === 'closed') return;
        reader.crashes++;
        if (isRetriableCrash(error)) replaceReaderConsumer(reader);
        else deadGroup = groupId;
      },
    });
    // A fetch of nothing but control records (transaction markers of a foreign producer) never
    // reaches eachBatch; kafkajs still reports its last offset, which may be the end to reach.
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) => {
      const { partition, batchSize, lastOffset } = event.payload;
      if (batchSize === 0) advanceReader(reader, partition, BigInt(lastOffset) + 1n);
    });
    // kafkajs emits GROUP_JOIN after the assignment and before its first fetch: seeking here makes
    // a replacement consumer's first fetch start where the crashed one stopped.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      for (const [partition, next] of reader.positions) {
        consumer.seek({ topic: reader.topic.name, partition, offset: next.toString() });
      }
    });
    reader.consumer = consumer;
    reader.groupId = groupId;
    reader.groupIds.push(groupId);
  }

  function createConsumer(
    id: string,
    crash?: {
      restartOnFailure: (error: Error) => Promise<boolean>;
      onCrash: (error: Error) => void;
    },
  ): Consumer {
    const consumer = kafka.consumer({
      groupId: id,
      allowAutoTopicCreation: false,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: heartbeatIntervalMs,
      maxWaitTimeInMs: options.consumer?.maxWaitTimeMs ?? 1_000,
      // A group's consumer may batch its fetches; a global reader (`crash` given) never does.
      ...(crash ? {} : { minBytes: options.consumer?.minBytes ?? 1 }),
      ...(crash
        ? { retry: { ...KAFKA_CLIENT_RETRY, restartOnFailure: crash.restartOnFailure } }
        : {}),
    });
    consumer.on(consumer.events.CRASH, (event) => {
      logger.error(
        { group: id, err: event.payload.error, restart: event.payload.restart },
        'Kafka consumer crashed',
      );
      if (crash) {
        crash.onCrash(event.payload.error);
        return;
      }
      // kafkajs restarts a consumer after a retriable crash by itself; a non-retriable one stays down.
      if (!event.payload.restart && state !== 'closed') deadGroup = id;
    });
    return consumer;
  }

  function createGroup(id: string): Group {
    const consumer = createConsumer(id);
    return {
      id,
      consumer,
      subscriptions: new Map(),
      subscribed: new Set(),
      connected: false,
      running: false,
      lock: Promise.resolve(),
      commits: new Map(),
    };
  }

  /** (Re)starts a group's consumer so that it covers every topic subscribed so far. */
  function runGroup(group: Group): Promise<void> {
    const run = group.lock.then(() => (state === 'closed' ? undefined : syncGroup(group)));
    group.lock = run.catch(() => {});
    return run;
  }

  async function syncGroup(group: Group): Promise<void> {
    const pending = [...group.subscriptions.values()].filter(
      (s) => !group.subscribed.has(s.topic.name),
    );
    if (group.running && pending.length === 0) return;
    if (topicMode !== 'none') await Promise.all(pending.map((s) => ensureTopicOnce(s.topic)));
    if (!group.connected) {
      await group.consumer.connect();
      group.connected = true;
    }
    if (group.running) {
      // kafkajs cannot add a topic to a running consumer: stop (drains, keeps commits), resubscribe.
      await flushCommits(group);
      await group.consumer.stop();
      group.running = false;
    }
    for (const subscription of pending) {
      await group.consumer.subscribe({
        topics: [subscription.topic.name],
        fromBeginning: subscription.fromBeginning,
      });
      group.subscribed.add(subscription.topic.name);
    }
    const concurrency = Math.max(...[...group.subscriptions.values()].map((s) => s.concurrency));
    await group.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: concurrency,
      eachBatch: (payload) => handleBatch(group, payload),
    });
    group.running = true;
  }

  /**
   * Each consumer group's lag, read from the broker at a scrape: per partition, the end offset less
   * the group's committed offset (the whole retained range when it has committed nothing).
   * Global subscriptions commit nothing and have no lag here; their readiness says when they are
   * caught up. Bounded by the ready timeout: a broker that does not answer reports nothing.
   */
  async function consumerLag(): Promise<Observation[]> {
    if (state !== 'started' || groups.size === 0) return [];
    const read = async () => {
      await connectAdmin();
      const ends = new Map<string, Awaited<ReturnType<typeof admin.fetchTopicOffsets>>>();
      const lag: Observation[] = [];
      for (const group of groups.values()) {
        const topics = [...group.subscriptions.keys()];
        const committed = await admin.fetchOffsets({ groupId: group.id, topics });
        for (const { topic, partitions } of committed) {
          let end = ends.get(topic);
          if (end === undefined) ends.set(topic, (end = await admin.fetchTopicOffsets(topic)));
          for (const { partition, offset } of partitions) {
            const extent = end.find((each) => each.partition === partition);
            if (extent === undefined) continue;
            const high = BigInt(extent.high);
            const from = BigInt(offset) >= 0n ? BigInt(offset) : BigInt(extent.low);
            lag.push({
              value: Number(high > from ? high - from : 0n),
              attributes: { group: group.id, topic, partition },
            });
          }
        }
      }
      return lag;
    };
    return withTimeout(read(), readyTimeoutMs);
  }

  async function startAll(): Promise<void> {
    await Promise.all([connectProducer(), connectAdmin()]);
    stopLagGauge ??= metrics.gauge(
      'marquee_kafka_consumer_lag',
      {
        description:
          'Records of a partition not yet committed by a consumer group (end offset less committed offset)',
      },
      consumerLag,
    );
    for (const group of groups.values()) await runGroup(group);
    for (const reader of readers) await runGlobal(reader);
  }

  return {
    async publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
      assertOpen();
      if (events.length === 0) return;
      const sending = publishRecords(topic, events);
      inFlightPublishes.add(sending);
      try {
        await sending;
      } finally {
        inFlightPublishes.delete(sending);
      }
    },

    async subscribe<T>(
      topic: TopicDef<T>,
      subscribeOptions: SubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<void> {
      assertOpen();
      let group = groups.get(subscribeOptions.group);
      if (group?.subscriptions.has(topic.name)) {
        throw new Error(
          `group ${subscribeOptions.group} already subscribes to ${topic.name} on this bus`,
        );
      }
      // Validate before registering anything, so a bad call leaves no half-made group behind.
      const subscription: Subscription = {
        topic: topic as TopicDef<unknown>,
        verify: verifierFor(topic as TopicDef<unknown>),
        fromBeginning: subscribeOptions.fromBeginning ?? true,
        maxAttempts: maxAttemptsOf(subscribeOptions.maxAttempts),
        concurrency: Math.max(1, subscribeOptions.concurrency ?? 1),
        handler: handler as EventHandler<unknown>,
      };
      if (!group) {
        group = createGroup(subscribeOptions.group);
        groups.set(group.id, group);
      }
      group.subscriptions.set(topic.name, subscription);
      if (state === 'starting') await starting;
      if (state === 'started') await runGroup(group);
    },

    async subscribeGlobal<T>(
      topic: TopicDef<T>,
      globalOptions: GlobalSubscribeOptions,
      handler: EventHandler<T>,
    ): Promise<GlobalSubscription> {
      assertOpen();
      const reader = createGlobalReader(
        topic as TopicDef<unknown>,
        globalOptions,
        handler as EventHandler<unknown>,
      );
      readers.push(reader);
      if (state === 'starting') await starting;
      if (state === 'started') await runGlobal(reader);
      return reader.catchUp.subscription;
    },

    start(): Promise<void> {
      if (state === 'closed') return Promise.reject(new Error('event bus is closed'));
      if (!starting) {
        state = 'starting';
        starting = startAll().then(
          () => {
            if (state === 'starting') state = 'started';
          },
          (error: unknown) => {
            // Allow another start() after a failed one (e.g. the broker was not up yet).
            if (state === 'starting') state = 'created';
            starting = undefined;
            throw error;
          },
        );
      }
      return starting;
    },

    async ready(): Promise<boolean> {
      if (state === 'closed' || deadGroup !== undefined) return false;
      const probe = (async () => {
        await connectAdmin();
        await admin.describeCluster();
      })();
      probe.catch(() => {}); // a probe that loses the race below must not become an unhandled rejection
      return withTimeout(probe, readyTimeoutMs).then(
        () => true,
        () => false,
      );
    },

    async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
      assertOpen();
      await Promise.all(topics.map((topic) => ensureTopicOnce(topic)));
    },

    close(): Promise<void> {
      closing ??= (async () => {
        state = 'closed';
        stopLagGauge?.();
        // Cut retry backoffs short; a handler already running finishes and is committed if it succeeds.
        abort.abort();
        await starting?.catch(() => {});
        // Consumers first: stopping drains their handlers, which may still dead-letter through the producer.
        const results = await Promise.allSettled([
          ...[...groups.values()].map(async (group) => {
            // Partitions idle since their last record: their offsets go before the member leaves.
            await flushCommits(group);
            await group.consumer.disconnect();
          }),
          ...readers.map(async (reader) => {
            await reader.consumer.disconnect();
            // A replacement under way gives up once closed; its consumer may be newer than the one above.
            await reader.replacing;
            await reader.consumer.disconnect();
          }),
        ]);
        // The global subscriptions' groups are empty now and hold no offsets: remove them at once.
        const started = readers.filter((reader) => reader.started).flatMap((r) => r.groupIds);
        if (started.length > 0 && adminConnected) {
          await withTimeout(admin.deleteGroups(started), readyTimeoutMs).catch((err: unknown) =>
            // The broker forgets an empty group without offsets anyway.
            logger.debug({ err, groups: started }, 'could not delete global subscription groups'),
          );
        }
        await Promise.allSettled([...inFlightPublishes]);
        results.push(...(await Promise.allSettled([producer.disconnect(), admin.disconnect()])));
        for (const result of results) {
          if (result.status === 'rejected')
            logger.warn({ err: result.reason }, 'error while closing the Kafka bus');
        }
      })();
      return closing;
    },
  };
}

function toReceived(topic: string, partition: number, message: KafkaMessage): ReceivedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value,
    headers: headersToStrings(message.headers),
    timestamp: new Date(Number(message.timestamp)),
  };
}

/** kafkajs hands headers over as Buffers (arrays when a name repeats; the last one wins, as Java's `lastHeader`). */
function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value !== undefined) result[name] = value.toString();
  }
  return result;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
