import type { VersionedRecord } from '../domain/model.js';
import type { Repository } from '../app/ports.js';

/** How long a record read or written by this process is answered from memory. */
export const RECENT_READ_MS = 1000;

/** Past this many entries, remembering a record first drops the entries that are too old. */
const PRUNE_ABOVE = 1000;

/**
 * A repository whose `get` answers a record this process read or wrote within the last
 * `maxAgeMs` from memory. For records that every booking reads and that rarely change (events):
 * a hold then costs no read of its event. Writes through this repository replace the entry, so
 * this process sees its own changes at once; a change written by another process is seen within
 * `maxAgeMs`. A failed compare-and-set drops the entry, so a retry reads the stored record.
 * Records are handed out as stored: callers must not change them (they copy, as the use cases do).
 */
export function recentReads<T extends VersionedRecord>(
  inner: Repository<T>,
  maxAgeMs = RECENT_READ_MS,
  now: () => number = () => performance.now(),
): Repository<T> {
  const entries = new Map<string, { record: T; at: number }>();
  const remember = (record: T): T => {
    const at = now();
    if (entries.size >= PRUNE_ABOVE)
      for (const [id, entry] of entries) if (at - entry.at >= maxAgeMs) entries.delete(id);
    entries.set(record.id, { record, at });
    return record;
  };
  return {
    async get(id) {
      const entry = entries.get(id);
      if (entry !== undefined && now() - entry.at < maxAgeMs) return entry.record;
      entries.delete(id);
      const record = await inner.get(id);
      return record === undefined ? undefined : remember(record);
    },
    insert: async (record) => remember(await inner.insert(record)),
    async update(id, expectedVersion, next) {
      try {
        return remember(await inner.update(id, expectedVersion, next));
      } catch (error) {
        entries.delete(id);
        throw error;
      }
    },
    find: (filter, options) => inner.find(filter, options),
    count: (filter) => inner.count(filter),
  };
}
