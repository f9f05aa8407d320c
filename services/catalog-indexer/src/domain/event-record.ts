import type { CatalogEvent } from './model.js';

/**
 * One event of the read model as stored: its latest state, or a deletion marker that keeps the last
 * version seen so a redelivered older state cannot bring a deleted event back (order safety).
 */
export interface EventRecord {
  id: string;
  /** `version` of the latest state applied (kept on deletion). */
  eventVersion: number;
  deleted: boolean;
  /** Absent when deleted. */
  event: CatalogEvent | undefined;
}

/** The persistent read model (port; memory and Mongo adapters share one contract suite). */
export interface EventRecordRepository {
  get(id: string): Promise<EventRecord | undefined>;
  /** Creates or replaces the record of `record.id`. */
  put(record: EventRecord): Promise<void>;
  /** Every record, deleted ones included, in pages ordered by id (the rebuild of the index). */
  scan(pageSize: number): AsyncIterable<EventRecord[]>;
}
