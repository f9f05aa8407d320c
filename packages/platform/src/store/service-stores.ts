import type { Connection } from 'mongoose';
import type { Logger } from '../logger/index.js';
import { ensureIndexes as ensureMongoIndexes } from '../mongo/ensure-indexes.js';
import type { OutboxSource } from '../outbox/types.js';
import { createMemoryStore } from './memory-store.js';
import { createMongoStore, type MongoStore } from './mongo-store.js';
import type { StoreIndex, Versioned, VersionedStore } from './types.js';

/** A collection of a service: the store port plus the outbox side its relay reads. */
export type ServiceCollection<T extends Versioned> = VersionedStore<T> & OutboxSource;

/**
 * The one place a service chooses its storage: Mongo collections when the process has a database
 * (`MONGO_URL`), memory stores otherwise (embedded default, unit tests). Both adapters pass the same
 * contract suite, so a service composes its repositories over `collection(...)` and never branches
 * on the kind itself.
 */
export interface ServiceStores {
  readonly kind: 'mongo' | 'memory';
  /** A collection by name, with its secondary indexes (unique ones are enforced by both adapters). */
  collection<T extends Versioned>(
    name: string,
    indexes?: readonly StoreIndex<T>[],
  ): ServiceCollection<T>;
  /** Builds the indexes of every collection made so far (Mongo only). Call once, before serving. */
  ensureIndexes(): Promise<void>;
  /** Every collection made so far, for the outbox relay. */
  readonly outboxSources: readonly OutboxSource[];
}

export function createServiceStores(
  mongo: Connection | undefined,
  options: { logger?: Logger } = {},
): ServiceStores {
  const made: ServiceCollection<never>[] = [];
  const mongoMade: MongoStore<never>[] = [];
  return {
    kind: mongo ? 'mongo' : 'memory',
    collection<T extends Versioned>(name: string, indexes: readonly StoreIndex<T>[] = []) {
      let store: ServiceCollection<T>;
      if (mongo) {
        const mongoStore = createMongoStore<T>({ connection: mongo, collection: name, indexes });
        mongoMade.push(mongoStore as unknown as MongoStore<never>);
        store = mongoStore;
      } else {
        store = createMemoryStore<T>({ name, indexes });
      }
      made.push(store as unknown as ServiceCollection<never>);
      return store;
    },
    async ensureIndexes() {
      if (mongo) await ensureMongoIndexes(mongo, mongoMade, options.logger);
    },
    get outboxSources() {
      return [...made];
    },
  };
}
