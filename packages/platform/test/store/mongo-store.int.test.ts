import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMongoStore } from '../../src/store/mongo-store.js';
import { describeIntegration, uniqueName } from '../../src/testing/index.js';
import { openMongoTestDb, type MongoTestDb } from './mongo-test-db.js';
import { aShow, anEvent, storeContract, type Show } from './store-contract.js';

describeIntegration('mongo store', ({ mongoUrl }) => {
  let db: MongoTestDb;
  beforeAll(async () => {
    db = await openMongoTestDb(mongoUrl, 'store');
  });
  afterAll(async () => {
    await db?.drop();
  });

  storeContract('mongo', async ({ indexes }) => {
    const sut = createMongoStore<Show>({
      connection: db.connection,
      collection: uniqueName('shows').replace(/-/g, '_'),
      ...(indexes ? { indexes } : {}),
    });
    await sut.ensureIndexes();
    return sut;
  });

  describe('stored shape', () => {
    it('keeps the event and the state change in one document, with an indexed pending flag', async () => {
      const collection = uniqueName('shape').replace(/-/g, '_');
      const sut = createMongoStore<Show>({ connection: db.connection, collection });
      await sut.ensureIndexes();
      const draft = aShow();
      const event = anEvent(draft.id);

      await sut.insert(draft, { events: [event] });

      const raw = await db.connection
        .db!.collection(collection)
        .findOne({ _id: draft.id as never });
      expect(raw).toMatchObject({
        _id: draft.id,
        version: 1,
        data: { title: draft.title, venueId: draft.venueId },
        tombstone: false,
        outboxPending: true,
        outbox: [{ id: event.id, topic: event.topic, key: draft.id }],
      });
      const indexes = await db.connection.db!.collection(collection).indexes();
      expect(indexes.map((index) => index.key)).toContainEqual({
        outboxPending: 1,
        outboxDueAt: 1,
      });

      await sut.ackOutbox(draft.id, [event.id]);
      const acked = await db.connection
        .db!.collection(collection)
        .findOne({ _id: draft.id as never });
      expect(acked).toMatchObject({ outboxPending: false, outbox: [] });
      expect(acked).not.toHaveProperty('outboxDueAt');
    });

    it('stores domain fields under data, so index specs name domain fields', async () => {
      const collection = uniqueName('idx').replace(/-/g, '_');
      const sut = createMongoStore<Show>({
        connection: db.connection,
        collection,
        indexes: [{ fields: { venueId: 1, startsAt: -1 }, name: 'venue_starts' }],
      });
      await sut.ensureIndexes();
      await sut.ensureIndexes(); // idempotent at every start

      const indexes = await db.connection.db!.collection(collection).indexes();
      expect(indexes.find((index) => index.name === 'venue_starts')?.key).toEqual({
        'data.venueId': 1,
        'data.startsAt': -1,
      });
    });
  });
});
