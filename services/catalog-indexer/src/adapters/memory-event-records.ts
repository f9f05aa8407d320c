import { Event } from '@marquee/proto/catalog/v1';
import type { EventRecord, EventRecordRepository } from '../domain/event-record.js';
import { eventMessageOf } from './proto/catalog-messages.js';
import { catalogEventOf } from './proto/kafka-messages.js';
import { latin1Bytes, latin1String } from './latin1-bytes.js';

interface Stored {
  eventVersion: number;
  deleted: boolean;
  /**
   * The event as its `Event` message, protobuf-encoded: a private copy a fraction of the size of
   * the object graph, as a Latin-1 string of those bytes (latin1-bytes.ts).
   */
  payload: string | undefined;
}

/** The read model in memory (embedded default and unit tests). */
export function createMemoryEventRecords(): EventRecordRepository {
  const records = new Map<string, Stored>();
  const toRecord = (id: string, stored: Stored): EventRecord => ({
    id,
    eventVersion: stored.eventVersion,
    deleted: stored.deleted,
    event:
      stored.payload !== undefined
        ? catalogEventOf(Event.decode(latin1Bytes(stored.payload)))
        : undefined,
  });
  return {
    async get(id) {
      const found = records.get(id);
      return found && toRecord(id, found);
    },
    async put(record) {
      records.set(record.id, {
        eventVersion: record.eventVersion,
        deleted: record.deleted,
        payload: record.event
          ? latin1String(Event.encode(eventMessageOf(record.event)).finish())
          : undefined,
      });
    },
    async *scan(pageSize) {
      const ids = [...records.keys()].sort();
      for (let i = 0; i < ids.length; i += pageSize) {
        yield ids.slice(i, i + pageSize).map((id) => toRecord(id, records.get(id)!));
      }
    },
  };
}
