import { afterAll, beforeAll } from 'vitest';
import { createMongoStore } from '../../src/store/mongo-store.js';
import { describeIntegration, uniqueName } from '../../src/testing/index.js';
import { openMongoTestDb, type MongoTestDb } from '../store/mongo-test-db.js';
import type { Show } from '../store/store-contract.js';
import { relayContract } from './relay-contract.js';

describeIntegration('outbox relay on mongo', ({ mongoUrl }) => {
  let db: MongoTestDb;
  beforeAll(async () => {
    db = await openMongoTestDb(mongoUrl, 'relay');
  });
  afterAll(async () => {
    await db?.drop();
  });

  relayContract('mongo store', async () => {
    const store = createMongoStore<Show>({
      connection: db.connection,
      collection: uniqueName('shows').replace(/-/g, '_'),
    });
    await store.ensureIndexes();
    return store;
  });
});
