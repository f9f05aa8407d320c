import type { Connection } from 'mongoose';
import type { RateCounter } from '../app/ports.js';

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
 * Counters in Mongo, shared by every auth-gateway replica: one `$inc` upsert per call, atomic on
 * MongoDB. FerretDB 1.24 (dev/CI) applies updates non-atomically, which is correct with one
 * auth-gateway process, as the distributed stack runs it. No TTL index (FerretDB has none): expired
 * windows are deleted by a sweep at most once a minute.
 */
export function createMongoRateCounter(
  connection: Connection,
  now: () => number = Date.now,
): RateCounter {
  const collection = connection.collection<CounterDoc>('rate_counters');
  // FerretDB does not apply `$inc` atomically and two concurrent upserts of a new key race to a
  // duplicate-key error (on MongoDB too): writes of one key are chained inside this process, and an
  // upsert that lost the race is retried as the update it now is.
  const tails = new Map<string, Promise<unknown>>();
  let sweepAt = 0;
  const write = async (key: string, amount: number, expiresAtMs: number): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await collection.findOneAndUpdate(
          { _id: key },
          { $inc: { count: amount }, $setOnInsert: { expiresAt: new Date(expiresAtMs) } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc?.count ?? amount;
      } catch (error) {
        if ((error as { code?: number }).code !== 11000 || attempt >= 3) throw error;
      }
    }
  };
  return {
    async add(key, amount, expiresAtMs) {
      const t = now();
      if (t >= sweepAt) {
        sweepAt = t + 60_000;
        void collection.deleteMany({ expiresAt: { $lt: new Date(t) } }).catch(() => undefined);
      }
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(
        () => write(key, amount, expiresAtMs),
        () => write(key, amount, expiresAtMs),
      );
      tails.set(key, result);
      try {
        return await result;
      } finally {
        if (tails.get(key) === result) tails.delete(key);
      }
    },
  };
}
