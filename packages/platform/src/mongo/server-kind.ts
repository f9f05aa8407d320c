import type { Connection } from 'mongoose';
import { AppError } from '../errors/index.js';

/**
 * Which Mongo-wire server a connection talks to. It matters for how a write keeps its condition:
 * MongoDB evaluates any filter on the server, atomically; FerretDB 1.24 (SQLite, the dev/CI server)
 * pushes only a bare `{ _id }` filter down to SQL and decodes the whole collection for any other one,
 * and is not atomic between its read and its write anyway (store/README.md, "Write modes").
 */
export type MongoServerKind = 'mongodb' | 'ferretdb';

const kinds = new WeakMap<Connection, Promise<MongoServerKind>>();

/**
 * Asks the server once per connection (`buildInfo`, which FerretDB answers with a
 * `ferretdbVersion`). A failed probe is not remembered: the next call asks again.
 */
export function mongoServerKind(connection: Connection): Promise<MongoServerKind> {
  let kind = kinds.get(connection);
  if (kind === undefined) {
    const db = connection.db;
    if (db === undefined)
      return Promise.reject(new AppError('unavailable', 'the MongoDB connection is not open'));
    kind = db
      .admin()
      .command({ buildInfo: 1 })
      .then((info): MongoServerKind => ('ferretdbVersion' in info ? 'ferretdb' : 'mongodb'));
    kinds.set(connection, kind);
    kind.catch(() => kinds.delete(connection));
  }
  return kind;
}
