/**
 * The MongoDB adapter of `VersionedStore`, written for what both real MongoDB 7+ and FerretDB 1.24
 * (dev/CI) support: single-document writes, unique indexes, no transactions, no partial/sparse/TTL
 * indexes, no pipeline updates, no `$pull` with conditions.
 *
 * Stored shape, one document per record:
 *   { _id: id, version, data: { ...fields but id/version }, packed?: BSON bytes,
 *     tombstone: false, outbox: [OutboxEvent...], outboxPending: bool, outboxDueAt?: Date }
 * A collection that packs (`pack`) keeps under `data` only the fields it keeps and the rest in
 * `packed`; every read merges `packed` back (so a collection packed once reads right after packing
 * is turned off), and every write of a collection that does not pack removes it. A packed document
 * also holds `layout`, the kept fields it was split by (`layoutOf`); `relayout()` rewrites, once,
 * the documents split otherwise (written before a field was kept, or before packing), so a filter
 * on a newly kept field finds them (see `relayout` below).
 * The domain fields sit under `data` so they never collide with the store's own fields and an update
 * replaces them with one `$set`, while `outbox` is only appended to with `$push` by writers, so a
 * write never overwrites events the relay has not acked. `outboxPending` is an explicit boolean (not
 * "outbox non-empty") so the relay's scan is an equality on an index: `{ outboxPending: 1,
 * outboxDueAt: 1 }` serves `outboxPending = true AND outboxDueAt <= now ORDER BY outboxDueAt`
 * without a partial index.
 *
 * Two ways to keep a write's condition (the expected version, the outbox length), chosen by what
 * the server is (`writeConditions`, detected per connection):
 *
 * - `server` (MongoDB): every write is one conditional single-document write with the condition in
 *   the filter, atomic on the server, so it holds across processes and replicas. The relay finds
 *   pending documents through the index above.
 * - `in-process` (FerretDB 1.24): that server is weaker than its wire protocol suggests. An update
 *   or findAndModify is a SELECT followed by an unconditional `UPDATE … WHERE _id = ?` (its
 *   handler/common/update.go), so two concurrent compare-and-sets can both "win"; and only a bare
 *   `{ _id }` filter reaches SQL, any other filter decodes the whole collection, so a conditional
 *   write or a pending scan costs O(collection). Here the condition is checked in this process
 *   instead, under the per-document mutex that every write and relay ack of the connection takes,
 *   and every write and read names the document by `_id` alone. The relay finds pending documents
 *   through a small side collection of markers (`<collection>_outbox_pending`, one per document with
 *   unpublished events, deleted when they are out), so its cost follows the backlog, not the data.
 *   A marker is written before its document, under the document's mutex: events never exist
 *   without one. A crash or failed write in between leaves a marker without events, which the
 *   relay reads, finds nothing to send for and removes. No pass ever scans the collection. Removing
 *   the marker is the acknowledgement: the published events stay in the document (no write to
 *   clear them) until its next write with events, which finds no marker and replaces them instead
 *   of appending. Acknowledged markers are removed together, one command a moment later (or when
 *   the relay stops), and a write meanwhile takes its document's marker over without a command.
 *   The relay reads the markers at its first pass, at most once a second after that, and at once
 *   when the memory lost track of a pending document (a failed write, a tombstone, the memory's
 *   bound); in between, its passes take this process's pending documents from memory.
 *   (A marker left by a crash makes the relay send such events again: at least once, as after a
 *   crash between a publish and its acknowledgement.) Correct
 *   as long as one process writes a collection, which is how dev and CI run FerretDB; several
 *   writers need MongoDB. Being that one writer, the process also remembers the outbox of each
 *   document it left events in, as it wrote it, until the relay has them out: the relay's pass and
 *   its acknowledgement take the events from there instead of reading the document back (two reads
 *   fewer per write with events), and read it only for what an earlier process left. Likewise
 *   for a field indexed as a due time (`StoreIndex.due`): the process keeps every document's due
 *   time in memory, loaded by one scan at first use and again every minute (what an operator may
 *   have changed by hand), so a sweeper's `{ field: { $lte: now } }` reads the due documents by
 *   `_id` instead of decoding the collection every time it runs. And it keeps each document it
 *   wrote for `WRITTEN_TRUSTED_MS` (a second) after the write, answering reads of it (the read
 *   before the next write above all) from there: an edit made by hand in the database shows after
 *   that second, and a write of this process within it builds on what it wrote.
 *
 * Both are tested against FerretDB by the same contract suite. Inserts are atomic on both (unique _id).
 */
import type { Connection } from 'mongoose';
import mongoose from 'mongoose';
import { AppError } from '../errors/index.js';
import { mongoServerKind } from '../mongo/server-kind.js';
import type { OutboxEvent, OutboxSource, PendingOutbox } from '../outbox/types.js';
import { alreadyExists, invalidDocument, notFound, versionConflict } from './errors.js';
import { checkFieldName, normalizeFilter } from './filter.js';
import { KeyedMutex } from './keyed-mutex.js';
import { packingOf } from './packing.js';
import { isOperatorObject } from './memory-query.js';
import { checkPaging } from './memory-store.js';
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

/** The document unless it is a tombstone (a deleted record waiting for its outbox to drain). */
const live = <D extends { tombstone?: boolean }>(doc: D | null): D | null =>
  doc === null || doc.tombstone === true ? null : doc;

type Collection<D extends mongoose.mongo.Document> = mongoose.mongo.Collection<D>;
type Filter = mongoose.mongo.Filter<StoredDoc>;
type UpdateFilter = mongoose.mongo.UpdateFilter<StoredDoc>;

export interface MongoStoreOptions<T> {
  connection: Connection;
  /** Collection name; also the relay's lease key, so unique per database. */
  collection: string;
  /** Secondary indexes, created by `ensureIndexes()` (never implicitly: `autoIndex` is off). */
  indexes?: readonly StoreIndex<T>[];
  /** Where relay leases live. Default `outbox_leases`. */
  leaseCollection?: string;
  /**
   * Where write conditions are checked (see the file's header). Default: `in-process` on FerretDB,
   * `server` on MongoDB, asked of the server once per connection.
   */
  writeConditions?: WriteConditions;
  /** Fields kept out of the packed value (`CollectionOptions.pack`); default: nothing is packed. */
  pack?: CollectionOptions<T>['pack'];
}

export type WriteConditions = 'server' | 'in-process';

export type MongoStore<T extends Versioned> = VersionedStore<T> &
  OutboxSource & {
    readonly collectionName: string;
    /** Creates the collection's indexes (additively: an index removed from the list is not dropped). */
    ensureIndexes(): Promise<void>;
    /**
     * A packing collection: rewrites every live document whose stored `layout` is not the current
     * one (a field kept since it was written stays inside its packed value, where no filter finds
     * it), splitting it by the fields kept now. The content and the version stay as they are, so
     * no writer's compare-and-set is disturbed and nothing is relayed. Resolves with how many
     * documents this call rewrote; `0` at once for a collection that does not pack.
     *
     * One scan of the collection for the ids to rewrite, then each under its document's mutex,
     * conditional on the version and layout read (`server` mode), in batches of `batch`. Idempotent
     * and resumable: a rewritten document no longer matches, so a call after a crash or a second
     * replica running at the same time rewrites only what is left (a document both reach is written
     * by one; the other's condition fails or finds the same bytes). A document written meanwhile by
     * this build is already split the new way; one written by an older build (rolling deploy) is
     * rewritten by the next call.
     */
    relayout(options?: { batch?: number }): Promise<number>;
  };

interface StoredEvent {
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

interface StoredDoc {
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
interface PendingMarker {
  _id: string;
  dueAt: Date;
}

interface LeaseDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
}

// Binary comes back as Buffer rather than the driver's Binary wrapper, as the memory adapter returns it.
const READ = { promoteBuffers: true } as const;
// Projections on find/findOne only: FerretDB 1.24 rejects one ("fields") on findAndModify.
const DOCUMENT_PROJECTION = { _id: 1, version: 1, data: 1, packed: 1, tombstone: 1 } as const;
const OUTBOX_INDEX = 'outbox_pending_due';
// Bounded loops for races that only repeat while other processes keep winning them.
const MAX_RACE_RETRIES = 5;

/** In-process mode: a document's outbox as this process last wrote it (see the file's header). */
interface KnownOutbox {
  outbox: StoredEvent[];
  tombstone: boolean;
  /** When the relay should take them (epoch ms): the write's time, or later after a failure. */
  dueAt: number;
}

/**
 * How often the relay reads the markers of a collection when its memory can answer: the memory
 * holds this process's own pending documents; the markers also hold what an earlier process (or
 * a write whose outcome is unknown) left.
 */
const MARKER_SCAN_EVERY_MS = 1_000;

/** What a due field holds: dates, or epoch milliseconds as numbers. */
type DueKind = 'date' | 'number';

/** In-process mode: the due times of a collection's `due` field (see the file's header). */
interface DueTimes {
  /** Document id → due time (epoch ms); documents without one are absent. */
  times: Map<string, number>;
  /** The load under way, if any, and the writes made while it runs (applied over its result). */
  loading?: Promise<void>;
  writesDuringLoad?: Map<string, number | undefined>;
  loadedAt: number;
}
/** How often the due times are loaded again from the collection. */
const DUE_RELOAD_MS = 60_000;
/**
 * Bound on remembered outboxes per collection: a backlog beyond it (a long bus outage) is read
 * from the documents again, as after a restart, instead of growing memory with it.
 */
const MAX_KNOWN_OUTBOXES = 10_000;

/** In-process mode: a document as this process last wrote it, and when. */
interface WrittenDocument {
  version: number;
  data: Record<string, unknown>;
  writtenAt: number;
}
/**
 * How long a document this process wrote is answered from memory instead of read again: long
 * enough for the writes of one request or one short workflow (a reserve, its completion and its
 * release), short enough that an edit made by hand in the database shows within a second.
 */
const WRITTEN_TRUSTED_MS = 1_000;
/** Bound on remembered written documents per collection; the oldest go first. */
const MAX_WRITTEN_DOCUMENTS = 10_000;

/**
 * How long acknowledged markers wait to be removed together (one command for all of them), and
 * how many make the removal go at once.
 */
const SETTLE_AFTER_MS = 100;
const SETTLE_AT_MOST = 256;

/** In-process mode: markers whose documents' events are all published, not yet removed. */
interface Settling {
  /** Waiting for the next removal, with when they were acknowledged (epoch ms). */
  ids: Map<string, number>;
  /** In a removal under way: the removal, and when they were acknowledged. */
  removing: Map<string, { removal: Promise<unknown>; at: number }>;
  timer?: NodeJS.Timeout;
}

/** What the one writing process keeps of a collection in in-process mode. */
interface CollectionMemory {
  outboxes: Map<string, KnownOutbox>;
  /** When the markers were last read, and whether the memory lost track of one since. */
  markerScan: { at: number; needed: boolean };
  due: DueTimes;
  written: Map<string, WrittenDocument>;
  settling: Settling;
}
// Per connection and collection, like the mutex: every store of a collection in this process
// writes through the same memory.
const memories = new WeakMap<Connection, Map<string, CollectionMemory>>();
function memoryFor(connection: Connection, collection: string): CollectionMemory {
  let byCollection = memories.get(connection);
  if (byCollection === undefined) {
    byCollection = new Map();
    memories.set(connection, byCollection);
  }
  let memory = byCollection.get(collection);
  if (memory === undefined) {
    memory = {
      outboxes: new Map(),
      markerScan: { at: Number.NEGATIVE_INFINITY, needed: true },
      due: { times: new Map(), loadedAt: Number.NEGATIVE_INFINITY },
      written: new Map(),
      settling: { ids: new Map(), removing: new Map() },
    };
    byCollection.set(collection, memory);
  }
  return memory;
}

// One mutex per connection, shared by every store (and so every relay ack) that uses it.
const mutexes = new WeakMap<Connection, KeyedMutex>();
function mutexFor(connection: Connection): KeyedMutex {
  let mutex = mutexes.get(connection);
  if (mutex === undefined) {
    mutex = new KeyedMutex();
    mutexes.set(connection, mutex);
  }
  return mutex;
}

export function createMongoStore<T extends Versioned>(
  options: MongoStoreOptions<T>,
): MongoStore<T> {
  const { connection, collection: name } = options;
  const leaseCollection = options.leaseCollection ?? 'outbox_leases';
  const listeners = new Set<() => void>();
  const mutex = mutexFor(connection);
  const memory = memoryFor(connection, name);
  const known = memory.outboxes;
  const written = memory.written;
  const settling = memory.settling;
  const dueIndex = (options.indexes ?? []).find((index) => index.due === true);
  const dueField = dueIndex && Object.keys(dueIndex.fields)[0];
  if (dueIndex && (Object.keys(dueIndex.fields).length !== 1 || dueField === 'id'))
    throw new AppError('invalid_argument', `${name}: a due index names one date field`);
  const due = dueField === undefined ? undefined : memory.due;
  const packing = packingOf(name, options.pack, options.indexes);
  const layout = packing && layoutOf(packing.kept);
  /**
   * The `$set` (and `$unset`) of a write of `data`: with packing, the kept fields under `data` and
   * the others as one BSON value; without, all under `data` and no packed value left behind.
   */
  const dataUpdate = (data: Record<string, unknown>): Pick<UpdateFilter, '$set' | '$unset'> => {
    if (packing === undefined) return { $set: { data }, $unset: { packed: '' } };
    const { kept, packed } = pack(data);
    return { $set: { data: kept, packed, layout } };
  };
  const pack = (data: Record<string, unknown>) => {
    const kept: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(data)) {
      if (packing!.kept.has(field)) kept[field] = value;
      else rest[field] = value;
    }
    return { kept, packed: new mongoose.mongo.Binary(mongoose.mongo.BSON.serialize(rest)) };
  };
  /** The update that writes `data` along with the store's own fields in `set`. */
  const writeData = (data: Record<string, unknown>, set: Record<string, unknown>): UpdateFilter => {
    const { $set, $unset } = dataUpdate(data);
    return { $set: { ...$set, ...set }, ...($unset ? { $unset } : {}) };
  };
  /** A document as inserted: packed, when the collection packs. */
  const toInsert = (fresh: StoredDoc): StoredDoc => {
    if (packing === undefined) return fresh;
    const { kept, packed } = pack(fresh.data);
    return { ...fresh, data: kept, packed, ...(layout !== undefined ? { layout } : {}) };
  };
  /** In-process mode, after a write under the mutex: the document's due time (`undefined`: none). */
  const noteDue = (id: string, at: number | undefined): void => {
    if (due === undefined) return;
    if (at === undefined) due.times.delete(id);
    else due.times.set(id, at);
    due.writesDuringLoad?.set(id, at);
  };
  /**
   * A document's due time (epoch ms) from a date or a number; with `kind`, only from that kind
   * (a range compares a date with dates and a number with numbers only, as the server does).
   */
  const dueOf = (data: Record<string, unknown> | undefined, kind?: DueKind): number | undefined => {
    const at = dueField === undefined ? undefined : data?.[dueField];
    if (at instanceof Date) return kind === 'number' ? undefined : at.getTime();
    if (typeof at === 'number' && Number.isFinite(at)) return kind === 'date' ? undefined : at;
    return undefined;
  };
  /**
   * Runs `work` under the document's mutex. A write the driver failed may or may not have reached
   * the server, so its remembered outbox is dropped and the next pass reads the document; a refusal
   * of this store's own (a version conflict, say) wrote nothing.
   */
  const locked = <R>(id: string, work: () => Promise<R>): Promise<R> =>
    mutex.run(`${name}\u0000${id}`, async () => {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof AppError)) {
          known.delete(id);
          memory.markerScan.needed = true;
          written.delete(id);
          // Due now: the next sweep reads the document and learns its due time again.
          if (knownMode === 'in-process') noteDue(id, 0);
        }
        throw error;
      }
    });
  /** In-process mode, after a write under the mutex: what the document's outbox now is. */
  const remember = (
    id: string,
    stored: Pick<StoredDoc, 'outbox' | 'tombstone'>,
    dueAt = known.get(id)?.dueAt ?? Date.now(),
  ): void => {
    const outbox = stored.outbox ?? [];
    if (outbox.length === 0) known.delete(id);
    else if (known.has(id) || known.size < MAX_KNOWN_OUTBOXES)
      known.set(id, { outbox, tombstone: stored.tombstone, dueAt });
    // Not remembered: the relay reads the markers at its next pass to find it.
    else memory.markerScan.needed = true;
  };
  /**
   * In-process mode, after a write that stored `stored` whole: its due time, and its outbox when the
   * write left events. A write without events leaves the stored outbox as it was: still pending if
   * remembered as such, else settled events that the next write with events replaces.
   */
  const rememberWritten = (id: string, stored: StoredDoc, withNewEvents: boolean): void => {
    written.delete(id);
    const now = Date.now();
    // In write order, oldest first: what is past its second goes, so memory holds only the last
    // second's writes (and at most MAX_WRITTEN_DOCUMENTS of them), whatever their size.
    for (const [oldest, entry] of written) {
      if (now - entry.writtenAt < WRITTEN_TRUSTED_MS && written.size < MAX_WRITTEN_DOCUMENTS) break;
      written.delete(oldest);
    }
    if (!stored.tombstone) {
      // A copy: what the write answers its caller shares objects with `stored.data`.
      const data = toPortable(stored.data) as Record<string, unknown>;
      written.set(id, { version: stored.version, data, writtenAt: now });
    }
    // Due now, as its marker (`mark`).
    if (withNewEvents) remember(id, stored, now);
    else {
      const pending = known.get(id);
      if (pending !== undefined) known.set(id, { ...pending, tombstone: stored.tombstone });
    }
    noteDue(id, dueOf(stored.data));
  };
  /** In-process mode, after a delete or a tombstone: nothing of the document is remembered. */
  const forget = (id: string): void => {
    known.delete(id);
    written.delete(id);
    noteDue(id, undefined);
  };

  const db = (): mongoose.mongo.Db => {
    const handle = connection.db;
    if (handle === undefined)
      throw new AppError('unavailable', 'the MongoDB connection is not open');
    return handle;
  };
  const docs = (): Collection<StoredDoc> => db().collection<StoredDoc>(name);
  const leases = (): Collection<LeaseDoc> => db().collection<LeaseDoc>(leaseCollection);
  const markers = (): Collection<PendingMarker> =>
    db().collection<PendingMarker>(`${name}_outbox_pending`);

  let conditions: Promise<WriteConditions> | undefined;
  /** The mode once known (the first write or read that needs it asks the server). */
  let knownMode: WriteConditions | undefined = options.writeConditions;
  /** True when conditions are checked here and documents are named by `_id` alone. */
  const inProcess = async (): Promise<boolean> => {
    if (options.writeConditions !== undefined) return options.writeConditions === 'in-process';
    conditions ??= mongoServerKind(connection).then((kind): WriteConditions => {
      knownMode = kind === 'ferretdb' ? 'in-process' : 'server';
      return knownMode;
    });
    conditions.catch(() => (conditions = undefined));
    return (await conditions) === 'in-process';
  };
  /**
   * In-process mode, before a write that leaves events to relay: the document's marker, due now.
   * Written first, so a failure here fails the write before anything of it is stored, and a
   * failure after it leaves only a marker, which the relay clears (it finds no events).
   *
   * Answers whether the marker was there already. Without one, whatever events the document
   * stores were all published (the relay removes the marker only then, and leaves the events in
   * place rather than spend a write on clearing them): the write replaces them with its own.
   * With one, the stored events are still pending and the write appends to them.
   */
  const mark = async (id: string): Promise<boolean> => {
    if (settling.ids.delete(id)) {
      // Acknowledged but not removed yet: the marker is still there; this write takes it over.
      return false;
    }
    const removing = settling.removing.get(id);
    if (removing !== undefined) await removing.removal.catch(() => undefined);
    // Insert first: most writes find no marker (the relay took the last one away), and FerretDB
    // runs an insert for a third of the CPU of a findAndModify (0.22 ms against 0.69, measured).
    try {
      await markers().insertOne({ _id: id, dueAt: new Date() });
      return false;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const before = await markers().findOneAndUpdate(
      { _id: id },
      { $set: { dueAt: new Date() } },
      { upsert: true, returnDocument: 'before' },
    );
    return before !== null;
  };
  /** In-process mode: whether the document may hold unpublished events (its marker exists). */
  const marked = async (id: string): Promise<boolean> =>
    known.has(id) ||
    (!isSettled(id) && (await markers().findOne({ _id: id }, { projection: { _id: 1 } })) !== null);
  /** In-process mode: the marker is acknowledged (removed, or waiting for its removal). */
  const isSettled = (id: string): boolean => settling.ids.has(id) || settling.removing.has(id);
  /**
   * A marker read from the collection is one this process acknowledged and has yet to remove,
   * unless it was written again since (by a process that should not write here, but may).
   */
  const settledMarker = (marker: PendingMarker): boolean => {
    const at = settling.ids.get(marker._id) ?? settling.removing.get(marker._id)?.at;
    if (at === undefined) return false;
    if (marker.dueAt.getTime() <= at) return true;
    settling.ids.delete(marker._id);
    return false;
  };
  /**
   * In-process mode, under the document's mutex: its events are all out, so its marker goes,
   * with others in one command a moment later (`settleMarkers`).
   */
  const settle = (id: string): void => {
    settling.ids.set(id, Date.now());
    if (settling.ids.size >= SETTLE_AT_MOST) void settleMarkers().catch(() => undefined);
    else
      settling.timer ??= setTimeout(
        () => void settleMarkers().catch(() => undefined),
        SETTLE_AFTER_MS,
      ).unref();
  };
  /**
   * Removes the acknowledged markers. A write meanwhile takes its document's marker over (if still
   * waiting) or waits for the removal before writing a new one (if under way). A removal that
   * fails leaves markers whose events the relay then publishes once more.
   */
  const settleMarkers = async (): Promise<void> => {
    clearTimeout(settling.timer);
    settling.timer = undefined;
    const acked = [...settling.ids];
    if (acked.length === 0) return;
    settling.ids.clear();
    // Each only as acknowledged: a marker written again since (dueAt later) stays.
    const removal = markers().deleteMany({
      $or: acked.map(([id, at]) => ({ _id: id, dueAt: { $lte: new Date(at) } })),
    });
    for (const [id, at] of acked) settling.removing.set(id, { removal, at });
    try {
      await removal;
    } finally {
      for (const [id] of acked)
        if (settling.removing.get(id)?.removal === removal) settling.removing.delete(id);
    }
  };

  const toDocument = (stored: Pick<StoredDoc, '_id' | 'version' | 'data'>): T =>
    ({ ...stored.data, id: stored._id, version: stored.version }) as unknown as T;

  /**
   * `$push` the events and mark the record due now (`$min` keeps an earlier due time); with
   * `replace` (in-process mode, no marker: the stored events are all published), store them in
   * place of the stored ones.
   */
  const withEvents = (
    update: UpdateFilter,
    events: OutboxEvent[],
    now: Date,
    replace = false,
  ): UpdateFilter => {
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
  };

  const notify = (events: readonly OutboxEvent[]): void => {
    if (events.length === 0) return;
    for (const listener of listeners) listener();
  };

  // Reads filter on `_id` alone and drop tombstones here: FerretDB 1.24 (SQLite) pushes only a bare
  // `{ _id: <string> }` down to SQL and scans and decodes the whole collection for any other filter,
  // `{ _id, tombstone }` included, which made every read O(collection size). On MongoDB both forms
  // are one _id index lookup. Conditional writes keep their full filter: that is their atomicity.
  /**
   * In-process mode's unconditional write of one document. FerretDB 1.24 runs an `update` (and a
   * `delete`) command by scanning the collection even for a bare `{ _id }` filter, while
   * `findAndModify` by `_id` is one lookup: 15 ms against 1 ms at 3,000 documents, measured.
   */
  const setById = async (id: string, update: UpdateFilter): Promise<void> => {
    await docs().findOneAndUpdate({ _id: id }, update);
  };
  /**
   * A live document by `_id`. In in-process mode, one this process wrote within the last
   * `WRITTEN_TRUSTED_MS` comes from memory (a copy): no other process writes the collection, so it
   * is what a read would answer, and the read before each write of a workflow is saved.
   */
  const readDocument = async (id: string): Promise<StoredDoc | null> => {
    const recent = knownMode === 'in-process' ? written.get(id) : undefined;
    if (recent !== undefined) {
      if (Date.now() - recent.writtenAt < WRITTEN_TRUSTED_MS)
        return {
          _id: id,
          version: recent.version,
          data: toPortable(recent.data) as Record<string, unknown>,
          tombstone: false,
          outbox: [],
          outboxPending: false,
        };
      written.delete(id);
    }
    const stored = live(
      await docs().findOne({ _id: id }, { ...READ, projection: DOCUMENT_PROJECTION }),
    );
    return stored && unpacked(stored);
  };
  const readVersion = async (id: string): Promise<Pick<StoredDoc, 'version'> | null> =>
    live(await docs().findOne({ _id: id }, { projection: { version: 1, tombstone: 1 } }));

  async function insertLocked(
    id: string,
    data: Record<string, unknown>,
    events: OutboxEvent[],
  ): Promise<T> {
    // In-process mode: whether a marker was there before this insert's first one (see `mark`).
    let markedBefore: boolean | undefined;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const now = new Date();
      const fresh: StoredDoc = {
        _id: id,
        version: 1,
        data,
        tombstone: false,
        outbox: events as StoredEvent[],
        outboxPending: events.length > 0,
        ...(events.length > 0 ? { outboxDueAt: now } : {}),
      };
      try {
        const local = await inProcess();
        if (events.length > 0 && local) {
          const existed = await mark(id);
          markedBefore ??= existed;
        }
        await docs().insertOne(toInsert(fresh));
        if (local) rememberWritten(id, fresh, events.length > 0);
        notify(events);
        return toDocument(fresh);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // The id may belong to a tombstone still waiting for the relay: re-create over it, keeping
        // its queued events first so the stream says "deleted" before "created again".
        const existing = await docs().findOne(
          { _id: id },
          { projection: { tombstone: 1, version: 1 } },
        );
        if (existing === null) {
          // Either the tombstone was purged meanwhile (try again) or another unique index clashed.
          if (duplicateOnOtherIndex(error)) throw alreadyExists(name, id, error);
          continue;
        }
        if (!existing.tombstone) throw alreadyExists(name, id, error);
        const local = await inProcess();
        let revived: StoredDoc | null;
        try {
          // The marker written before the insert attempt stays: this process holds the mutex.
          revived = await docs().findOneAndUpdate(
            local ? { _id: id } : { _id: id, tombstone: true, version: existing.version },
            withEvents(
              writeData(data, { tombstone: false, version: existing.version + 1 }),
              events,
              now,
              local && markedBefore === false,
            ),
            { ...READ, returnDocument: 'after' },
          );
        } catch (reviveError) {
          throw isDuplicateKey(reviveError) ? alreadyExists(name, id, reviveError) : reviveError;
        }
        if (revived !== null) {
          revived = unpacked(revived);
          if (local) rememberWritten(id, revived, events.length > 0);
          notify(events);
          return toDocument(revived);
        }
      }
    }
    throw alreadyExists(name, id);
  }

  async function updateLocked(
    id: string,
    expectedVersion: number,
    change: Draft<T> | Mutation<T>,
    events: OutboxEvent[],
  ): Promise<T> {
    const local = await inProcess();
    let next: Draft<T> = change as Draft<T>;
    if (typeof change === 'function' || local) {
      const current = await readDocument(id);
      if (current === null) throw notFound(name, id);
      if (current.version !== expectedVersion)
        throw versionConflict(name, id, expectedVersion, current.version);
      if (typeof change === 'function') next = change(toDocument(current));
    }
    return writeAt(id, expectedVersion, next, events, local);
  }

  /** The write of `update`: `next` at `expectedVersion` + 1 (checked here in-process mode's caller). */
  async function writeAt(
    id: string,
    expectedVersion: number,
    next: Draft<T>,
    events: OutboxEvent[],
    local: boolean,
  ): Promise<T> {
    const { id: nextId, data } = splitDocument(next);
    if (nextId !== id)
      throw invalidDocument(`${name} ${id}: an update cannot change the id`, { id, nextId });
    let updated: StoredDoc | null;
    try {
      const replace = local && events.length > 0 && !(await mark(id));
      updated = await docs().findOneAndUpdate(
        local ? { _id: id } : { _id: id, version: expectedVersion, tombstone: false },
        withEvents(writeData(data, { version: expectedVersion + 1 }), events, new Date(), replace),
        { ...READ, returnDocument: 'after' },
      );
      if (updated !== null) updated = unpacked(updated);
    } catch (error) {
      throw isDuplicateKey(error) ? alreadyExists(name, id, error) : error;
    }
    if (updated === null) {
      // The filter did not match: tell "gone" from "changed meanwhile".
      const current = await readVersion(id);
      if (current === null) throw notFound(name, id);
      throw versionConflict(name, id, expectedVersion, current.version);
    }
    if (local) rememberWritten(id, updated, events.length > 0);
    notify(events);
    return toDocument(updated);
  }

  /**
   * `modify`: one read and one write. In-process mode cannot lose a race (the caller holds the
   * document's mutex); on MongoDB a conflict means another process wrote in between: read again.
   */
  async function modifyLocked(
    id: string,
    change: Modification<T>,
    eventsOf: ModifyOptions<T>['events'],
  ): Promise<T | undefined> {
    const local = await inProcess();
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const current = await readDocument(id);
      if (current === null) return undefined;
      const before = toDocument(current);
      const next = change(toDocument(current));
      if (next === undefined) return before;
      const events = portableEvents(eventsOf?.(before, next));
      try {
        return await writeAt(id, current.version, next, events, local);
      } catch (error) {
        if ((error as { kind?: unknown }).kind !== 'aborted') throw error;
      }
    }
    throw new AppError('aborted', `${name} ${id}: modify kept racing with concurrent writes`, {
      details: { collection: name, id },
    });
  }

  async function deleteLocked(
    id: string,
    expectedVersion: number | undefined,
    events: OutboxEvent[],
  ): Promise<boolean> {
    if (await inProcess()) return deleteInProcess(id, expectedVersion, events);
    const versionCondition = expectedVersion === undefined ? {} : { version: expectedVersion };
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      if (events.length === 0) {
        // Nothing to relay: remove the record outright.
        const removed = await docs().deleteOne({
          _id: id,
          tombstone: false,
          outboxPending: false,
          ...versionCondition,
        });
        if (removed.deletedCount === 1) return true;
      }
      const current = await readVersion(id);
      if (current === null) return false;
      if (expectedVersion !== undefined && current.version !== expectedVersion) {
        throw versionConflict(name, id, expectedVersion, current.version);
      }
      // Events to relay (new ones, or still queued): leave a tombstone the relay purges once they are out.
      const now = new Date();
      const tombstoned = await docs().updateOne(
        { _id: id, tombstone: false, version: current.version },
        withEvents(
          {
            $set: { tombstone: true, outboxPending: true },
            $inc: { version: 1 },
            $min: { outboxDueAt: now },
          },
          events,
          now,
        ),
      );
      if (tombstoned.modifiedCount === 1) {
        notify(events);
        return true;
      }
    }
    throw new AppError('aborted', `${name} ${id}: delete kept racing with concurrent writes`, {
      details: { collection: name, id },
    });
  }

  /** `deleteLocked` with the conditions checked here (the caller holds the document's mutex). */
  async function deleteInProcess(
    id: string,
    expectedVersion: number | undefined,
    events: OutboxEvent[],
  ): Promise<boolean> {
    const current = live(
      await docs().findOne(
        { _id: id },
        { projection: { version: 1, tombstone: 1, outboxPending: 1 } },
      ),
    );
    if (current === null) return false;
    if (expectedVersion !== undefined && current.version !== expectedVersion) {
      throw versionConflict(name, id, expectedVersion, current.version);
    }
    // Stored events are pending only while the document's marker exists (see `mark`).
    if (events.length === 0 && !(current.outboxPending && (await marked(id)))) {
      await docs().deleteOne({ _id: id });
      forget(id);
      return true;
    }
    // Events to relay (new ones, or still queued): a tombstone the relay purges once they are out.
    // findAndModify, not update: see `setById`. The outbox is read back on the relay's next pass.
    const now = new Date();
    forget(id);
    const replace = !(await mark(id));
    // Forgotten above: the relay finds the tombstone through its marker.
    memory.markerScan.needed = true;
    await setById(
      id,
      withEvents(
        {
          $set: { tombstone: true, outboxPending: true },
          $inc: { version: 1 },
          $min: { outboxDueAt: now },
        },
        events,
        now,
        replace,
      ),
    );
    notify(events);
    return true;
  }

  async function ackLocked(docId: string, eventIds: readonly string[]): Promise<void> {
    const local = await inProcess();
    const acked = new Set(eventIds);
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const remembered = local ? known.get(docId) : undefined;
      const current: Pick<StoredDoc, 'outbox' | 'tombstone' | 'outboxPending'> | null = remembered
        ? { ...remembered, outboxPending: true }
        : await docs().findOne(
            { _id: docId },
            { ...READ, projection: { outbox: 1, tombstone: 1, outboxPending: 1 } },
          );
      if (current === null) {
        if (local) settle(docId);
        return;
      }
      const outbox = current.outbox ?? [];
      const remaining = outbox.filter((event) => !acked.has(event.id));
      if (remaining.length === outbox.length && (remaining.length > 0 || !current.outboxPending)) {
        if (local && remaining.length === 0) settle(docId);
        return;
      }
      if (local) {
        // The mutex keeps writers of this process out, and in this mode no other process writes.
        // All out: removing the marker is the acknowledgement; the published events stay in the
        // document until its next write with events replaces them (see `mark`), a write saved.
        if (remaining.length === 0 && current.tombstone) await docs().deleteOne({ _id: docId });
        else if (remaining.length > 0) await setById(docId, { $set: { outbox: remaining } });
        remember(docId, { outbox: remaining, tombstone: current.tombstone });
        if (remaining.length === 0) settle(docId);
        return;
      }
      // Writers only ever append, so an unchanged length means an unchanged outbox: the condition
      // makes this read-modify-write safe against a write that lands in between (it then retries).
      const unchanged: Filter = { _id: docId, outbox: { $size: outbox.length } };
      if (remaining.length === 0 && current.tombstone) {
        const purged = await docs().deleteOne({ ...unchanged, tombstone: true });
        if (purged.deletedCount === 1) return;
        continue;
      }
      const update: UpdateFilter =
        remaining.length > 0
          ? { $set: { outbox: remaining } }
          : { $set: { outbox: [], outboxPending: false }, $unset: { outboxDueAt: '' } };
      const result = await docs().updateOne(unchanged, update);
      if (result.matchedCount === 1) return;
    }
    // Left as is: the events are published again on the next pass (at least once), never lost.
    throw new AppError(
      'aborted',
      `${name} ${docId}: outbox ack kept racing with concurrent writes`,
      {
        details: { collection: name, id: docId },
      },
    );
  }

  /**
   * The bound of a due-time query (`{ [dueField]: { $lte: date } }`, sorted by it ascending or not
   * at all, from the first document), or `undefined` for any other query.
   */
  function dueQuery(
    filter: StoreFilter<T>,
    findOptions: FindOptions<T>,
    skip: number,
  ): { bound: number; kind: DueKind } | undefined {
    if (dueField === undefined || skip !== 0) return undefined;
    const fields = Object.entries(filter).filter(([, condition]) => condition !== undefined);
    if (fields.length !== 1 || fields[0]![0] !== dueField) return undefined;
    const condition = fields[0]![1] as unknown;
    if (!isOperatorObject(condition)) return undefined;
    const operators = Object.entries(condition as object).filter(([, v]) => v !== undefined);
    if (operators.length !== 1 || operators[0]![0] !== '$lte') return undefined;
    const bound = operators[0]![1] as unknown;
    const at =
      bound instanceof Date
        ? { bound: bound.getTime(), kind: 'date' as const }
        : typeof bound === 'number' && Number.isFinite(bound)
          ? { bound, kind: 'number' as const }
          : undefined;
    if (at === undefined) return undefined;
    const sort = Object.entries(findOptions.sort ?? {}).filter(([, d]) => d !== undefined);
    if (sort.length > 1 || (sort.length === 1 && (sort[0]![0] !== dueField || sort[0]![1] !== 1)))
      return undefined;
    return at;
  }

  /** Loads the due times from the collection (one scan), keeping what writes set meanwhile. */
  function loadDue(state: DueTimes): Promise<void> {
    state.loading ??= (async () => {
      const writes = new Map<string, number | undefined>();
      state.writesDuringLoad = writes;
      try {
        const path = `data.${dueField!}`;
        const found = await docs()
          .find({ tombstone: false, [path]: { $exists: true } } as Filter, {
            projection: { _id: 1, [path]: 1 },
          })
          .toArray();
        const times = new Map<string, number>();
        for (const doc of found) {
          const at = dueOf(doc.data);
          if (at !== undefined) times.set(doc._id, at);
        }
        for (const [id, at] of writes) {
          if (at === undefined) times.delete(id);
          else times.set(id, at);
        }
        state.times = times;
        state.loadedAt = Date.now();
      } finally {
        state.writesDuringLoad = undefined;
        state.loading = undefined;
      }
    })();
    return state.loading;
  }

  /** A due-time query in in-process mode: the due documents by `_id`, soonest first. */
  async function findDue(
    { bound, kind }: { bound: number; kind: DueKind },
    limit: number | undefined,
  ): Promise<T[]> {
    const state = due!;
    if (Date.now() - state.loadedAt >= DUE_RELOAD_MS) await loadDue(state);
    const candidates = [...state.times]
      .filter(([, at]) => at <= bound)
      .sort(([a, atA], [b, atB]) => atA - atB || (a < b ? -1 : a > b ? 1 : 0));
    const found: { doc: T; at: number }[] = [];
    for (const [id, remembered] of candidates) {
      if (limit !== undefined && found.length >= limit) break;
      const stored = await readDocument(id);
      const storedAt = dueOf(stored?.data);
      // Learn what is stored, unless a write changed the time meanwhile.
      if (state.times.get(id) === remembered) {
        if (storedAt === undefined) state.times.delete(id);
        else state.times.set(id, storedAt);
      }
      const at = dueOf(stored?.data, kind);
      if (stored !== null && at !== undefined && at <= bound)
        found.push({ doc: toDocument(stored), at });
    }
    return found
      .sort((a, b) => a.at - b.at || (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0))
      .map(({ doc }) => doc);
  }

  const store: MongoStore<T> = {
    outboxName: name,
    collectionName: name,

    async ensureIndexes() {
      const specs: mongoose.mongo.IndexDescription[] = [
        { key: { outboxPending: 1, outboxDueAt: 1 }, name: OUTBOX_INDEX },
        ...(options.indexes ?? []).flatMap((index) => {
          // `id` is `_id`, indexed and unique already (MongoDB refuses options on the _id index).
          const fields = Object.entries(index.fields).filter(
            (entry): entry is [string, 1 | -1] => entry[1] !== undefined && entry[0] !== 'id',
          );
          if (fields.length === 0) return [];
          return [
            {
              key: Object.fromEntries(
                fields.map(([field, direction]) => [storedPath(field), direction]),
              ),
              ...(index.name !== undefined ? { name: index.name } : {}),
              ...(index.unique === true ? { unique: true } : {}),
            },
          ];
        }),
      ];
      // One index per command: FerretDB 1.24 panics (and drops the connection) when a single
      // createIndexes names several indexes that already exist, i.e. on every restart.
      for (const spec of specs) await docs().createIndexes([spec]);
    },

    async relayout({ batch = RELAYOUT_BATCH } = {}) {
      if (packing === undefined || layout === undefined) return 0;
      const stale = { tombstone: false, layout: { $ne: layout } } as Filter;
      const ids = (
        await docs()
          .find(stale, { projection: { _id: 1 } })
          .toArray()
      ).map((found) => found._id);
      let rewritten = 0;
      for (let at = 0; at < ids.length; at += batch) {
        for (const id of ids.slice(at, at + batch)) {
          const done = await locked(id, async () => {
            const stored = await docs().findOne(
              { _id: id },
              { ...READ, projection: { ...DOCUMENT_PROJECTION, layout: 1 } },
            );
            if (stored === null || stored.tombstone || stored.layout === layout) return false;
            const { $set } = dataUpdate(unpacked(stored).data);
            const local = await inProcess();
            const found = await docs().findOneAndUpdate(
              local
                ? { _id: id }
                : { _id: id, version: stored.version, tombstone: false, layout: { $ne: layout } },
              { $set: $set! },
            );
            return found !== null;
          });
          if (done) rewritten += 1;
        }
        // Between batches, the writes of requests waiting for the event loop go first.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return rewritten;
    },

    async get(id) {
      const stored = await readDocument(id);
      return stored === null ? undefined : toDocument(stored);
    },

    async insert(doc, writeOptions: WriteOptions = {}) {
      const { id, data } = splitDocument(doc);
      const events = portableEvents(writeOptions.events);
      return locked(id, () => insertLocked(id, data, events));
    },

    async update(
      id,
      expectedVersion,
      change: Draft<T> | Mutation<T>,
      writeOptions: WriteOptions = {},
    ) {
      const events = portableEvents(writeOptions.events);
      return locked(id, () => updateLocked(id, expectedVersion, change, events));
    },

    async modify(id, change: Modification<T>, modifyOptions: ModifyOptions<T> = {}) {
      return locked(id, () => modifyLocked(id, change, modifyOptions.events));
    },

    async delete(id, expectedVersion, writeOptions: WriteOptions = {}) {
      const events = portableEvents(writeOptions.events);
      return locked(id, () => deleteLocked(id, expectedVersion, events));
    },

    async find(filter: StoreFilter<T> = {}, findOptions: FindOptions<T> = {}) {
      const { skip, limit } = checkPaging(findOptions);
      if (limit === 0) return [];
      packing?.checkQuery(filter, findOptions.sort);
      const dueBy = dueQuery(filter, findOptions, skip);
      if (dueBy !== undefined && (await inProcess())) return findDue(dueBy, limit);
      const sort: Record<string, 1 | -1> = {};
      for (const [field, direction] of Object.entries(findOptions.sort ?? {})) {
        if (direction === 1 || direction === -1) sort[storedPath(field)] = direction;
      }
      if (!('_id' in sort)) sort._id = 1; // stable pages, same tie-break as the memory adapter
      let cursor = docs()
        .find(toMongoFilter(filter), { ...READ, projection: DOCUMENT_PROJECTION })
        .sort(sort)
        .skip(skip);
      if (limit !== undefined) cursor = cursor.limit(limit);
      return (await cursor.toArray()).map((stored) => toDocument(unpacked(stored)));
    },

    async count(filter: StoreFilter<T> = {}) {
      packing?.checkQuery(filter);
      return docs().countDocuments(toMongoFilter(filter));
    },

    async pendingOutbox(limit) {
      if (await inProcess()) {
        const now = Date.now();
        const scan = memory.markerScan;
        if (!scan.needed && now - scan.at < MARKER_SCAN_EVERY_MS) {
          // This process's own pending documents, from memory: no read at all.
          return [...known]
            .filter(([, pending]) => pending.dueAt <= now)
            .sort(([a, x], [b, y]) => x.dueAt - y.dueAt || (a < b ? -1 : a > b ? 1 : 0))
            .slice(0, limit)
            .map(([docId, pending]) => ({ docId, events: pending.outbox.map(fromStoredEvent) }));
        }
        scan.needed = false;
        scan.at = now;
        const read = await markers()
          .find({ dueAt: { $lte: new Date() } })
          .sort({ dueAt: 1, _id: 1 })
          .limit(limit + settling.ids.size + settling.removing.size)
          .toArray()
          .catch((error: unknown) => {
            scan.needed = true;
            throw error;
          });
        const due = read
          // Acknowledged already, waiting for their removal.
          .filter((marker) => !settledMarker(marker))
          .slice(0, limit);
        const found = await Promise.all(
          due.map(async (marker): Promise<PendingOutbox> => {
            const eventsOf = (stored: Pick<StoredDoc, 'outbox'> | null | undefined) => ({
              docId: marker._id,
              events: (stored?.outbox ?? []).map(fromStoredEvent),
            });
            const remembered = known.get(marker._id);
            if (remembered !== undefined) return eventsOf(remembered);
            // Read under the document's mutex: a write of this process may have put the marker in
            // and not yet its events, and until it has, the document may still hold events that
            // were published already (see `mark`).
            return locked(marker._id, async () =>
              eventsOf(
                known.get(marker._id) ??
                  (await docs().findOne(
                    { _id: marker._id },
                    { ...READ, projection: { _id: 1, outbox: 1 } },
                  )),
              ),
            );
          }),
        );
        // No document or no events: a write that failed or never came after its marker, or one
        // still under way. Acking nothing under the document's mutex removes the marker only if the
        // document still has no events once that write is done.
        for (const { docId, events } of found)
          if (events.length === 0) await locked(docId, () => ackLocked(docId, []));
        return found.filter(({ events }) => events.length > 0);
      }
      const found = await docs()
        .find(
          { outboxPending: true, outboxDueAt: { $lte: new Date() } },
          { ...READ, projection: { _id: 1, outbox: 1 } },
        )
        .sort({ outboxPending: 1, outboxDueAt: 1 })
        .limit(limit)
        .toArray();
      return found.map((stored): PendingOutbox => ({
        docId: stored._id,
        events: (stored.outbox ?? []).map(fromStoredEvent),
      }));
    },

    async ackOutbox(docId, eventIds) {
      await locked(docId, () => ackLocked(docId, eventIds));
    },

    async deferOutbox(docId, until) {
      await locked(docId, async () => {
        if (await inProcess()) {
          // The marker is what the relay reads in this mode; none means nothing is pending.
          await markers().updateOne({ _id: docId }, { $set: { dueAt: until } });
          const pending = known.get(docId);
          if (pending !== undefined) known.set(docId, { ...pending, dueAt: until.getTime() });
          return;
        }
        await docs().updateOne(
          { _id: docId, outboxPending: true },
          { $set: { outboxDueAt: until } },
        );
      });
    },

    async acquireOutboxLease(owner, ttlMs) {
      return mutex.run(`${leaseCollection}\u0000${name}`, async () => {
        const now = new Date();
        try {
          const lease = await leases().findOneAndUpdate(
            { _id: name, $or: [{ owner }, { expiresAt: { $lte: now } }] },
            { $set: { owner, expiresAt: new Date(now.getTime() + ttlMs) } },
            { upsert: true, returnDocument: 'after' },
          );
          return lease?.owner === owner;
        } catch (error) {
          // Held by someone else: the filter missed, so the upsert tried to insert the same _id.
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      });
    },

    async releaseOutboxLease(owner) {
      await mutex.run(`${leaseCollection}\u0000${name}`, async () => {
        await leases().deleteOne({ _id: name, owner });
      });
    },

    onOutboxWrite(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async settleOutbox() {
      await settleMarkers();
      await Promise.all(
        [...new Set([...settling.removing.values()].map(({ removal }) => removal))].map((removal) =>
          removal.catch(() => undefined),
        ),
      );
    },
  };
  return store;
}

/** Documents `relayout` rewrites before it lets other work of the process run. */
const RELAYOUT_BATCH = 100;

/**
 * The layout of a packing collection: its kept fields, sorted, comma-separated. A document whose
 * `layout` differs was split by other fields (or, without one, before layouts were recorded).
 */
function layoutOf(kept: ReadonlySet<string>): string {
  return [...kept].sort().join(',');
}

/** A stored document with its packed fields (`pack`) merged back under `data`. */
function unpacked<D extends { data: Record<string, unknown>; packed?: unknown }>(doc: D): D {
  const { packed, ...rest } = doc;
  if (packed === undefined || packed === null) return doc;
  const bytes =
    packed instanceof Uint8Array
      ? packed
      : (packed as InstanceType<typeof mongoose.mongo.Binary>).buffer;
  const fields = mongoose.mongo.BSON.deserialize(bytes, { promoteBuffers: true });
  return { ...rest, data: { ...fields, ...doc.data } } as D;
}

function storedPath(field: string): string {
  checkFieldName(field);
  if (field === 'id') return '_id';
  if (field === 'version') return 'version';
  return `data.${field}`;
}

function toMongoFilter(filter: object): Filter {
  const portable = normalizeFilter(filter);
  const out: Record<string, unknown> = { tombstone: false };
  for (const [field, condition] of Object.entries(portable)) {
    // `$eq` so that an object value is matched as a value, never read as operators.
    out[storedPath(field)] = isOperatorObject(condition) ? condition : { $eq: condition };
  }
  return out as Filter;
}

function fromStoredEvent(stored: StoredEvent): OutboxEvent {
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
function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 11000) return true;
  return code === 1 && typeof message === 'string' && message.includes('UNIQUE constraint failed');
}

// MongoDB names the clashing index in `keyPattern`; FerretDB does not, and then the caller retries.
function duplicateOnOtherIndex(error: unknown): boolean {
  const keyPattern = (error as { keyPattern?: unknown }).keyPattern;
  return typeof keyPattern === 'object' && keyPattern !== null && !('_id' in keyPattern);
}
