import { createMemoryStore, isVersionConflict, type VersionedStore } from '@marquee/platform/store';
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

/** How many times a write that lost a race with another writer is decided again. */
const MAX_RACES = 5;

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
      for (let race = 0; race < MAX_RACES; race++) {
        const current = await store.get(record.eventId);
        if (current && current.sequence >= record.sequence) return false;
        try {
          if (current) await store.update(record.eventId, current.version, draft);
          else await store.insert(draft);
          return true;
        } catch (error) {
          const lostRace =
            isVersionConflict(error) || (error as { kind?: string }).kind === 'already_exists';
          if (!lostRace) throw error;
        }
      }
      throw Object.assign(
        new Error(`availability of ${record.eventId}: lost ${MAX_RACES} writes in a row`),
        { kind: 'aborted' },
      );
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
