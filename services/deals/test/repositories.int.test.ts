import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { createDealsStorage } from '../src/adapters/repositories.js';
import { repositoriesContract } from './repositories-contract.js';

describeIntegration('deals storage on the Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'deals-test', level: 'silent' });
  let connection: Connection;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: 'admin',
      logger,
      appName: 'deals-test',
    });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await closeMongo(connection, logger);
  });

  // A fresh database per test would be slow on FerretDB; fresh collections per storage instead.
  repositoriesContract('mongo', async () => {
    const db = connection.useDb(uniqueName('deals').replace(/-/g, '_'), { useCache: false });
    databases.push(db);
    // As the service opens it: Mongo collections with their indexes built.
    const { storage, outboxSources } = await openServiceStores(
      { mongo: db, logger },
      createDealsStorage,
    );
    return { ...storage, outboxSources };
  });
});
