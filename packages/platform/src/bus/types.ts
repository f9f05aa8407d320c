/**
 * The event-bus port. Services publish facts and consume them through this interface only; it
 * never names the broker (kafkajs and in-memory adapters implement it). See docs/architecture.md.
 */

/** A topic of the catalog (`@marquee/proto` topics.ts). Structural so the proto package need not import the platform. */
export interface TopicDef<T> {
  /** Kafka topic name, kebab-case, no environment prefix. */
  readonly name: string;
  /** CloudEvents `ce_type`, the fully qualified protobuf message name. */
  readonly type: string;
  /** What the record key is (documentation and Helm topic catalog). */
  readonly keyDescription: string;
  readonly compacted: boolean;
  /** Retention in ms; -1 keeps forever. */
  readonly retentionMs: number;
  /** The service that owns (produces) the topic. */
  readonly producer: string;
  readonly codec: {
    encode(message: T): Uint8Array;
    decode(bytes: Uint8Array): T;
  };
}

export interface OutgoingEvent<T> {
  /** Record key: the entity id that orders the stream. */
  key: string;
  /** The message; `null` is a tombstone (compacted topics). */
  value: T | null;
  /** CloudEvents id; generated (UUID v4) when absent. Stable across outbox retries so consumers can dedupe. */
  id?: string;
  /** CloudEvents time; now when absent. */
  time?: Date;
  /** CloudEvents source; the bus's configured source when absent. */
  source?: string;
  /**
   * Extra headers (string values). Reserved headers (`ce_*`, `content-type`, `traceparent`,
   * `tracestate`) are set by the bus. A `traceparent`/`tracestate` given here is used as the parent
   * of the publish span instead of the active context, so an outbox relay can keep the trace of the
   * request that wrote the event; the record then carries the publish span's own context.
   */
  headers?: Record<string, string>;
}

export interface IncomingEvent<T> {
  topic: string;
  key: string;
  /** `null` for a tombstone. */
  value: T | null;
  /** CloudEvents attributes read from the headers. */
  id: string;
  type: string;
  source: string;
  time: Date;
  partition: number;
  offset: string;
  /** 1 on first delivery, incremented on each retry of the same record in this process. */
  attempt: number;
  headers: Record<string, string>;
}

export interface SubscribeOptions {
  /** Consumer group id; one per consuming service and purpose, e.g. `catalog-indexer.event-changed`. */
  group: string;
  /** Start from the earliest offset when the group has no committed offset (default true). */
  fromBeginning?: boolean;
  /** Deliveries before the record goes to `<topic>.dlq` (default 5). */
  maxAttempts?: number;
  /**
   * Partitions processed in parallel (default 1). Records of one partition, hence of one key, are
   * never processed in parallel whatever this says.
   */
  concurrency?: number;
  /**
   * Records of one partition with different keys handled at once, up to this many (default 1: one
   * record at a time). Records of one key stay in order: the records taken together are the next
   * ones of the partition up to the first key seen twice, and the next group starts when all of
   * them are done. For handlers whose writes of different keys may meet in one database command
   * (grouped inserts); the handler must be safe to run for different keys at once.
   */
  keysInParallel?: number;
}

export type EventHandler<T> = (event: IncomingEvent<T>) => Promise<void>;

/**
 * A "global table" subscription: this process reads every partition of the topic from the oldest
 * record held, whatever other processes read, as Kafka Streams' global tables do. For a read model
 * that each replica holds whole in memory (rebuilt from a compacted topic at every start).
 */
export interface GlobalSubscribeOptions {
  /**
   * What the subscription is called in logs, spans and the Kafka consumer group id prefix (a group
   * of its own per process, never shared, never committed), e.g. `catalog-indexer.event-changed`.
   */
  name: string;
  /**
   * Deliveries of a failing record before it is logged and skipped (default 5). A global
   * subscription never writes `<topic>.dlq`: every replica, at every start, reads the same history,
   * so each would dead-letter the same record again.
   */
  maxAttempts?: number;
  /** Partitions processed in parallel (default 1); one key is never processed in parallel. */
  concurrency?: number;
}

export interface GlobalSubscription {
  /**
   * True once every record the topic held when consumption started (its end offsets then) has been
   * handled or skipped: the read model is as complete as it was when this process started. Stays
   * true afterwards.
   */
  caughtUp(): boolean;
  /** Resolves when {@link caughtUp} becomes true (never rejects; pending forever if the bus closes first). */
  whenCaughtUp(): Promise<void>;
}

export interface EventBus {
  publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void>;
  /** Register a handler; consumption starts on `start()` (or at once if already started). */
  subscribe<T>(
    topic: TopicDef<T>,
    options: SubscribeOptions,
    handler: EventHandler<T>,
  ): Promise<void>;
  /**
   * Reads the whole topic in this process (every partition, from the oldest record held; no group
   * shared with other processes, nothing committed): see {@link GlobalSubscribeOptions}. Consumption
   * starts on `start()` (or at once if already started).
   */
  subscribeGlobal<T>(
    topic: TopicDef<T>,
    options: GlobalSubscribeOptions,
    handler: EventHandler<T>,
  ): Promise<GlobalSubscription>;
  start(): Promise<void>;
  /** True when the broker answers and every consumer is alive (memory: from start until close). */
  ready(): Promise<boolean>;
  /** Stop fetching, let in-flight handlers finish and commit, then disconnect. Idempotent. */
  close(): Promise<void>;
}

/** The dead-letter topic name for a topic. */
export const dlqTopicName = (topic: string): string => `${topic}.dlq`;
