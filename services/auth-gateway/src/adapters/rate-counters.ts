import type { Collection, Connection } from 'mongoose';
import { retryingConflicts } from '@marquee/platform/kernel';
import type { ServiceStores } from '@marquee/platform/store';
import type { RateCounter } from '../app/ports.js';

/**
 * The rate counters of the process's storage: in memory with the memory collections, in Mongo's
 * `rate_counters` (shared by every replica) with the Mongo ones.
 */
export const createRateCounter = (stores: ServiceStores): RateCounter =>
  stores.adapter({
    memory: () => createMemoryRateCounter(),
    mongo: (connection) => createMongoRateCounter(connection),
  });

/** Counters in this process (embedded default, one auth-gateway replica). */
export function createMemoryRateCounter(now: () => number = Date.now): RateCounter {
  const counters = new Map<string, { count: number; expiresAtMs: number }>();
  let sweepAt = 0;
  return {
    async add(key, amount, expiresAtMs) {
      const t = now();
      if (t >= sweepAt) {
        // Expired windows are dropped at most once a second: memory stays bounded by live windows.
        for (const [k, c] of counters) if (c.expiresAtMs <= t) counters.delete(k);
        sweepAt = t + 1_000;
      }
      const entry = counters.get(key) ?? { count: 0, expiresAtMs };
      entry.count += amount;
      counters.set(key, entry);
      return entry.count;
    },
  };
}

interface CounterDoc {
  _id: string;
  count: number;
  expiresAt: Date;
}

/**
 * Counters in Mongo, shared by every auth-gateway replica: one `$inc` upsert per write, atomic on
 * MongoDB. FerretDB 1.24 (dev/CI) applies updates non-atomically, which is correct with one
 * auth-gateway process, as the distributed stack runs it. No TTL index (FerretDB has none): expired
 * windows are deleted by a sweep at most once a minute.
 *
 * Calls of one key are group-committed: while a write of the key is in flight, the calls that
 * arrive add up into the next write, and each call gets the count it would have had alone (the
 * total after the write less what the calls after it in the batch added). A burst of one app then
 * costs a few writes instead of one per call queued behind each other.
 *
 * With a `lease` (API quotas at high rates), a write also takes units ahead, up to the lease, and
 * later calls are counted from them in memory without a write: at hundreds of calls a second on
 * one key, most calls then cost no round trip at all, and each still gets a count no other call
 * got. The block taken ahead doubles while it empties within 250 ms and halves otherwise.
 */
export function createMongoRateCounter(
  connection: Connection,
  now: () => number = Date.now,
): RateCounter {
  const collection = connection.collection<CounterDoc>('rate_counters');
  const keys = new Map<string, KeyState>();
  const flush = (key: string): void => {
    const state = keys.get(key);
    if (!state) return;
    // Calls are served from units taken ahead first, also while a write is in flight.
    serveFromPool(state);
    if (state.writing || state.waiting.length === 0) return;
    const batch = state.waiting;
    state.waiting = [];
    state.writing = true;
    const demand = batch.reduce((sum, w) => sum + w.amount, 0);
    // Only growth is taken ahead; a batch that gives back is written as it is.
    const ahead = demand > 0 && state.lease > 1 ? Math.max(0, state.block - demand) : 0;
    const total = demand + ahead;
    writeCount(collection, key, total, state.expiresAtMs)
      .then(
        (count) => {
          let after = total;
          for (const waiter of batch) {
            after -= waiter.amount;
            waiter.resolve(count - after);
          }
          if (ahead > 0) refillPool(state, count, ahead, now());
        },
        (error: unknown) => {
          for (const waiter of batch) waiter.reject(error);
        },
      )
      .finally(() => {
        state.writing = false;
        flush(key);
      });
  };
  let sweepAt = 0;
  return {
    add(key, amount, expiresAtMs, options = {}) {
      const t = now();
      if (t >= sweepAt) {
        sweepAt = t + 60_000;
        void collection.deleteMany({ expiresAt: { $lt: new Date(t) } }).catch(() => undefined);
        for (const [k, state] of keys)
          if (state.expiresAtMs < t && !state.writing && state.waiting.length === 0) keys.delete(k);
      }
      const lease = Math.max(1, Math.floor(options.lease ?? 1));
      const state = keys.get(key) ?? { writing: false, waiting: [], expiresAtMs, lease, block: 2 };
      keys.set(key, state);
      state.lease = lease;
      return new Promise<number>((resolve, reject) => {
        state.waiting.push({ amount, resolve, reject });
        flush(key);
      });
    },
  };
}

interface Waiter {
  amount: number;
  resolve: (count: number) => void;
  reject: (error: unknown) => void;
}

/**
 * Per key: whether a write is in flight, the calls waiting for the next one, and the units taken
 * ahead (`pool`: counts `next`..`end` not yet handed out) with the size of the next lease.
 */
interface KeyState {
  writing: boolean;
  waiting: Waiter[];
  expiresAtMs: number;
  lease: number;
  block: number;
  pool?: { next: number; end: number; takenAt: number };
}

/** MongoDB's duplicate-key error code. */
const DUPLICATE_KEY = 11000;

/**
 * Adds `amount` to the key's counter: the count after. FerretDB does not apply `$inc` atomically
 * and two concurrent upserts of a new key race to a duplicate-key error (on MongoDB too): writes of
 * one key are never concurrent inside this process, and an upsert that lost the race is retried as
 * the update it now is.
 */
async function writeCount(
  collection: Collection<CounterDoc>,
  key: string,
  amount: number,
  expiresAtMs: number,
): Promise<number> {
  return retryingConflicts(
    async () => {
      const doc = await collection.findOneAndUpdate(
        { _id: key },
        { $inc: { count: amount }, $setOnInsert: { expiresAt: new Date(expiresAtMs) } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc?.count ?? amount;
    },
    { isConflict: (error) => (error as { code?: number }).code === DUPLICATE_KEY },
  );
}

/** Hands out units taken ahead to the calls at the head of the queue while they last. */
function serveFromPool(state: KeyState): void {
  const pool = state.pool;
  while (pool && state.waiting.length > 0) {
    const head = state.waiting[0]!;
    if (head.amount <= 0 || pool.end - pool.next + 1 < head.amount) return;
    state.waiting.shift();
    pool.next += head.amount;
    head.resolve(pool.next - 1);
  }
}

/**
 * The units a write took ahead (the last `ahead` up to `count`) become the key's pool; the next
 * block doubles when the last pool emptied fast (within 250 ms), up to the lease, and halves
 * otherwise.
 */
function refillPool(state: KeyState, count: number, ahead: number, t: number): void {
  const drainedFast = state.pool !== undefined && t - state.pool.takenAt < 250;
  state.block = drainedFast
    ? Math.min(state.lease, state.block * 2)
    : Math.max(2, Math.floor(state.block / 2));
  state.pool = { next: count - ahead + 1, end: count, takenAt: t };
}
