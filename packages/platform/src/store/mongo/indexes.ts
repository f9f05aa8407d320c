/**
 * The indexes of a collection: the outbox index every collection has, and the secondary indexes of
 * its `StoreIndex` list on their stored paths. Created by `ensureIndexes()` only, additively.
 */
import type mongoose from 'mongoose';
import type { MongoServerKind } from '../../mongo/server-kind.js';
import type { StoreIndex } from '../types.js';
import { storedPath } from './queries.js';
import type { Collection, StoredDoc } from './stored.js';

/**
 * `{ outboxPending: 1, outboxDueAt: 1 }`: serves the server mode's relay scan `outboxPending = true
 * AND outboxDueAt <= now ORDER BY outboxDueAt` as an equality on an index, without a partial index.
 */
export const OUTBOX_INDEX = 'outbox_pending_due';

/**
 * The indexes to build on `server`. FerretDB 1.24 (SQLite) answers every filter but a bare `{ _id }`
 * by decoding the whole collection and never reads a secondary index, while each of its indexes is
 * an expression over the stored JSON that every insert and update evaluates (with cart's four, about
 * 0.1 ms more of the server's CPU a write, measured against the FerretDB build of deploy/local):
 * there only the unique ones are built, for the uniqueness they enforce. MongoDB gets every index.
 */
export function indexSpecs<T>(
  indexes: readonly StoreIndex<T>[] = [],
  server: MongoServerKind = 'mongodb',
): mongoose.mongo.IndexDescription[] {
  const specs: mongoose.mongo.IndexDescription[] = [
    { key: { outboxPending: 1, outboxDueAt: 1 }, name: OUTBOX_INDEX },
    ...indexes.flatMap((index) => {
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
  return server === 'ferretdb' ? specs.filter((spec) => spec.unique === true) : specs;
}

export async function ensureIndexes<T>(
  docs: () => Collection<StoredDoc>,
  indexes: readonly StoreIndex<T>[] | undefined,
  server: () => Promise<MongoServerKind>,
): Promise<void> {
  const specs = indexSpecs(indexes, await server());
  // One index per command: FerretDB 1.24 panics (and drops the connection) when a single
  // createIndexes names several indexes that already exist, i.e. on every restart.
  for (const spec of specs) await docs().createIndexes([spec]);
}
