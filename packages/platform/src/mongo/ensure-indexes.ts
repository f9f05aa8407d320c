import type { Connection } from 'mongoose';
import type { Logger } from '../logger/index.js';

/** Anything that knows its own indexes, e.g. a `MongoStore`. */
export interface IndexedCollection {
  ensureIndexes(): Promise<void>;
}

/**
 * Builds, at start and before serving, the indexes of every mongoose model registered on the
 * connection and of the given stores (`autoIndex` is off; see connectMongo). Additive on purpose
 * (`createIndexes`, not `syncIndexes`): during a rolling deploy the previous version still relies on
 * its indexes, so dropping an index is a deliberate migration, never a side effect of starting.
 * A failure (e.g. a unique index over existing duplicates) rejects so the service does not start.
 */
export async function ensureIndexes(
  connection: Connection,
  collections: readonly IndexedCollection[] = [],
  logger?: Logger,
): Promise<void> {
  const started = Date.now();
  for (const model of Object.values(connection.models)) await model.createIndexes();
  for (const collection of collections) await collection.ensureIndexes();
  logger?.info(
    {
      component: 'mongo',
      db: connection.name,
      models: Object.keys(connection.models).length,
      stores: collections.length,
      ms: Date.now() - started,
    },
    'mongo indexes ensured',
  );
}
