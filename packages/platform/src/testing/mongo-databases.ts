import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { closeMongo, connectMongo } from '../mongo/index.js';
import { silentLogger } from './silent-logger.js';
import { uniqueName } from './unique-name.js';

/** What `useMongoDatabases` gives a suite. */
export interface MongoDatabases {
  /** The silent logger of the suite's connection, for what the suite opens on it. */
  logger: ReturnType<typeof silentLogger>;
  /** A new database of a name no other run uses (`<prefix>_<unique>`), dropped after the suite. */
  fresh(prefix: string): Connection;
}

/**
 * Fresh databases on the Mongo-wire server for the contract runners of one suite: one connection
 * opened before the suite's tests (as `appName`), a new database per `fresh` call on it, and after
 * the suite every database it gave dropped and the connection closed. Call it inside the suite
 * (`describeIntegration`), whose `mongoUrl` it takes.
 */
export function useMongoDatabases(mongoUrl: string, appName: string): MongoDatabases {
  const logger = silentLogger(appName);
  let connection: Connection | undefined;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({ url: mongoUrl, dbName: 'admin', logger, appName });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await closeMongo(connection, logger);
  });
  return {
    logger,
    fresh(prefix) {
      if (!connection)
        throw new Error('useMongoDatabases: fresh() called before the suite started');
      const db = connection.useDb(uniqueName(prefix).replace(/-/g, '_'), { useCache: false });
      databases.push(db);
      return db;
    },
  };
}
