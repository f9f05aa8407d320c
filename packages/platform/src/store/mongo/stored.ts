/**
 * The stored shape of a `createMongoStore` collection (see ../README.md), and what every module of
 * the adapter says about it: the driver's types narrowed to it, the read options, the tombstone
 * rule, the outbox fields' update, and how the servers report a unique-index clash.
 */
import type mongoose from 'mongoose';
import type { OutboxEvent } from '../../outbox/types.js';

export type Collection<D extends mongoose.mongo.Document> = mongoose.mongo.Collection<D>;
export type Filter = mongoose.mongo.Filter<StoredDoc>;
export type UpdateFilter = mongoose.mongo.UpdateFilter<StoredDoc>;

/** An outbox event as stored in a document's `outbox` array. */
export interface StoredEvent {
  id: string;
  topic: string;
  key: string;
  type: string;
  value: Uint8Array | null;
  time: Date;
  traceparent?: string;
  tracestate?: string;
  correlationId?: string;
}

/** One record of a collection. */
export interface StoredDoc {
  _id: string;
  version: number;
  data: Record<string, unknown>;
  /** The packed fields (`pack`): BSON bytes, written as a Binary, read back as a Buffer. */
  packed?: unknown;
  /** The fields kept out of `packed` when it was written (`layoutOf`); absent before layouts. */
  layout?: string;
  tombstone: boolean;
  outbox: StoredEvent[];
  outboxPending: boolean;
  outboxDueAt?: Date;
}

/** In-process mode: a document with events to relay, and when they are due. */
export interface PendingMarker {
  _id: string;
  dueAt: Date;
}

/** The relay lease of a collection (`_id` is the collection's name). */
export interface LeaseDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
}

// Binary comes back as Buffer rather than the driver's Binary wrapper, as the memory adapter returns it.
export const READ = { promoteBuffers: true } as const;
// Projections on find/findOne only: FerretDB 1.24 rejects one ("fields") on findAndModify.
export const DOCUMENT_PROJECTION = {
  _id: 1,
  version: 1,
  data: 1,
  packed: 1,
  tombstone: 1,
} as const;
// Bounded loops for races that only repeat while other processes keep winning them.
export const MAX_RACE_RETRIES = 5;

/** The document unless it is a tombstone (a deleted record waiting for its outbox to drain). */
export const live = <D extends { tombstone?: boolean }>(doc: D | null): D | null =>
  doc === null || doc.tombstone === true ? null : doc;

/** The caller's view of a stored record: its data with `id` and `version`. */
export const toDocument = <T>(stored: Pick<StoredDoc, '_id' | 'version' | 'data'>): T =>
  ({ ...stored.data, id: stored._id, version: stored.version }) as unknown as T;

/**
 * `$push` the events and mark the record due now (`$min` keeps an earlier due time); with
 * `replace` (in-process mode, no marker: the stored events are all published), store them in
 * place of the stored ones.
 */
export function withEvents(
  update: UpdateFilter,
  events: OutboxEvent[],
  now: Date,
  replace = false,
): UpdateFilter {
  if (events.length === 0) return update;
  if (replace)
    return {
      ...update,
      $set: { ...update.$set, outboxPending: true, outbox: events as StoredEvent[] },
      $min: { ...update.$min, outboxDueAt: now },
    };
  return {
    ...update,
    $set: { ...update.$set, outboxPending: true },
    $push: { outbox: { $each: events as StoredEvent[] } },
    $min: { ...update.$min, outboxDueAt: now },
  };
}

/** The update that turns a record into a tombstone carrying `events`. */
export function tombstoneUpdate(events: OutboxEvent[], now: Date, replace = false): UpdateFilter {
  return withEvents(
    {
      $set: { tombstone: true, outboxPending: true },
      $inc: { version: 1 },
      $min: { outboxDueAt: now },
    },
    events,
    now,
    replace,
  );
}

export function fromStoredEvent(stored: StoredEvent): OutboxEvent {
  return {
    id: stored.id,
    topic: stored.topic,
    key: stored.key,
    type: stored.type,
    value: stored.value ?? null,
    time: stored.time,
    ...(stored.traceparent != null ? { traceparent: stored.traceparent } : {}),
    ...(stored.tracestate != null ? { tracestate: stored.tracestate } : {}),
    ...(stored.correlationId != null ? { correlationId: stored.correlationId } : {}),
  };
}

/**
 * A unique-index violation. MongoDB answers E11000 (code 11000) everywhere; FerretDB 1.24 does so on
 * insert only, and on update reports SQLite's constraint failure as an InternalError (code 1).
 */
export function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 11000) return true;
  return code === 1 && typeof message === 'string' && message.includes('UNIQUE constraint failed');
}

// MongoDB names the clashing index in `keyPattern`; FerretDB does not, and then the caller retries.
export function duplicateOnOtherIndex(error: unknown): boolean {
  const keyPattern = (error as { keyPattern?: unknown }).keyPattern;
  return typeof keyPattern === 'object' && keyPattern !== null && !('_id' in keyPattern);
}
