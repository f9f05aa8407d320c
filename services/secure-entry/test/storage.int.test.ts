import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration } from '@marquee/platform/testing';
import { createEntryStorage } from '../src/adapters/stores.js';
import { storageContract } from './storage-contract.js';

describeIntegration('secure-entry storage on the Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });
  let connection: Connection;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: `secure_entry_contract_${randomBytes(4).toString('hex')}`,
      logger,
      appName: 'secure-entry-test',
    });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await connection.dropDatabase();
    await closeMongo(connection);
  });

  // As the service opens it, a fresh database per storage: Mongo collections with their indexes.
  storageContract('mongo', async () => {
    const db = connection.useDb(`secure_entry_contract_${randomBytes(4).toString('hex')}`);
    databases.push(db);
    return (await openServiceStores({ mongo: db, logger }, createEntryStorage)).storage;
  });
});
