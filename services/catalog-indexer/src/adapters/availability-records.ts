import {
  DEFAULT_CONFLICT_ATTEMPTS,
  isWriteRace,
  retryingConflicts,
} from '@marquee/platform/kernel';
import { createMemoryStore, type VersionedStore } from '@marquee/platform/store';
import type {
  AreaCount,
  AvailabilityRecord,
  AvailabilityRecordRepository,
} from '../domain/availability.js';

/** Stored form, one document per event id (`_id`); `version` is the store's compare-and-set. */
interface StoredAvailability {
  id: string;
  version: number;
  sequence: number;
  observedAt: Date | null;
  fullSync: boolean;
  totalAvailable: number;
  areas: AreaCount[];
}

/**
 * The availability records on a versioned store: the sequence guard is checked on the record read,
 * and the write is a compare-and-set on the store version, so a record written in between (another
 * writer) is read again and its sequence decides.
 */
function availabilityRecordsOn(
  store: VersionedStore<StoredAvailability>,
): AvailabilityRecordRepository {
  const toRecord = (stored: StoredAvailability): AvailabilityRecord => ({
    eventId: stored.id,
    sequence: stored.sequence,
    observedAt: stored.observedAt ?? undefined,
    fullSync: stored.fullSync,
    totalAvailable: stored.totalAvailable,
    areas: stored.areas.map((a) => ({ areaId: a.areaId, available: a.available })),
  });
  return {
    async get(eventId) {
      const stored = await store.get(eventId);
      return stored && toRecord(stored);
    },
    async put(record) {
      const draft = {
        id: record.eventId,
        sequence: record.sequence,
        observedAt: record.observedAt ?? null,
        fullSync: record.fullSync,
        totalAvailable: record.totalAvailable,
        areas: record.areas.map((a) => ({ areaId: a.areaId, available: a.available })),
      };
      // A write that lost a race with another writer is decided again on what that one wrote.
      return retryingConflicts(
        async () => {
          const current = await store.get(record.eventId);
          if (current && current.sequence >= record.sequence) return false;
          if (current) await store.update(record.eventId, current.version, draft);
          else await store.insert(draft);
          return true;
        },
        { isConflict: isWriteRace },
      ).catch((error: unknown) => {
        if (!isWriteRace(error)) throw error;
        throw Object.assign(
          new Error(
            `availability of ${record.eventId}: lost ${DEFAULT_CONFLICT_ATTEMPTS} writes in a row`,
          ),
          { kind: 'aborted' },
        );
      });
    },
    async *scan(pageSize) {
      let after: string | undefined;
      for (;;) {
        const page = await store.find(after === undefined ? {} : { id: { $gt: after } }, {
          sort: { id: 1 },
          limit: pageSize,
        });
        if (page.length === 0) return;
        yield page.map(toRecord);
        after = page[page.length - 1]!.id;
        if (page.length < pageSize) return;
      }
    },
  };
}

/** Availability records in memory (embedded default and unit tests). */
export function createMemoryAvailabilityRecords(): AvailabilityRecordRepository {
  return availabilityRecordsOn(createMemoryStore<StoredAvailability>({ name: 'availability' }));
}
