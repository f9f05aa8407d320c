/**
 * The options of `createKafkaBus`, the `KafkaBus` it returns, and kafkajs's retry settings every
 * client of the bus shares.
 */
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import type { RetryPolicy } from '../delivery.js';
import type { EnsureTopicsOptions, TopicSpec } from '../ensure-topics.js';
import type { KafkaLogLevel } from '../kafka-log.js';
import type { BusLogger } from '../logger.js';
import type { RecordSigning } from '../record-signature.js';
import type { EventBus } from '../types.js';

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
     * (default `DEFAULT_SESSION_TIMEOUT_MS`, consumer-timing.ts). It also bounds how long one handler call may
     * run without a heartbeat. The broker allows 6 s to 30 min unless configured otherwise.
     */
    sessionTimeoutMs?: number;
    /**
     * How often a member tells the coordinator it is alive and learns of a rebalance (default
     * `DEFAULT_HEARTBEAT_INTERVAL_MS`); below `sessionTimeoutMs`, at most a third of it by
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

/**
 * kafkajs's retries of its own requests (connect, fetch, produce, group calls). Its default caps the
 * wait between tries at 30 s, and a consumer whose retries ran out restarts after the last wait: in
 * a broker restart the consumers sat in 6-10 s waits after the broker was back, and discovery caught
 * up 12 s after it. Capped at 2 s, a consumer tries again at most 2 s after the broker answers;
 * eight tries span about 12 s before a consumer restarts. The producer keeps retrying (producer.ts).
 */
export const KAFKA_CLIENT_RETRY = { initialRetryTime: 300, maxRetryTime: 2_000, retries: 8 };

export interface KafkaBus extends EventBus {
  /**
   * Creates the given topics and their `.dlq` twins when missing (see `ensureTopics`); with
   * `topics.autoCreate` off, checks them instead (`verifyTopics`).
   */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
}
