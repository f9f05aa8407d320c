import type { EventRecord, EventRecordRepository } from '../domain/event-record.js';

/** The read model in memory (embedded default and unit tests). */
export function createMemoryEventRecords(): EventRecordRepository {
  const records = new Map<string, EventRecord>();
  return {
    async get(id) {
      const found = records.get(id);
      return found && structuredClone(found);
    },
    async put(record) {
      records.set(record.id, structuredClone(record));
    },
    async *scan(pageSize) {
      const ids = [...records.keys()].sort();
      for (let i = 0; i < ids.length; i += pageSize) {
        yield ids.slice(i, i + pageSize).map((id) => structuredClone(records.get(id)!));
      }
    },
  };
}
