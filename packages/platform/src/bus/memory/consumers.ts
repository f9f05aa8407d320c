/**
 * What the memory bus's consumers share: the broker, the bus's logger, retry policy and abort
 * signal, a broker record as the delivery loop (../delivery.ts) reads it, and the limiter of a
 * subscription's `concurrency` across its partitions.
 */
import type { ReceivedRecord, RetryPolicy } from '../delivery.js';
import type { BusLogger } from '../logger.js';
import type { MemoryBroker, MemoryRecord } from './broker.js';

export interface MemoryConsumerContext {
  broker: MemoryBroker;
  logger: BusLogger;
  retry: RetryPolicy;
  /** Aborted at close: stops fetching and cuts retry backoffs short. */
  signal: AbortSignal;
}

export function toReceived(record: MemoryRecord): ReceivedRecord {
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

export type Limiter = <R>(task: () => Promise<R>) => Promise<R>;

/** At most `concurrency` tasks at once; the rest queue in arrival order. */
export function limiter(concurrency: number): Limiter {
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
