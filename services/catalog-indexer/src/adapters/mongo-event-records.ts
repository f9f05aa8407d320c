import type { Connection } from 'mongoose';
import { Event } from '@marquee/proto/catalog/v1';
import { createMongoStore, type MongoStore } from '@marquee/platform/store';
import type { EventRecord, EventRecordRepository } from '../domain/event-record.js';

/**
 * Stored form: the event as its protobuf encoding (the exact `event-changed` payload, so the read
 * model keeps every field, survives schema additions and stays small), plus the version and the
 * deletion marker as plain fields.
 */
interface StoredRecord {
  id: string;
  version: number;
  eventVersion: number;
  deleted: boolean;
  payload: Uint8Array | null;
}

export interface MongoEventRecords extends EventRecordRepository {
  ensureIndexes(): Promise<void>;
}

/** The read model in the service's Mongo database, collection `events` (one writer: this consumer). */
export function createMongoEventRecords(
  connection: Connection,
  collection = 'events',
): MongoEventRecords {
  const store: MongoStore<StoredRecord> = createMongoStore<StoredRecord>({
    connection,
    collection,
  });
  const toRecord = (stored: StoredRecord): EventRecord => ({
    id: stored.id,
    eventVersion: stored.eventVersion,
    deleted: stored.deleted,
    event: stored.payload ? Event.decode(stored.payload) : undefined,
  });
  return {
    ensureIndexes: () => store.ensureIndexes(),
    async get(id) {
      const stored = await store.get(id);
      return stored && toRecord(stored);
    },
    async put(record) {
      const draft = {
        id: record.id,
        eventVersion: record.eventVersion,
        deleted: record.deleted,
        payload: record.event ? Event.encode(record.event).finish() : null,
      };
      const current = await store.get(record.id);
      if (current) await store.update(record.id, current.version, draft);
      else await store.insert(draft);
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
