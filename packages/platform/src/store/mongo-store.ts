/**
 * The MongoDB adapter of `VersionedStore`: `createMongoStore` composes the modules of ./mongo/
 * into one store. README.md describes the stored shape, the two write modes and the invariants;
 * this file only routes each member of the port to the module that owns it.
 */
import type { Connection } from 'mongoose';
import { mongoServerKind } from '../mongo/server-kind.js';
import type { OutboxSource } from '../outbox/types.js';
import { MongoCollection, type WriteConditions } from './mongo/collection.js';
import { DocumentWrites } from './mongo/document-writes.js';
import { InProcessMode } from './mongo/in-process-mode.js';
import { ensureIndexes } from './mongo/indexes.js';
import { acquireLease, releaseLease } from './mongo/leases.js';
import { StoreQueries } from './mongo/queries.js';
import { ServerMode } from './mongo/server-mode.js';
import { relayout } from './mongo/relayout.js';
import { toDocument } from './mongo/stored.js';
import type { WriteMode } from './mongo/write-mode.js';
import { packingOf } from './packing.js';
import { portableEvents, splitDocument } from './portable.js';
import type {
  CollectionOptions,
  Draft,
  Modification,
  ModifyOptions,
  Mutation,
  StoreIndex,
  Versioned,
  VersionedStore,
  WriteOptions,
} from './types.js';

export type { WriteConditions } from './mongo/collection.js';

export interface MongoStoreOptions<T> {
  connection: Connection;
  /** Collection name; also the relay's lease key, so unique per database. */
  collection: string;
  /**
   * Secondary indexes, created by `ensureIndexes()` (never implicitly: `autoIndex` is off); on
   * FerretDB, which reads none of them, only the unique ones (mongo/indexes.ts).
   */
  indexes?: readonly StoreIndex<T>[];
  /** Where relay leases live. Default `outbox_leases`. */
  leaseCollection?: string;
  /**
   * Where write conditions are checked (README.md, "Write modes"). Default: `in-process` on
   * FerretDB, `server` on MongoDB, asked of the server once per connection.
   */
  writeConditions?: WriteConditions;
  /** Fields kept out of the packed value (`CollectionOptions.pack`); default: nothing is packed. */
  pack?: CollectionOptions<T>['pack'];
}

export type MongoStore<T extends Versioned> = VersionedStore<T> &
  OutboxSource & {
    readonly collectionName: string;
    /** Creates the collection's indexes (additively: an index removed from the list is not dropped). */
    ensureIndexes(): Promise<void>;
    /**
     * A packing collection: rewrites, once, every live document split by other kept fields than
     * today's, so a filter on a newly kept field finds it (mongo/relayout.ts). Resolves with how
     * many this call rewrote; `0` at once for a collection that does not pack.
     */
    relayout(options?: { batch?: number }): Promise<number>;
  };

/** The collection a store works on, its packing, and its write mode (asked of the server once). */
function openCollection<T>(options: MongoStoreOptions<T>) {
  const packing = packingOf(options.collection, options.pack, options.indexes);
  const collection = new MongoCollection({
    connection: options.connection,
    collection: options.collection,
    leaseCollection: options.leaseCollection ?? 'outbox_leases',
    indexes: options.indexes as readonly StoreIndex<unknown>[] | undefined,
    writeConditions: options.writeConditions,
    packing,
  });
  const modes: Record<WriteConditions, WriteMode> = {
    server: new ServerMode(collection),
    'in-process': new InProcessMode(collection),
  };
  const mode = async (): Promise<WriteMode> => modes[await collection.conditions()];
  return { collection, packing, mode };
}

export function createMongoStore<T extends Versioned>(
  options: MongoStoreOptions<T>,
): MongoStore<T> {
  const { collection: name } = options;
  const { collection, packing, mode } = openCollection(options);
  const writes = new DocumentWrites<T>(collection, mode);
  const queries = new StoreQueries<T>(collection, packing);
  const locked = <R>(id: string, work: () => Promise<R>) => collection.locked(id, work);

  return {
    outboxName: name,
    collectionName: name,

    async ensureIndexes() {
      await ensureIndexes(
        () => collection.docs(),
        options.indexes,
        () => mongoServerKind(options.connection),
      );
    },

    relayout: (relayoutOptions = {}) => relayout(collection, relayoutOptions.batch),

    async get(id) {
      const stored = await collection.read(id);
      return stored === null ? undefined : toDocument<T>(stored);
    },

    async insert(doc, writeOptions: WriteOptions = {}) {
      const { id, data } = splitDocument(doc);
      const events = portableEvents(writeOptions.events);
      return locked(id, () => writes.insert(id, data, events));
    },

    async update(
      id,
      expectedVersion,
      change: Draft<T> | Mutation<T>,
      writeOptions: WriteOptions = {},
    ) {
      const events = portableEvents(writeOptions.events);
      return locked(id, () => writes.update(id, expectedVersion, change, events));
    },

    async modify(id, change: Modification<T>, modifyOptions: ModifyOptions<T> = {}) {
      return locked(id, () => writes.modify(id, change, modifyOptions.events));
    },

    async delete(id, expectedVersion, writeOptions: WriteOptions = {}) {
      const events = portableEvents(writeOptions.events);
      return locked(id, async () => (await mode()).delete(id, expectedVersion, events));
    },

    find: (filter, findOptions) => queries.find(filter, findOptions),

    count: (filter) => queries.count(filter),

    async pendingOutbox(limit) {
      return (await mode()).pendingOutbox(limit);
    },

    async ackOutbox(docId, eventIds) {
      await locked(docId, async () => (await mode()).ack(docId, eventIds));
    },

    async deferOutbox(docId, until) {
      await locked(docId, async () => (await mode()).defer(docId, until));
    },

    acquireOutboxLease: (owner, ttlMs) => acquireLease(collection, owner, ttlMs),

    releaseOutboxLease: (owner) => releaseLease(collection, owner),

    onOutboxWrite: (listener) => collection.onOutboxWrite(listener),

    settleOutbox: () => collection.markers.settleAll(),
  };
}
