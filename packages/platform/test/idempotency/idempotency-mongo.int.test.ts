import { afterAll, beforeAll } from 'vitest';
import { idempotencyIndexes, type IdempotencyRecord } from '../../src/idempotency/index.js';
import { createMongoStore } from '../../src/store/mongo-store.js';
import { describeIntegration, uniqueName } from '../../src/testing/index.js';
import { openMongoTestDb, type MongoTestDb } from '../store/mongo-test-db.js';
import { idempotencyContract } from './idempotency-contract.js';

describeIntegration('idempotency on mongo', ({ mongoUrl }) => {
  let db: MongoTestDb;
  beforeAll(async () => {
    db = await openMongoTestDb(mongoUrl, 'idem');
  });
  afterAll(async () => {
    await db?.drop();
  });
  idempotencyContract('mongo', async () => {
    const store = createMongoStore<IdempotencyRecord>({
      connection: db.connection,
      collection: uniqueName('idem').replace(/-/g, '_'),
      indexes: idempotencyIndexes,
    });
    await store.ensureIndexes();
    return store;
  });
});
