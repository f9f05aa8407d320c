/**
 * What differs between the two write modes (see ../README.md, "Write modes"): where a write's
 * condition is checked, what happens around a write that records events, how a delete and a relay
 * acknowledgement keep their conditions, and how the relay finds pending documents.
 * server-mode.ts and in-process-mode.ts implement it; document-writes.ts and the store's outbox
 * members call it.
 */
import type { OutboxEvent, PendingOutbox } from '../../outbox/types.js';
import type { WriteConditions } from './collection.js';
import type { Filter, StoredDoc } from './stored.js';

export interface WriteMode {
  readonly kind: WriteConditions;
  /** Whether `update` reads the document and checks its version here before writing it. */
  readonly readsBeforeUpdate: boolean;
  /** The filter of a write of the document as last read (`condition`): its version and state. */
  filter(id: string, condition: { version: number; tombstone: boolean }): Filter;
  /**
   * Before a write that stores `events`: whether events stored before were still pending
   * (`false`: the write replaces them with its own), or `undefined` when the mode does not know
   * (the write appends).
   */
  beforeEvents(id: string, events: readonly OutboxEvent[]): Promise<boolean | undefined>;
  /** After a write that stored `stored` whole (and added events, `withNewEvents`). */
  written(id: string, stored: StoredDoc, withNewEvents: boolean): void;
  /** `delete`, under the document's mutex. */
  delete(id: string, expectedVersion: number | undefined, events: OutboxEvent[]): Promise<boolean>;
  /** `ackOutbox`, under the document's mutex. */
  ack(docId: string, eventIds: readonly string[]): Promise<void>;
  /** `deferOutbox`, under the document's mutex. */
  defer(docId: string, until: Date): Promise<void>;
  pendingOutbox(limit: number): Promise<PendingOutbox[]>;
}
