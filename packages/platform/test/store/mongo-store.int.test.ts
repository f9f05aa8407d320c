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

  it('reads a record by its _id alone, the one filter FerretDB 1.24 does not answer with a scan', async () => {
    const url = new URL(mongoUrl);
    url.searchParams.set('monitorCommands', 'true');
    const monitored = await openMongoTestDb(url.toString(), 'reads');
    try {
      const filters: unknown[] = [];
      monitored.connection.getClient().on('commandStarted', (command) => {
        if (command.commandName === 'find') filters.push(command.command.filter);
      });
      const sut = createMongoStore<Show>({ connection: monitored.connection, collection: 'reads' });
      const show = aShow();
      await sut.insert(show);
      expect(await sut.get(show.id)).toMatchObject({ id: show.id, version: 1 });
      await sut.update(show.id, 1, (current) => ({ ...current, title: 'Renamed' }));
      await expect(sut.update(show.id, 1, { ...show, title: 'Stale' })).rejects.toMatchObject({
        kind: 'aborted',
      });
      // Deleted with an event: a tombstone waits for the relay and must read as absent.
      await sut.delete(show.id, 2, { events: [anEvent(show.id)] });
      expect(await sut.get(show.id)).toBeUndefined();
      expect(await sut.delete(show.id, undefined)).toBe(false);

      expect(filters.length).toBeGreaterThanOrEqual(4);
      for (const filter of filters) expect(filter).toEqual({ _id: show.id });
    } finally {
      await monitored.drop();
    }
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
