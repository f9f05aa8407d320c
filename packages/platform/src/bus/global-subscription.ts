import type { DeliveryOutcome, ReceivedRecord } from './delivery.js';
import type { BusLogger } from './logger.js';
import type { GlobalSubscription } from './types.js';

/** The span of one partition when a global subscription started reading it. */
export interface PartitionExtent {
  partition: number;
  /** Oldest offset held. */
  low: bigint;
  /** Next offset to be written (the end offset, Kafka's high watermark). */
  high: bigint;
}

/**
 * How far a global subscription has read against the end offsets it saw when it started: the
 * readiness of a replica that must hold the whole topic before it answers anything.
 */
export interface CatchUpTracker {
  readonly subscription: GlobalSubscription;
  /** The extents seen when consumption started; a partition with nothing held is done at once. */
  setTargets(extents: readonly PartitionExtent[]): void;
  /** Every offset of `partition` below `next` has been handled (or skipped). */
  advance(partition: number, next: bigint): void;
}

export function createCatchUpTracker(): CatchUpTracker {
  /** Partition → offset still to reach; absent once reached. */
  let pending: Map<number, bigint> | undefined;
  let done = false;
  let resolveCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => {
    resolveCaughtUp = resolve;
  });
  const settle = (): void => {
    if (!done && pending?.size === 0) {
      done = true;
      resolveCaughtUp();
    }
  };
  return {
    subscription: {
      caughtUp: () => done,
      whenCaughtUp: () => caughtUp,
    },
    setTargets(extents) {
      // A restarted consumer (Kafka rejoining after a crash) keeps its first targets.
      if (pending) return;
      pending = new Map();
      for (const { partition, low, high } of extents) {
        if (high > low) pending.set(partition, high);
      }
      settle();
    },
    advance(partition, next) {
      const target = pending?.get(partition);
      if (target !== undefined && next >= target) {
        pending!.delete(partition);
        settle();
      }
    },
  };
}

/**
 * What a global subscription does with a record whose every attempt failed (or that does not
 * decode): log it and move on. It never dead-letters: each replica, at each start, reads the same
 * history and would write the same dead letter again; the record stays in its topic, at the offset
 * logged here.
 */
export function logSkipped(
  logger: BusLogger,
  name: string,
  record: ReceivedRecord,
  outcome: Extract<DeliveryOutcome, { kind: 'dead-letter' }>,
): void {
  logger.error(
    {
      subscription: name,
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      eventId: record.headers['ce_id'],
      attempts: outcome.attempts,
      err: outcome.error,
    },
    'global subscription skipped a record it could not apply',
  );
}
