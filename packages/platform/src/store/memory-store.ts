/**
 * The in-memory adapter of `VersionedStore` (embedded default, unit tests). Every method does its work
 * synchronously before its first `await`, so each write is atomic with respect to the others exactly
 * like a single-document write on the server, and it runs the same contract suite as the Mongo adapter.
 */
import type { OutboxEvent, OutboxSource, PendingOutbox } from '../outbox/types.js';
import { alreadyExists, invalidDocument, notFound, versionConflict } from './errors.js';
import { matchesFilter, sortComparator } from './memory-query.js';
import { normalizeFilter } from './filter.js';
import { packingOf } from './packing.js';
import { portableEvents, splitDocument, toPortable } from './portable.js';
import type {
  CollectionOptions,
  Draft,
  FindOptions,
  Modification,
  ModifyOptions,
  Mutation,
  StoreFilter,
  StoreIndex,
  Versioned,
  VersionedStore,
  WriteOptions,
} from './types.js';

export interface MemoryStoreOptions<T> {
  /** Collection name: error messages, relay logs and lease key. Default `documents`. */
  name?: string;
  /** Only `unique` indexes matter in memory; they are enforced like MongoDB's. */
  indexes?: readonly StoreIndex<T>[];
  /** Packs nothing in memory, but refuses queries on packed fields as the Mongo adapter does. */
  pack?: CollectionOptions<T>['pack'];
}

export type MemoryStore<T extends Versioned> = VersionedStore<T> & OutboxSource;

interface MemoryRecord {
  version: number;
  data: Record<string, unknown>;
  /** Deleted, kept until its outbox is relayed. */
  tombstone: boolean;
  outbox: OutboxEvent[];
  /** When the relay may pick the record up (ms); meaningful while the outbox is non-empty. */
  dueAt: number;
}

interface UniqueIndex {
  name: string;
  fields: string[];
  /** Index key → record id. */
  owners: Map<string, string>;
}

/** What the parts of one memory store share: its records, unique indexes, listeners and lease. */
interface MemoryState {
  name: string;
  packing: ReturnType<typeof packingOf>;
  records: Map<string, MemoryRecord>;
  uniques: UniqueIndexes;
  listeners: Set<() => void>;
  lease: { owner: string; until: number } | undefined;
}

export function createMemoryStore<T extends Versioned>(
  options: MemoryStoreOptions<T> = {},
): MemoryStore<T> {
  const name = options.name ?? 'documents';
  const state: MemoryState = {
    name,
    packing: packingOf(name, options.pack, options.indexes),
    records: new Map(),
    uniques: uniqueIndexes(name, options.indexes ?? []),
    listeners: new Set(),
    lease: undefined,
  };
  const store: MemoryStore<T> = {
    outboxName: name,

    async get(id) {
      const record = liveRecord(state, id);
      return record === undefined ? undefined : toDocument<T>(id, record);
    },

    async insert(doc, writeOptions: WriteOptions = {}) {
      return insertRecord<T>(state, doc, writeOptions);
    },

    async update(
      id,
      expectedVersion,
      change: Draft<T> | Mutation<T>,
      writeOptions: WriteOptions = {},
    ) {
      const events = portableEvents(writeOptions.events);
      const record = liveRecord(state, id);
      if (record === undefined) throw notFound(name, id);
      if (record.version !== expectedVersion)
        throw versionConflict(name, id, expectedVersion, record.version);
      const next = typeof change === 'function' ? change(toDocument(id, record)) : change;
      return write(state, id, record, next, events);
    },

    async modify(id, change: Modification<T>, modifyOptions: ModifyOptions<T> = {}) {
      const record = liveRecord(state, id);
      if (record === undefined) return undefined;
      const before = toDocument<T>(id, record);
      const next = change(toDocument(id, record));
      if (next === undefined) return before;
      return write(state, id, record, next, portableEvents(modifyOptions.events?.(before, next)));
    },

    async delete(id, expectedVersion, writeOptions: WriteOptions = {}) {
      return deleteRecord(state, id, expectedVersion, writeOptions);
    },

    async find(filter: StoreFilter<T> = {}, findOptions: FindOptions<T> = {}) {
      return findRecords(state, filter, findOptions);
    },

    async count(filter: StoreFilter<T> = {}) {
      const wanted = normalizeFilter(filter);
      state.packing?.checkQuery(wanted);
      let n = 0;
      for (const [id, record] of state.records) {
        if (
          !record.tombstone &&
          matchesFilter({ ...record.data, id, version: record.version }, wanted)
        )
          n += 1;
      }
      return n;
    },

    ...outboxOf(state),
  };
  return store;
}

/** The store's unique indexes: a clash is refused before anything changes. */
interface UniqueIndexes {
  /** Throws before anything changes, so a clash leaves the store untouched. */
  check(id: string, data: Record<string, unknown>): void;
  /** Moves a record's keys from `before` to `after` (either absent for an insert or a removal). */
  set(
    id: string,
    before: Record<string, unknown> | undefined,
    after: Record<string, unknown> | undefined,
  ): void;
}

function uniqueIndexes<T>(name: string, indexes: readonly StoreIndex<T>[]): UniqueIndexes {
  const uniques: UniqueIndex[] = indexes
    .filter((index) => index.unique === true)
    .map((index) => {
      const fields = Object.keys(index.fields).filter((field) => field !== 'id');
      return { name: index.name ?? fields.join('_'), fields, owners: new Map<string, string>() };
    })
    .filter((index) => index.fields.length > 0);
  const uniqueKey = (index: UniqueIndex, data: Record<string, unknown>): string =>
    JSON.stringify(index.fields.map((field) => keyPart(data[field])));
  return {
    check(id, data) {
      for (const index of uniques) {
        const owner = index.owners.get(uniqueKey(index, data));
        if (owner !== undefined && owner !== id) throw alreadyExists(name, id);
      }
    },
    set(id, before, after) {
      for (const index of uniques) {
        if (before !== undefined) index.owners.delete(uniqueKey(index, before));
        if (after !== undefined) index.owners.set(uniqueKey(index, after), id);
      }
    },
  };
}

function toDocument<T extends Versioned>(id: string, record: MemoryRecord): T {
  return {
    ...(toPortable(record.data) as Record<string, unknown>),
    id,
    version: record.version,
  } as unknown as T;
}

function appendEvents(record: MemoryRecord, events: OutboxEvent[]): void {
  if (events.length === 0) return;
  if (record.outbox.length === 0) record.dueAt = Date.now();
  else record.dueAt = Math.min(record.dueAt, Date.now());
  record.outbox.push(...events);
}

function notify(state: MemoryState, events: readonly OutboxEvent[]): void {
  if (events.length === 0) return;
  for (const listener of state.listeners) listener();
}

function liveRecord(state: MemoryState, id: string): MemoryRecord | undefined {
  const record = state.records.get(id);
  return record === undefined || record.tombstone ? undefined : record;
}

/** The next state of a live record, at the next version, with its events. */
function write<T extends Versioned>(
  state: MemoryState,
  id: string,
  record: MemoryRecord,
  next: Draft<T>,
  events: OutboxEvent[],
): T {
  const { id: nextId, data } = splitDocument(next);
  if (nextId !== id)
    throw invalidDocument(`${state.name} ${id}: an update cannot change the id`, { id, nextId });
  state.uniques.check(id, data);
  state.uniques.set(id, record.data, data);
  record.data = data;
  record.version += 1;
  appendEvents(record, events);
  notify(state, events);
  return toDocument(id, record);
}

function insertRecord<T extends Versioned>(
  state: MemoryState,
  doc: Draft<T>,
  writeOptions: WriteOptions,
): T {
  const { id, data } = splitDocument(doc);
  const events = portableEvents(writeOptions.events);
  const existing = state.records.get(id);
  if (existing !== undefined && !existing.tombstone) throw alreadyExists(state.name, id);
  state.uniques.check(id, data);
  let record: MemoryRecord;
  if (existing === undefined) {
    record = { version: 1, data, tombstone: false, outbox: [], dueAt: 0 };
    state.records.set(id, record);
  } else {
    // Re-created while its deletion events are still queued: they stay first in the outbox.
    record = existing;
    state.uniques.set(id, record.data, undefined);
    record.version += 1;
    record.data = data;
    record.tombstone = false;
  }
  state.uniques.set(id, undefined, data);
  appendEvents(record, events);
  notify(state, events);
  return toDocument(id, record);
}

function deleteRecord(
  state: MemoryState,
  id: string,
  expectedVersion: number | undefined,
  writeOptions: WriteOptions,
): boolean {
  const events = portableEvents(writeOptions.events);
  const record = liveRecord(state, id);
  if (record === undefined) return false;
  if (expectedVersion !== undefined && record.version !== expectedVersion) {
    throw versionConflict(state.name, id, expectedVersion, record.version);
  }
  if (events.length === 0 && record.outbox.length === 0) {
    state.uniques.set(id, record.data, undefined);
    state.records.delete(id);
    return true;
  }
  // Its events (earlier ones and the deletion's) must still reach the bus: keep a tombstone.
  record.tombstone = true;
  record.version += 1;
  appendEvents(record, events);
  notify(state, events);
  return true;
}

function findRecords<T extends Versioned>(
  state: MemoryState,
  filter: StoreFilter<T>,
  findOptions: FindOptions<T>,
): T[] {
  const { skip, limit } = checkPaging(findOptions);
  const wanted = normalizeFilter(filter);
  state.packing?.checkQuery(wanted, findOptions.sort);
  const matches: Record<string, unknown>[] = [];
  for (const [id, record] of state.records) {
    if (record.tombstone) continue;
    const view = { ...record.data, id, version: record.version };
    if (matchesFilter(view, wanted)) matches.push(view);
  }
  matches.sort(sortComparator(findOptions.sort ?? {}));
  const page = limit === undefined ? matches.slice(skip) : matches.slice(skip, skip + limit);
  return page.map((view) =>
    toDocument<T>(view.id as string, state.records.get(view.id as string) as MemoryRecord),
  );
}

/** The store's side of the outbox relay: due records, acks, backoff, the lease, write nudges. */
function outboxOf(state: MemoryState): Omit<OutboxSource, 'outboxName'> {
  const { records } = state;
  return {
    async pendingOutbox(limit) {
      const now = Date.now();
      const due: [string, MemoryRecord][] = [];
      for (const entry of records)
        if (entry[1].outbox.length > 0 && entry[1].dueAt <= now) due.push(entry);
      due.sort((a, b) => a[1].dueAt - b[1].dueAt || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return due.slice(0, limit).map(([docId, record]): PendingOutbox => ({
        docId,
        events: portableEvents(record.outbox),
      }));
    },

    async ackOutbox(docId, eventIds) {
      const record = records.get(docId);
      if (record === undefined) return;
      const acked = new Set(eventIds);
      record.outbox = record.outbox.filter((event) => !acked.has(event.id));
      if (record.outbox.length === 0 && record.tombstone) {
        state.uniques.set(docId, record.data, undefined);
        records.delete(docId);
      }
    },

    async deferOutbox(docId, until) {
      const record = records.get(docId);
      if (record !== undefined && record.outbox.length > 0) record.dueAt = until.getTime();
    },

    async acquireOutboxLease(owner, ttlMs) {
      const now = Date.now();
      const { lease } = state;
      if (lease !== undefined && lease.owner !== owner && lease.until > now) return false;
      state.lease = { owner, until: now + ttlMs };
      return true;
    },

    async releaseOutboxLease(owner) {
      if (state.lease?.owner === owner) state.lease = undefined;
    },

    onOutboxWrite(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
  };
}

export function checkPaging(options: { skip?: number; limit?: number }): {
  skip: number;
  limit: number | undefined;
} {
  const skip = options.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0)
    throw invalidDocument('skip must be a non-negative integer', { skip });
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 0)) {
    throw invalidDocument('limit must be a non-negative integer', { limit: options.limit });
  }
  return { skip, limit: options.limit };
}

// A unique-index key part that tells kinds apart (the number 1 and the string "1" differ).
function keyPart(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return { d: value.getTime() };
  if (value instanceof Uint8Array) return { b: Buffer.from(value).toString('base64') };
  if (typeof value === 'object')
    return {
      o: JSON.stringify(value, (_k, v: unknown) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
      ),
    };
  return { [typeof value]: value };
}
