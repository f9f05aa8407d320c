import { Event } from '@marquee/proto/catalog/v1';
import type { EventRecord, EventRecordRepository } from '../domain/event-record.js';

interface Stored {
  eventVersion: number;
  deleted: boolean;
  /**
   * Protobuf-encoded, as in Mongo: a private copy a fraction of the size of the object graph. Held
   * as a Latin-1 string of those bytes (lossless: one character per byte): one heap object the
   * collector marks without looking inside, where a `Uint8Array` is three objects and a native
   * backing store; 100,000 events made 200,000 more objects for every major collection of
   * catalog-indexer's heap (README, "Session 8").
   */
  payload: string | undefined;
}

const toPayload = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
const fromPayload = (payload: string) => Buffer.from(payload, 'latin1');

/** The read model in memory (embedded default and unit tests). */
export function createMemoryEventRecords(): EventRecordRepository {
  const records = new Map<string, Stored>();
  const toRecord = (id: string, stored: Stored): EventRecord => ({
    id,
    eventVersion: stored.eventVersion,
    deleted: stored.deleted,
    event: stored.payload !== undefined ? Event.decode(fromPayload(stored.payload)) : undefined,
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
        payload: record.event ? toPayload(Event.encode(record.event).finish()) : undefined,
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
