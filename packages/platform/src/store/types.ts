/**
 * The versioned document store port. Every aggregate a service persists is one document with a string
 * `id` and a numeric `version`; writes are compare-and-set on the version, and a write may carry
 * outbox events recorded atomically with it (see ../outbox/types.ts). The same contract suite runs
 * against the memory adapter (embedded default) and the MongoDB adapter, so they cannot drift.
 *
 * Documents are plain data: strings, finite or not numbers, booleans, null, Date, Uint8Array, arrays
 * and plain objects. `undefined` properties are dropped. Both adapters refuse what the Mongo-wire
 * server of dev/CI (FerretDB 1.24) cannot store, so code that works in memory works there: keys
 * containing `.` or starting with `$`, arrays directly inside arrays, bigint, Map, Set, class instances.
 * Binary values are read back as `Buffer` (a `Uint8Array`).
 */
import type { OutboxEvent } from '../outbox/types.js';

export type { OutboxEvent } from '../outbox/types.js';

export interface Versioned {
  id: string;
  /** 1 after insert, +1 on every update (and on delete when it leaves a tombstone). */
  version: number;
}

/** A document as the caller writes it: the store owns the version. */
export type Draft<T extends Versioned> = Omit<T, 'version'> & { version?: number };

/**
 * Computes the next state from the current one. Synchronous on purpose: nothing can interleave between
 * the read it is given and the compare-and-set that follows. Return a new object or mutate and return
 * the argument (it is a private copy). The id cannot change.
 */
export type Mutation<T extends Versioned> = (current: T) => Draft<T>;

/**
 * A read-modify-write for `modify`: the next state, or `undefined` to leave the document as it is.
 * Synchronous, like `Mutation`; the argument is a private copy.
 */
export type Modification<T extends Versioned> = (current: T) => Draft<T> | undefined;

export interface ModifyOptions<T extends Versioned> {
  /** Events recorded atomically with the write, computed from the state read and the one written. */
  events?: (before: T, after: Draft<T>) => readonly OutboxEvent[];
}

export interface WriteOptions {
  /** Events recorded in the same atomic write as the state change, relayed later, in this order. */
  events?: readonly OutboxEvent[];
}

type Element<V> = V extends readonly (infer E)[] ? E : V;

/** Range and set operators. On an array field a condition holds when any element satisfies it (as in MongoDB). */
export interface FieldOperators<V> {
  $in?: readonly (V | Element<V>)[];
  $ne?: V | Element<V>;
  $gt?: Element<V>;
  $gte?: Element<V>;
  $lt?: Element<V>;
  $lte?: Element<V>;
}

/**
 * A deliberately small, portable filter on top-level fields: equality (`null` also matches a missing
 * field), `$in`, `$ne` and ranges. Ranges only compare values of the same kind (numbers with numbers,
 * strings with strings, dates with dates), as MongoDB does. Conditions on several fields are ANDed.
 */
export type StoreFilter<T> = {
  [K in keyof T & string]?:
    | T[K]
    | Element<T[K]>
    | FieldOperators<T[K]>
    // `null` of an optional field: the documents without it.
    | (undefined extends T[K] ? null : never);
};

export type SortDirection = 1 | -1;

export interface FindOptions<T> {
  /** Fields in priority order; ties are always broken by `id` ascending so pages are stable. */
  sort?: { [K in keyof T & string]?: SortDirection };
  skip?: number;
  /** At most this many documents; `0` returns none. */
  limit?: number;
}

/**
 * A secondary index on top-level fields. `unique` is enforced by both adapters; a missing field counts
 * as `null`, so at most one document may lack a uniquely indexed field (FerretDB has no partial or
 * sparse indexes to avoid that). A deleted record keeps its unique values until its tombstone is purged.
 */
export interface StoreIndex<T> {
  fields: { [K in keyof T & string]?: SortDirection };
  unique?: boolean;
  name?: string;
  /**
   * A due time: one field holding a date (or epoch milliseconds as a number), ascending, that a
   * sweeper asks for as `{ field: { $lte: now } }` (a date, or a number) sorted by it. On a
   * Mongo-wire server that answers such a query by decoding the whole collection (the
   * single-writer mode on FerretDB), the store keeps these times in memory and reads only the due
   * documents; elsewhere it is an ordinary index.
   */
  due?: boolean;
}

/**
 * How a collection stores its documents, beyond its indexes (both adapters take it).
 */
export interface CollectionOptions<T> {
  /**
   * Store every field of a document but `keep`, the fields its indexes name, `id` and `version` as
   * one packed (BSON) value rather than as fields of the stored document. Filters and sorts may
   * name kept fields only: any other is `invalid_argument`, in both adapters. For a collection of
   * large documents read and written by id: FerretDB 1.24 decodes and encodes every field of a
   * document on each read and write, and a packed value is one field (a write of a cart of 60
   * fields cost FerretDB 1.7 ms of CPU, 1.0 ms packed). On MongoDB it changes only what the shell
   * shows. A document written unpacked is read as it is and packed at its next write; an older
   * build reads a packed document without its packed fields, so packing a collection is one way.
   */
  pack?: { keep: readonly (keyof T & string)[] };
}

export interface VersionedStore<T extends Versioned> {
  /** The live document, or `undefined` (deleted records pending their tombstone are not visible). */
  get(id: string): Promise<T | undefined>;
  /**
   * Stores a new document at version 1 (or one past a deleted predecessor whose tombstone is still
   * waiting for the relay, so versions of an id never go backwards while its events are in flight).
   * A live document with the same id, or a unique-index clash: `AppError` kind `already_exists`.
   */
  insert(doc: Draft<T>, options?: WriteOptions): Promise<T>;
  /**
   * Compare-and-set: applies `change` only if the stored version is `expectedVersion`, and bumps it.
   * Stale version: kind `aborted` (re-read and retry, the gRPC meaning of ABORTED); no document:
   * `not_found`; a changed id or unstorable value: `invalid_argument`; a unique-index clash: `already_exists`.
   */
  update(
    id: string,
    expectedVersion: number,
    change: Draft<T> | Mutation<T>,
    options?: WriteOptions,
  ): Promise<T>;
  /**
   * Reads the document, asks `change` for its next state and writes it at the version read, in one
   * call: the same compare-and-set as `update`, without a separate `get` first. When another writer
   * won in between, it reads again and asks again (a few times, then kind `aborted`). Resolves the
   * document as written, the current one when `change` answered `undefined`, or `undefined` when
   * there is no live document.
   */
  modify(id: string, change: Modification<T>, options?: ModifyOptions<T>): Promise<T | undefined>;
  /**
   * Deletes, optionally only at `expectedVersion` (else kind `aborted`). Resolves `false` when there
   * was nothing to delete (the events are then not recorded). A deletion that records events, or whose
   * document still has unpublished events, leaves an invisible tombstone until the relay has published
   * them, then the relay purges it.
   */
  delete(id: string, expectedVersion?: number, options?: WriteOptions): Promise<boolean>;
  find(filter?: StoreFilter<T>, options?: FindOptions<T>): Promise<T[]>;
  count(filter?: StoreFilter<T>): Promise<number>;
}
