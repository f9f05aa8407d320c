import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { createCartStorage } from '../src/adapters/stores.js';
import { cartStorageContract } from './cart-storage-contract.js';

describeIntegration('cart storage on the Mongo-wire server', ({ mongoUrl }) => {
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

  cartStorageContract('mongo', async () => {
    const db = connection.useDb(uniqueName('cart').replace(/-/g, '_'), { useCache: false });
    databases.push(db);
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores({ mongo: db, logger }, (stores) =>
      createCartStorage(stores, { sandboxAreaCapacity: 100 }),
    );
    return storage;
  });
});
