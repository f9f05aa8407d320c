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

  // Both ways of keeping write conditions, on the one Mongo-wire server there is here.
  for (const writeConditions of ['server', 'in-process'] as const) {
    relayContract(`mongo store, conditions ${writeConditions}`, async () => {
      const store = createMongoStore<Show>({
        connection: db.connection,
        collection: uniqueName('shows').replace(/-/g, '_'),
        writeConditions,
      });
      await store.ensureIndexes();
      return store;
    });
  }
});
