import { attributesFor, cloudEventHeaders, deadLetterHeaders } from './cloud-events.js';
import { countDeadLetter } from './bus-metrics.js';
import {
  deliver,
  maxAttemptsOf,
  retryPolicy,
  type ReceivedRecord,
  type RetryPolicy,
} from './delivery.js';
import { randomUUID } from 'node:crypto';
import { createCatchUpTracker, logSkipped, type CatchUpTracker } from './global-subscription.js';
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
 * The in-process event bus of the embedded default (docs/run-modes.md). It keeps Kafka's semantics so
 * that the embedded mode cannot drift from the distributed one — the same contract suite runs on
 * both (test/bus/bus-contract.ts): a per-topic log split into partitions by key hash, consumer
 * groups with committed offsets, one record at a time per partition, commit only after the handler
 * succeeded, bounded retries then `<topic>.dlq`, tombstones, and `close()` that drains.
 *
 * The log lives in a {@link MemoryBroker}. Several buses may share one broker, as processes share
 * a Kafka cluster: a bus closed and replaced by a new one with the same group resumes from the
 * group's committed offsets.
 */

/** One stored record, as a test inspects it. */
export interface MemoryRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  /** Encoded value; `null` for a tombstone. */
  value: Uint8Array | null;
  headers: Record<string, string>;
  timestamp: Date;
}

interface PartitionLog {
  /** Offset of `records[0]`: records below it were released (retention `unconsumed`). */
  base: number;
  records: MemoryRecord[];
}

interface TopicLog {
  partitions: PartitionLog[];
  /** Every record in append order, for inspection (retention `all` only). */
  all: MemoryRecord[];
  waiters: Set<() => void>;
  /** Every group that ever joined the topic: a record is released once all of them are past it. */
  groups: Set<string>;
}

interface Membership {
  owner: symbol | undefined;
  waiting: { member: symbol; grant: () => void }[];
}

export interface MemoryBrokerOptions {
  /** Partitions of a topic created on first use (default 3, Kafka's local `num.partitions`). */
  partitions?: number;
  /**
   * What the log keeps. `all` (default): every record, as a test inspects it. `unconsumed`: a
   * record is released once every group that has joined its topic committed past it, so a
   * long-running process (the embedded default) holds only what is still to be read, not every
   * record it ever carried. A group that joins later starts at the oldest record still held (Kafka's
   * `auto.offset.reset=earliest` after retention deleted the rest); a topic no group has joined keeps
   * everything, and a group that stopped reading holds what it has not read (retention here follows
   * the consumers, unlike Kafka's, which follows time and size).
   */
  retain?: 'all' | 'unconsumed';
}

/** Released records are cut from the front of a partition's array in steps of at least this many. */
const RELEASE_STEP = 1024;

export class MemoryBroker {
  readonly defaultPartitions: number;
  #retain: 'all' | 'unconsumed';
  readonly #topics = new Map<string, TopicLog>();
  readonly #committed = new Map<string, number>();
  readonly #memberships = new Map<string, Membership>();

  constructor(options: MemoryBrokerOptions = {}) {
    const partitions = options.partitions ?? 3;
    if (!Number.isInteger(partitions) || partitions < 1)
      throw new RangeError(`partitions must be >= 1, got ${partitions}`);
    this.defaultPartitions = partitions;
    this.#retain = options.retain ?? 'all';
  }

  /** Creates the topic if needed; an existing topic keeps its partition count. */
  ensureTopic(topic: string, partitions = this.defaultPartitions): number {
    let log = this.#topics.get(topic);
    if (!log) {
      log = {
        partitions: Array.from({ length: partitions }, () => ({ base: 0, records: [] })),
        all: [],
        waiters: new Set(),
        groups: new Set(),
      };
      this.#topics.set(topic, log);
    }
    return log.partitions.length;
  }

  /**
   * Every record of the topic, all partitions, in the order they were appended (copies); with
   * retention `unconsumed`, the records still held, partition by partition.
   */
  records(topic: string): MemoryRecord[] {
    const log = this.#topics.get(topic);
    const held =
      this.#retain === 'all' ? (log?.all ?? []) : (log?.partitions.flatMap((p) => p.records) ?? []);
    return held.map((record) => ({
      ...record,
      headers: { ...record.headers },
    }));
  }

  /**
   * Appends a record as-is, as any producer would (the bus adds CloudEvents headers and trace
   * context before calling this; a test may call it to write a foreign or malformed record).
   */
  append(
    topic: string,
    record: {
      key: string;
      value: Uint8Array | null;
      headers: Record<string, string>;
      timestamp?: Date;
    },
  ): MemoryRecord {
    const count = this.ensureTopic(topic);
    const log = this.#topics.get(topic)!;
    const partition = partitionFor(record.key, count);
    const { base, records } = log.partitions[partition]!;
    const stored: MemoryRecord = {
      topic,
      partition,
      offset: String(base + records.length),
      key: record.key,
      value: record.value,
      headers: { ...record.headers },
      timestamp: record.timestamp ?? new Date(),
    };
    records.push(stored);
    if (this.#retain === 'all') log.all.push(stored);
    const waiters = [...log.waiters];
    log.waiters.clear();
    for (const wake of waiters) wake();
    return stored;
  }

  read(topic: string, partition: number, offset: number): MemoryRecord | undefined {
    const log = this.#topics.get(topic)?.partitions[partition];
    return log?.records[offset - log.base];
  }

  /** The oldest offset still held (0 unless records were released). */
  startOffset(topic: string, partition: number): number {
    return this.#topics.get(topic)?.partitions[partition]?.base ?? 0;
  }

  endOffset(topic: string, partition: number): number {
    const log = this.#topics.get(topic)?.partitions[partition];
    return log ? log.base + log.records.length : 0;
  }

  /** Resolves on the next append to the topic, or when the signal aborts. */
  waitForAppend(topic: string, signal: AbortSignal): Promise<void> {
    const log = this.#topics.get(topic);
    if (!log || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        log.waiters.delete(wake);
        resolve();
      };
      log.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The next offset the group will read in that partition, as Kafka reports a committed offset. */
  committedOffset(group: string, topic: string, partition: number): string | undefined {
    const offset = this.#committed.get(offsetKey(group, topic, partition));
    return offset === undefined ? undefined : String(offset);
  }

  commit(group: string, topic: string, partition: number, nextOffset: number): void {
    this.#committed.set(offsetKey(group, topic, partition), nextOffset);
    if (this.#retain === 'unconsumed') this.release(topic, partition);
  }

  /** What the log keeps (MemoryBrokerOptions.retain). */
  get retain(): 'all' | 'unconsumed' {
    return this.#retain;
  }

  /**
   * Switches to retention `unconsumed` from now on, releasing at once what every group has read: for
   * a process whose consumers subscribe one service at a time (the embedded default), once they all
   * have, so none misses what an earlier one already read.
   */
  retainUnconsumed(): void {
    if (this.#retain === 'unconsumed') return;
    this.#retain = 'unconsumed';
    for (const [topic, log] of this.#topics) {
      log.all = [];
      for (let partition = 0; partition < log.partitions.length; partition++) {
        this.release(topic, partition);
      }
    }
  }

  /**
   * Makes `holder` (a global subscription, which joins no group) hold the topic's records as a
   * group does: a record is released once it and every group have read past it. Its position is
   * given with {@link commit}.
   */
  hold(topic: string, holder: string): void {
    this.ensureTopic(topic);
    this.#topics.get(topic)!.groups.add(holder);
  }

  /** Stops `holder` holding the topic's records (a closed global subscription). */
  unhold(topic: string, holder: string): void {
    const log = this.#topics.get(topic);
    if (!log?.groups.delete(holder)) return;
    for (let partition = 0; partition < log.partitions.length; partition++) {
      this.#committed.delete(offsetKey(holder, topic, partition));
      if (this.#retain === 'unconsumed') this.release(topic, partition);
    }
  }

  /** Drops the records of a partition that every group of the topic has committed past. */
  private release(topic: string, partition: number): void {
    const log = this.#topics.get(topic);
    const held = log?.partitions[partition];
    if (!log || !held || log.groups.size === 0) return;
    let consumed = Infinity;
    for (const group of log.groups) {
      consumed = Math.min(consumed, this.#committed.get(offsetKey(group, topic, partition)) ?? 0);
    }
    const releasable = Math.min(consumed, held.base + held.records.length) - held.base;
    // Cut in steps (one splice per RELEASE_STEP records), or at once when nothing is left to read.
    if (releasable >= RELEASE_STEP || (releasable > 0 && releasable === held.records.length)) {
      held.records.splice(0, releasable);
      held.base += releasable;
    }
  }

  /**
   * Joins a group's consumption of a topic. One member at a time owns every partition (a valid
   * Kafka assignment, and enough in one process); later members wait and take over when the owner
   * leaves, so a replacement never processes records alongside the one it replaces.
   */
  join(group: string, topic: string, member: symbol, signal: AbortSignal): Promise<boolean> {
    this.ensureTopic(topic);
    this.#topics.get(topic)!.groups.add(group);
    const key = membershipKey(group, topic);
    let membership = this.#memberships.get(key);
    if (!membership) {
      membership = { owner: undefined, waiting: [] };
      this.#memberships.set(key, membership);
    }
    if (membership.owner === undefined) {
      membership.owner = member;
      return Promise.resolve(true);
    }
    const state = membership;
    return new Promise((resolve) => {
      const entry = {
        member,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      const onAbort = (): void => {
        state.waiting = state.waiting.filter((waiting) => waiting !== entry);
        resolve(false);
      };
      state.waiting.push(entry);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  leave(group: string, topic: string, member: symbol): void {
    const membership = this.#memberships.get(membershipKey(group, topic));
    if (!membership || membership.owner !== member) return;
    const next = membership.waiting.shift();
    membership.owner = next?.member;
    next?.grant();
  }
}

export function createMemoryBroker(options: MemoryBrokerOptions = {}): MemoryBroker {
  return new MemoryBroker(options);
}

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

interface Subscription {
  topic: TopicDef<unknown>;
  group: string;
  fromBeginning: boolean;
  maxAttempts: number;
  concurrency: number;
  handler: EventHandler<unknown>;
  running?: Promise<void>;
}

interface GlobalReader {
  topic: TopicDef<unknown>;
  name: string;
  /** Its name in the broker's retention bookkeeping: unique per subscription. */
  holder: string;
  maxAttempts: number;
  concurrency: number;
  handler: EventHandler<unknown>;
  catchUp: CatchUpTracker;
  running?: Promise<void>;
}

export function createMemoryBus(options: MemoryBusOptions): MemoryBus {
  const broker = options.broker ?? new MemoryBroker({ retain: options.retain });
  const logger = options.logger ?? stderrLogger;
  const retry = retryPolicy(options.retry);
  const clientId = options.clientId ?? 'marquee-memory';
  const subscriptions: Subscription[] = [];
  const readers: GlobalReader[] = [];
  const abort = new AbortController();
  let state: 'created' | 'started' | 'closed' = 'created';
  let closing: Promise<void> | undefined;

  const assertOpen = (): void => {
    if (state === 'closed') throw new Error('event bus is closed');
  };

  const launch = (subscription: Subscription): void => {
    subscription.running = consume(subscription).catch((error: unknown) => {
      logger.error(
        { topic: subscription.topic.name, group: subscription.group, err: error },
        'memory consumer crashed',
      );
    });
  };

  const launchGlobal = (reader: GlobalReader): void => {
    reader.running = consumeGlobal(reader).catch((error: unknown) => {
      logger.error(
        { topic: reader.topic.name, subscription: reader.name, err: error },
        'memory global consumer crashed',
      );
    });
  };

  /** Every partition from the oldest record held, in this bus only; caught up at the end offsets of now. */
  async function consumeGlobal(reader: GlobalReader): Promise<void> {
    const { topic, holder } = reader;
    const partitions = broker.ensureTopic(topic.name);
    broker.hold(topic.name, holder);
    try {
      reader.catchUp.setTargets(
        Array.from({ length: partitions }, (_, partition) => ({
          partition,
          low: BigInt(broker.startOffset(topic.name, partition)),
          high: BigInt(broker.endOffset(topic.name, partition)),
        })),
      );
      const limit = limiter(reader.concurrency);
      await Promise.all(
        Array.from({ length: partitions }, async (_, partition) => {
          let position = broker.startOffset(topic.name, partition);
          while (!abort.signal.aborted) {
            position = Math.max(position, broker.startOffset(topic.name, partition));
            const record = broker.read(topic.name, partition, position);
            if (!record) {
              await broker.waitForAppend(topic.name, abort.signal);
              continue;
            }
            const received = toReceived(record);
            const outcome = await limit(async () => {
              if (abort.signal.aborted) return { kind: 'aborted' as const, attempts: 0 };
              return deliver({
                system: 'marquee.memory',
                topic,
                group: reader.name,
                record: received,
                handler: reader.handler,
                maxAttempts: reader.maxAttempts,
                retry,
                signal: abort.signal,
                logger,
                exhausted: 'skip',
              });
            });
            if (outcome.kind === 'aborted') return;
            if (outcome.kind === 'dead-letter') logSkipped(logger, reader.name, received, outcome);
            position += 1;
            broker.commit(holder, topic.name, partition, position);
            reader.catchUp.advance(partition, BigInt(position));
          }
        }),
      );
    } finally {
      broker.unhold(topic.name, holder);
    }
  }

  async function consume(subscription: Subscription): Promise<void> {
    const { topic, group } = subscription;
    const member = Symbol(group);
    const partitions = broker.ensureTopic(topic.name);
    if (!(await broker.join(group, topic.name, member, abort.signal))) return;
    try {
      const limit = limiter(subscription.concurrency);
      await Promise.all(
        Array.from({ length: partitions }, (_, partition) =>
          consumePartition(subscription, partition, limit),
        ),
      );
    } finally {
      broker.leave(group, topic.name, member);
    }
  }

  async function consumePartition(
    subscription: Subscription,
    partition: number,
    limit: Limiter,
  ): Promise<void> {
    const { topic, group } = subscription;
    const committed = broker.committedOffset(group, topic.name, partition);
    // Like `auto.offset.reset`: only a group with no committed offset looks at fromBeginning.
    let position =
      committed !== undefined
        ? Number(committed)
        : subscription.fromBeginning
          ? 0
          : broker.endOffset(topic.name, partition);

    while (!abort.signal.aborted) {
      // Released records (retention `unconsumed`) are gone: resume at the oldest one held.
      position = Math.max(position, broker.startOffset(topic.name, partition));
      const record = broker.read(topic.name, partition, position);
      if (!record) {
        await broker.waitForAppend(topic.name, abort.signal);
        continue;
      }
      const outcome = await limit(async () => {
        if (abort.signal.aborted) return { kind: 'aborted' as const, attempts: 0 };
        return deliver({
          system: 'marquee.memory',
          topic,
          group,
          record: toReceived(record),
          handler: subscription.handler,
          maxAttempts: subscription.maxAttempts,
          retry,
          signal: abort.signal,
          logger,
        });
      });
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'dead-letter') {
        broker.append(dlqTopicName(topic.name), {
          key: record.key,
          value: record.value,
          headers: deadLetterHeaders(record.headers, {
            ...outcome,
            topic: record.topic,
            partition,
            offset: record.offset,
          }),
        });
        countDeadLetter(record.topic, group);
      }
      position += 1;
      broker.commit(group, topic.name, partition, position);
    }
  }

  return {
    broker,

    records: (topic) => broker.records(topic),

    async publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
      assertOpen();
      // Encode everything before appending anything: a publish is all or nothing, as one produce request.
      const prepared = events.map((event) => {
        const value = event.value === null ? null : topic.codec.encode(event.value);
        const attributes = attributesFor(topic, event, options.source);
        const { span, traceHeaders } = startPublishSpan(
          'marquee.memory',
          clientId,
          {
            topic: topic.name,
            key: event.key,
            id: attributes.id,
            bodySize: value?.byteLength ?? 0,
            tombstone: value === null,
          },
          event.headers,
        );
        const headers = {
          ...cloudEventHeaders(attributes, event.headers, value === null),
          ...traceHeaders,
        };
        return { key: event.key, value, headers, span };
      });
      for (const { key, value, headers, span } of prepared) {
        broker.append(topic.name, { key, value, headers });
        endSpan(span);
      }
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
      const subscription: Subscription = {
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
      const reader: GlobalReader = {
        topic: topic as TopicDef<unknown>,
        name: globalOptions.name,
        holder: `global\u0000${globalOptions.name}\u0000${randomUUID()}`,
        maxAttempts: maxAttemptsOf(globalOptions.maxAttempts),
        concurrency: Math.max(1, globalOptions.concurrency ?? 1),
        handler: handler as EventHandler<unknown>,
        catchUp: createCatchUpTracker(),
      };
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

function toReceived(record: MemoryRecord): ReceivedRecord {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    key: record.key,
    value: record.value,
    headers: record.headers,
    timestamp: record.timestamp,
  };
}

type Limiter = <R>(task: () => Promise<R>) => Promise<R>;

/** At most `concurrency` tasks at once; the rest queue in arrival order. */
function limiter(concurrency: number): Limiter {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    if (active < concurrency) active += 1;
    // Otherwise wait for a finishing task to hand its slot over (so no newcomer can jump in between).
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await task();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** FNV-1a over the key's UTF-8 bytes: stable across runs, so a key always lands in one partition. */
export function partitionFor(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

const offsetKey = (group: string, topic: string, partition: number): string =>
  `${group}\u0000${topic}\u0000${partition}`;
const membershipKey = (group: string, topic: string): string => `${group}\u0000${topic}`;
