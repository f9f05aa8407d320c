/**
 * The offset commits of a consumer group, per partition. They outlive the batch that handled the
 * records: a handled record's offset waits up to `commitIntervalMs` for a commit that carries every
 * record handled meanwhile, across batches, rather than one OffsetCommit per batch (at a steady
 * trickle a batch is one record: one broker write per record). The commits of a partition run one
 * after another.
 */
import type { EachBatchPayload } from 'kafkajs';
import type { BusLogger } from '../logger.js';

/** One partition's offset commits in a group. */
export interface PartitionCommits {
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

export class OffsetCommits {
  readonly #group: string;
  readonly #intervalMs: number;
  readonly #logger: BusLogger;
  /** Per `topic\u0000partition`. */
  readonly #partitions = new Map<string, PartitionCommits>();

  constructor(group: string, intervalMs: number, logger: BusLogger) {
    this.#group = group;
    this.#intervalMs = intervalMs;
    this.#logger = logger;
  }

  /** The commit state of the batch's partition, made on first use. */
  of(payload: EachBatchPayload): PartitionCommits {
    const { topic, partition } = payload.batch;
    const key = `${topic}\u0000${partition}`;
    let state = this.#partitions.get(key);
    if (state === undefined) {
      state = {
        topic,
        partition,
        uncommitted: undefined,
        timer: undefined,
        chain: Promise.resolve(),
        commitWith: payload.commitOffsetsIfNecessary,
      };
      this.#partitions.set(key, state);
    }
    state.commitWith = payload.commitOffsetsIfNecessary;
    return state;
  }

  /** The record before `next` was handled: committed within the interval. */
  handled(state: PartitionCommits, next: bigint): void {
    state.uncommitted = next.toString();
    state.timer ??= setTimeout(() => {
      state.timer = undefined;
      // A later commit of this partition carries this offset too; redelivery is harmless anyway.
      this.commit(state).catch((error: unknown) =>
        this.#logger.warn(
          { err: error, topic: state.topic, group: this.#group },
          'offset commit failed',
        ),
      );
    }, this.#intervalMs);
  }

  /**
   * Commits what the partition handled since its last commit (nothing when that is nothing).
   * Rejects when the commit failed: the next commit of the partition carries its offset, or the
   * records come again (at least once).
   */
  commit(state: PartitionCommits): Promise<void> {
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

  /** A partition a rebalance took away is committed by its next owner, not by us. */
  drop(state: PartitionCommits): void {
    clearTimeout(state.timer);
    state.timer = undefined;
    state.uncommitted = undefined;
  }

  /** Every partition's pending offsets, now (close, or before the consumer restarts). */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.#partitions.values()].map((state) =>
        this.commit(state).catch((error: unknown) =>
          this.#logger.warn(
            { err: error, topic: state.topic, group: this.#group },
            'offset commit failed',
          ),
        ),
      ),
    );
  }
}
