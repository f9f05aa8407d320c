import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import { repositoriesContract } from './repositories-contract.js';

describeIntegration('partner-reference storage on the Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'partner-reference-test', level: 'silent' });
  let connection: Connection;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: 'admin',
      logger,
      appName: 'partner-reference-test',
    });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await closeMongo(connection, logger);
  });

  repositoriesContract('mongo', async () => {
    const db = connection.useDb(uniqueName('partner_ref').replace(/-/g, '_'), { useCache: false });
    databases.push(db);
    // As the service opens them: Mongo collections with their indexes built.
    return (await openServiceStores({ mongo: db, logger }, createPartnerRepositories)).storage;
  });
});
