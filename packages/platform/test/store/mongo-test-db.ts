/**
 * One throw-away database per test file on the real Mongo-wire server, dropped afterwards, so runs
 * and suites never see each other's data.
 */
import type { Connection } from 'mongoose';
import { createLogger } from '../../src/logger/index.js';
import { closeMongo, connectMongo } from '../../src/mongo/index.js';
import { uniqueName } from '../../src/testing/index.js';

export interface MongoTestDb {
  connection: Connection;
  drop(): Promise<void>;
}

export async function openMongoTestDb(url: string, prefix: string): Promise<MongoTestDb> {
  const logger = createLogger({ service: 'platform-test', level: 'silent' });
  // Database names must stay short and free of "-" for some servers; uniqueName only uses [a-z0-9-].
  const dbName = uniqueName(prefix).replace(/-/g, '_');
  const connection = await connectMongo({ url, dbName, logger, appName: 'platform-test' });
  return {
    connection,
    async drop() {
      try {
        await connection.dropDatabase();
      } finally {
        await closeMongo(connection);
      }
    },
  };
}
