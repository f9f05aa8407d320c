import type { Connection } from 'mongoose';
import type { Logger } from '../logger/index.js';
import {
  ensureIndexes as ensureMongoIndexes,
  type IndexedCollection,
} from '../mongo/ensure-indexes.js';
import type { OutboxSource } from '../outbox/types.js';
import { createMemoryStore } from './memory-store.js';
import { createMongoStore } from './mongo-store.js';
import type { CollectionOptions, StoreIndex, Versioned, VersionedStore } from './types.js';

/** A collection of a service: the store port plus the outbox side its relay reads. */
export type ServiceCollection<T extends Versioned> = VersionedStore<T> & OutboxSource;

/**
 * What a service's storage builder is given: collections that are Mongo when the process has a
 * database (`MONGO_URL`) and memory otherwise (embedded default, unit tests). Both adapters pass the
 * same contract suite, so a builder declares its collections and never branches on the kind.
 */
export interface ServiceStores {
  readonly kind: 'mongo' | 'memory';
  /**
   * A collection by name, with its secondary indexes (unique ones are enforced by both adapters)
   * and how it stores documents (`CollectionOptions`: packing).
   */
  collection<T extends Versioned>(
    name: string,
    indexes?: readonly StoreIndex<T>[],
    options?: CollectionOptions<T>,
  ): ServiceCollection<T>;
  /**
   * An adapter of the service's own that is not a collection (an atomic counter, a cache written
   * behind), chosen like the collections: the memory one, or the Mongo one over the connection.
   */
  adapter<A>(choices: { memory: () => A; mongo: (connection: Connection) => A }): A;
  /** Builds the indexes of every collection made so far (Mongo only). Call once, before serving. */
  ensureIndexes(): Promise<void>;
  /**
   * Rewrites the documents of every packing collection made so far that were split by other
   * kept fields than today's (`MongoStore.relayout`; memory keeps no layout: `0`). Resolves with
   * how many were rewritten. Safe with several replicas at once; run it at start, not before
   * serving: a query on a newly kept field misses only the documents not rewritten yet.
   */
  relayout(): Promise<number>;
  /** Every collection made so far, for the outbox relay. */
  readonly outboxSources: readonly OutboxSource[];
}

/**
 * The collections of one service over `mongo` (the process's database; `undefined`: memory). The
 * building block of `openServiceStores`; a service's composition root calls that instead.
 */
export function createServiceStores(
  mongo: Connection | undefined,
  options: { logger?: Logger } = {},
): ServiceStores {
  const sources: OutboxSource[] = [];
  const indexed: IndexedCollection[] = [];
  const packed: { relayout(): Promise<number> }[] = [];
  return {
    kind: mongo ? 'mongo' : 'memory',
    collection<T extends Versioned>(
      name: string,
      indexes: readonly StoreIndex<T>[] = [],
      collectionOptions: CollectionOptions<T> = {},
    ) {
      const { pack } = collectionOptions;
      if (!mongo) {
        const store = createMemoryStore<T>({ name, indexes, ...(pack ? { pack } : {}) });
        sources.push(store);
        return store;
      }
      const store = createMongoStore<T>({
        connection: mongo,
        collection: name,
        indexes,
        ...(pack ? { pack } : {}),
      });
      sources.push(store);
      indexed.push(store);
      if (pack) packed.push(store);
      return store;
    },
    adapter: (choices) => (mongo ? choices.mongo(mongo) : choices.memory()),
    async ensureIndexes() {
      if (mongo) await ensureMongoIndexes(mongo, indexed, options.logger);
    },
    async relayout() {
      let rewritten = 0;
      for (const store of packed) rewritten += await store.relayout();
      return rewritten;
    },
    get outboxSources() {
      return [...sources];
    },
  };
}

/** A service's storage, opened: what its builder made, over collections whose indexes exist. */
export interface OpenedStores<S> {
  /** What the builder returned: the service's repositories over its collections. */
  storage: S;
  kind: 'mongo' | 'memory';
  /** Every collection the builder made, for the service's outbox relay. */
  outboxSources: readonly OutboxSource[];
  /** `ServiceStores.relayout` of the collections the builder made. */
  relayout(): Promise<number>;
}

/**
 * The one call a service's composition root makes for its storage: the configuration chooses
 * (`MONGO_URL` set: `infra.mongo` is the service's database, Mongo collections; unset: memory),
 * `build` declares the collections and the repositories over them, and the indexes are built
 * before this resolves, so the service can serve at once.
 *
 *     const { storage, outboxSources } = await openServiceStores(infra, createDealsStorage);
 */
export async function openServiceStores<S>(
  infra: { mongo: Connection | undefined; logger: Logger },
  build: (stores: ServiceStores) => S,
): Promise<OpenedStores<S>> {
  const stores = createServiceStores(infra.mongo, { logger: infra.logger });
  const storage = build(stores);
  await stores.ensureIndexes();
  return {
    storage,
    kind: stores.kind,
    outboxSources: stores.outboxSources,
    relayout: () => stores.relayout(),
  };
}
