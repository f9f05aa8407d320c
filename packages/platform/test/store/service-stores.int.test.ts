import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import { openServiceStores } from '../../src/store/service-stores.js';
import { describeIntegration, uniqueName } from '../../src/testing/index.js';
import { openMongoTestDb, type MongoTestDb } from './mongo-test-db.js';

interface Thing {
  id: string;
  version: number;
  name: string;
}

describeIntegration('openServiceStores with a database', ({ mongoUrl }) => {
  let db: MongoTestDb;
  beforeAll(async () => {
    db = await openMongoTestDb(mongoUrl, 'stores');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('opens Mongo collections whose indexes exist when it resolves', async () => {
    const name = uniqueName('things').replace(/-/g, '_');
    const opened = await openServiceStores(
      { mongo: db.connection, logger: createLogger({ service: 'stores-test', level: 'silent' }) },
      (stores) => ({
        things: stores.collection<Thing>(name, [{ fields: { name: 1 }, unique: true }]),
        connection: stores.adapter({ memory: () => undefined, mongo: (connection) => connection }),
      }),
    );
    expect(opened.kind).toBe('mongo');
    expect(opened.storage.connection).toBe(db.connection);
    expect(opened.outboxSources.map((source) => source.outboxName)).toEqual([name]);
    const indexes = await db.connection.db!.collection(name).indexes();
    // The unique index on `name` (documents keep their fields under `data`).
    expect(indexes.filter((index) => index.unique).map((index) => index.key)).toEqual([
      { 'data.name': 1 },
    ]);
    await opened.storage.things.insert({ id: 'a', name: 'x' });
    await expect(opened.storage.things.insert({ id: 'b', name: 'x' })).rejects.toMatchObject({
      kind: 'already_exists',
    });
  });
});
