import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { createTopPicksStorage } from '../src/top-picks/index.js';
import { topPicksStorageContract } from './top-picks-stores-contract.js';

describeIntegration('top picks storage on the Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'cart-test', level: 'silent' });
  let connection: Connection;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: 'admin',
      logger,
      appName: 'cart-test',
    });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await closeMongo(connection, logger);
  });

  topPicksStorageContract('mongo', async () => {
    const db = connection.useDb(uniqueName('top_picks').replace(/-/g, '_'), { useCache: false });
    databases.push(db);
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores({ mongo: db, logger }, createTopPicksStorage);
    return storage;
  });
});
