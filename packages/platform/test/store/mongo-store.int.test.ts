import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import { closeMongo, connectMongo, mongoServerKind } from '../../src/mongo/index.js';
import { createMongoStore, type MongoStore } from '../../src/store/mongo-store.js';
import type { StoreIndex, Versioned } from '../../src/store/types.js';
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

  // Both ways of keeping write conditions, on the one Mongo-wire server there is here.
  for (const writeConditions of ['server', 'in-process'] as const) {
    storeContract(`mongo, conditions ${writeConditions}`, async ({ indexes, pack }) => {
      const sut = createMongoStore<Show>({
        connection: db.connection,
        collection: uniqueName('shows').replace(/-/g, '_'),
        writeConditions,
        ...(indexes ? { indexes } : {}),
        ...(pack ? { pack } : {}),
      });
      await sut.ensureIndexes();
      return sut;
    });
  }

  it('checks conditions in process by default on FerretDB, on the server on MongoDB', async () => {
    const info = await db.connection.db!.admin().command({ buildInfo: 1 });
    const ferretDb = 'ferretdbVersion' in info;
    expect(await mongoServerKind(db.connection)).toBe(ferretDb ? 'ferretdb' : 'mongodb');
    const collection = uniqueName('default').replace(/-/g, '_');
    const sut = createMongoStore<Show>({ connection: db.connection, collection });
    const show = aShow();
    await sut.insert(show, { events: [anEvent(show.id)] });
    // Only the in-process mode keeps a marker per document with events to relay.
    const marked = await db.connection
      .db!.collection(`${collection}_outbox_pending`)
      .countDocuments();
    expect(marked).toBe(ferretDb ? 1 : 0);
  });

  it('in process, names the document by _id alone and keeps the relay off the collection', async () => {
    const url = new URL(mongoUrl);
    url.searchParams.set('monitorCommands', 'true');
    const monitored = await openMongoTestDb(url.toString(), 'local');
    try {
      const collection = 'local_writes';
      const sent: { name: string; collection: unknown; filter: unknown }[] = [];
      monitored.connection.getClient().on('commandStarted', ({ commandName, command }) => {
        const target = command[commandName] as unknown;
        if (commandName === 'find' || commandName === 'findAndModify' || commandName === 'insert')
          sent.push({
            name: commandName,
            collection: target,
            filter: command.filter ?? command.query,
          });
        if (commandName === 'update' || commandName === 'delete')
          for (const statement of (command.updates ?? command.deletes) as { q: unknown }[])
            sent.push({ name: commandName, collection: target, filter: statement.q });
      });
      const sut = createMongoStore<Show>({
        connection: monitored.connection,
        collection,
        writeConditions: 'in-process',
      });
      expect(await sut.pendingOutbox(10)).toEqual([]);
      // The relay never reads the collection itself, not even at its first pass.
      expect(sent.filter((command) => command.collection === collection)).toEqual([]);
      sent.length = 0;

      const show = aShow();
      const first = anEvent(show.id);
      await sut.insert(show, { events: [first] });
      // The marker goes first: events are never stored without one. None was there: one insert.
      expect(sent.map((command) => [command.name, command.collection])).toEqual([
        ['insert', `${collection}_outbox_pending`],
        ['insert', collection],
      ]);
      await sut.update(show.id, 1, (current) => ({ ...current, title: 'Renamed' }));
      await expect(sut.update(show.id, 1, { ...show, title: 'Stale' })).rejects.toMatchObject({
        kind: 'aborted',
      });
      await sut.modify(show.id, (current) => ({ ...current, title: 'Renamed twice' }));
      const pending = await sut.pendingOutbox(10);
      expect(pending).toEqual([
        { docId: show.id, events: [expect.objectContaining({ id: first.id })] },
      ]);
      await sut.deferOutbox(show.id, new Date(Date.now() - 1));
      await sut.ackOutbox(show.id, [first.id]);
      expect(await sut.pendingOutbox(10)).toEqual([]);
      await sut.delete(show.id, 3, { events: [anEvent(show.id)] });
      expect(await sut.get(show.id)).toBeUndefined();

      const onCollection = sent.filter((command) => command.collection === collection);
      // insert, three writes, the delete's read and its tombstone, the get's read: the reads before
      // the writes come from memory (the document was written here a moment before).
      expect(onCollection.map((command) => command.name)).toEqual([
        'insert',
        'findAndModify',
        'findAndModify',
        'find',
        'findAndModify',
        'find',
      ]);
      for (const command of onCollection.filter(({ name }) => name !== 'insert'))
        expect(command.filter).toEqual({ _id: show.id });
      // Writes go through findAndModify: FerretDB runs an `update` command by scanning the
      // collection even for a bare `{ _id }` filter.
      expect(onCollection.filter((command) => command.name === 'update')).toEqual([]);
      // The relay read its markers, never the collection with another filter.
      expect(sent.some((command) => command.collection === `${collection}_outbox_pending`)).toBe(
        true,
      );
    } finally {
      await monitored.drop();
    }
  });

  /** What a relay pass does, without a bus: the events it would publish, acknowledged. */
  const relayAll = async (store: MongoStore<Show>) => {
    const relayed: string[] = [];
    for (const doc of await store.pendingOutbox(10)) {
      relayed.push(...doc.events.map((event) => event.id));
      await store.ackOutbox(
        doc.docId,
        doc.events.map((event) => event.id),
      );
    }
    return relayed;
  };

  /**
   * The same database over a connection of its own, its commands monitored: what another process
   * of the service (the next one after a restart) would be.
   */
  const anotherProcess = async (appName: string) => {
    const url = new URL(mongoUrl);
    url.searchParams.set('monitorCommands', 'true');
    return connectMongo({
      url: url.toString(),
      dbName: db.connection.db!.databaseName,
      logger: createLogger({ service: 'platform-test', level: 'silent' }),
      appName,
    });
  };

  type Connection = Awaited<ReturnType<typeof anotherProcess>>;
  /** The filters of the `find` commands `connection` sends to `collection`, as they are sent. */
  const findsOf = (connection: Connection, collection: string) => {
    const filters: Array<Record<string, unknown>> = [];
    connection.getClient().on('commandStarted', ({ commandName, command }) => {
      if (commandName === 'find' && command.find === collection)
        filters.push(command.filter as Record<string, unknown>);
    });
    return filters;
  };

  it('in process, relays a write of its own without reading the document back', async () => {
    const collection = uniqueName('known').replace(/-/g, '_');
    const monitoredStore = async (prefix: string) => {
      const connection = await anotherProcess(prefix);
      const reads = findsOf(connection, collection);
      const store = createMongoStore<Show>({
        connection,
        collection,
        writeConditions: 'in-process',
      });
      return { connection, store, reads };
    };

    const first = await monitoredStore('first-process');
    const second = await monitoredStore('second-process');
    try {
      const show = aShow();
      const created = anEvent(show.id);
      await first.store.insert(show, { events: [created] });
      const renamed = anEvent(show.id);
      await first.store.modify(show.id, (current) => ({ ...current, title: 'Renamed' }), {
        events: () => [renamed],
      });
      // Neither the modify (the document was written here a moment before) nor the relay read it.
      expect(first.reads).toHaveLength(0);
      expect(await relayAll(first.store)).toEqual([created.id, renamed.id]);
      expect(first.reads).toHaveLength(0);
      expect(await first.store.pendingOutbox(10)).toEqual([]);

      // Events the first process left unrelayed (it stopped): the next one reads them once, and
      // relays them with those of its own next write, oldest first.
      const left = anEvent(show.id);
      await first.store.update(show.id, 2, (current) => ({ ...current, title: 'Left' }), {
        events: [left],
      });
      const own = anEvent(show.id);
      await second.store.modify(show.id, (current) => ({ ...current, title: 'Taken over' }), {
        events: () => [own],
      });
      expect(second.reads).toHaveLength(1); // the modify's read
      expect(await relayAll(second.store)).toEqual([left.id, own.id]);
      expect(second.reads).toHaveLength(1);
      expect(await second.store.pendingOutbox(10)).toEqual([]);

      // The acknowledgement removed the marker (with others, a moment later, or when the relay
      // stops) and left the published events in the document, a write saved; the next write with
      // events replaces them, so only its own go out.
      await second.store.settleOutbox!();
      const stored = () =>
        db.connection.db!.collection(collection).findOne({ _id: show.id as never });
      expect(await stored()).toMatchObject({
        outbox: [{ id: left.id }, { id: own.id }],
        data: { title: 'Taken over' },
      });
      expect(
        await db.connection
          .db!.collection(`${collection}_outbox_pending`)
          .countDocuments({ _id: show.id as never }),
      ).toBe(0);
      await second.store.modify(show.id, (current) => ({ ...current, title: 'Quiet' }));
      expect(await second.store.pendingOutbox(10)).toEqual([]);
      const next = anEvent(show.id);
      await second.store.modify(show.id, (current) => ({ ...current, title: 'Next' }), {
        events: () => [next],
      });
      expect((await stored())?.outbox).toEqual([expect.objectContaining({ id: next.id })]);
      // So does a process that starts after this one stopped (its relay settles on stop): the
      // missing marker says the stored events are out.
      expect(await relayAll(second.store)).toEqual([next.id]);
      await second.store.settleOutbox!();
      const third = await monitoredStore('third-process');
      try {
        const last = anEvent(show.id);
        await third.store.modify(show.id, (current) => ({ ...current, title: 'Last' }), {
          events: () => [last],
        });
        expect(await relayAll(third.store)).toEqual([last.id]);
      } finally {
        await closeMongo(third.connection);
      }
    } finally {
      await closeMongo(first.connection);
      await closeMongo(second.connection);
    }
  });

  it('in process, removes acknowledged markers together, and a write meanwhile takes its over', async () => {
    const collection = uniqueName('settling').replace(/-/g, '_');
    const connection = await anotherProcess('settling');
    try {
      const onMarkers: string[] = [];
      connection.getClient().on('commandStarted', ({ commandName, command }) => {
        if (command[commandName] === `${collection}_outbox_pending`) onMarkers.push(commandName);
      });
      const sut = createMongoStore<Show>({ connection, collection, writeConditions: 'in-process' });
      const shows = [aShow(), aShow()];
      const created = shows.map((show) => anEvent(show.id));
      for (const [i, show] of shows.entries()) await sut.insert(show, { events: [created[i]!] });
      expect(await relayAll(sut)).toEqual(expect.arrayContaining(created.map((event) => event.id)));
      onMarkers.length = 0;
      // Both acknowledged, neither marker removed yet: the next write of the first takes its
      // marker over without a command, and only its own event goes out.
      const renamed = anEvent(shows[0]!.id);
      await sut.modify(shows[0]!.id, (current) => ({ ...current, title: 'Renamed' }), {
        events: () => [renamed],
      });
      expect(onMarkers).toEqual([]);
      expect(await relayAll(sut)).toEqual([renamed.id]);
      // One removal for both markers.
      onMarkers.length = 0;
      await sut.settleOutbox!();
      expect(onMarkers).toEqual(['delete']);
      expect(await connection.db!.collection(`${collection}_outbox_pending`).countDocuments()).toBe(
        0,
      );
      expect(await relayAll(sut)).toEqual([]);

      // A marker written again after this process acknowledged it (by a second writer, which this
      // mode does not support but must not lose events to) is pending again, and stays. The relay
      // reads the markers at most once a second while its memory knows of nothing lost.
      const other = anEvent(shows[1]!.id);
      await sut.modify(shows[1]!.id, (current) => ({ ...current, title: 'Again' }), {
        events: () => [other],
      });
      expect(await relayAll(sut)).toEqual([other.id]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await db.connection
        .db!.collection(`${collection}_outbox_pending`)
        .updateOne({ _id: shows[1]!.id as never }, { $set: { dueAt: new Date() } });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await sut.pendingOutbox(10)).map((doc) => doc.docId)).toEqual([shows[1]!.id]);
      await sut.settleOutbox!();
      expect(await connection.db!.collection(`${collection}_outbox_pending`).countDocuments()).toBe(
        1,
      );
    } finally {
      await closeMongo(connection);
    }
  });

  it('in process, answers a document it wrote within the last second from memory', async () => {
    const collection = uniqueName('written').replace(/-/g, '_');
    const connection = await anotherProcess('written');
    try {
      const reads = findsOf(connection, collection);
      const sut = createMongoStore<Show>({ connection, collection, writeConditions: 'in-process' });
      const show = aShow({ tags: ['a'] });
      await sut.insert(show);
      await sut.modify(show.id, (current) => ({ ...current, title: 'Renamed' }));
      await expect(sut.update(show.id, 1, { ...show, title: 'Stale' })).rejects.toMatchObject({
        kind: 'aborted',
      });
      const read = (await sut.get(show.id))!;
      expect(read).toMatchObject({ title: 'Renamed', version: 2, tags: ['a'] });
      expect(reads).toEqual([]);
      // A copy each time: changing what was answered changes nothing remembered.
      read.tags.push('mutated');
      expect((await sut.get(show.id))?.tags).toEqual(['a']);

      // An edit made by hand shows once the second has passed, and the next write builds on it.
      await db.connection
        .db!.collection(collection)
        .updateOne({ _id: show.id as never }, { $set: { 'data.title': 'By hand' } });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await sut.get(show.id)).toMatchObject({ title: 'By hand', version: 2 });
      expect(reads).toEqual([{ _id: show.id }]);
      const next = await sut.modify(show.id, (current) => ({ ...current, tags: ['b'] }));
      expect(next).toMatchObject({ title: 'By hand', tags: ['b'], version: 3 });
      // Deleted here: read as absent at once, from the database.
      await sut.delete(show.id, 3);
      expect(await sut.get(show.id)).toBeUndefined();
    } finally {
      await closeMongo(connection);
    }
  });

  /**
   * A collection with a due index on `dueAt` that an earlier process seeded, this process's
   * in-process store over it with the finds it sends other than by `_id` (`scans`), and a store
   * that asks the server (what the in-process answers must equal). The caller closes `connection`.
   */
  const dueCollection = async <J extends Versioned & { name: string }>(
    name: string,
    seed: (earlier: MongoStore<J>) => Promise<unknown>,
  ) => {
    const collection = uniqueName(name).replace(/-/g, '_');
    const indexes = [{ fields: { dueAt: 1 } as StoreIndex<J>['fields'], due: true }];
    await seed(
      createMongoStore<J>({
        connection: db.connection,
        collection,
        indexes,
        writeConditions: 'in-process',
      }),
    );
    const connection = await anotherProcess(`${name}-process`);
    const finds = findsOf(connection, collection);
    return {
      connection,
      scans: () => finds.filter((filter) => Object.keys(filter).join() !== '_id'),
      sut: createMongoStore<J>({ connection, collection, indexes, writeConditions: 'in-process' }),
      serverSide: createMongoStore<J>({
        connection: db.connection,
        collection,
        writeConditions: 'server',
      }),
    };
  };

  it('in process, answers a due-time query from memory, reading only the due documents', async () => {
    interface Job extends Versioned {
      name: string;
      dueAt?: Date;
    }
    const t0 = Date.now();
    // What an earlier process left: due, due later, no due time.
    const { connection, scans, sut, serverSide } = await dueCollection<Job>(
      'due',
      async (earlier) => {
        await earlier.insert({ id: 'left-due', name: 'a', dueAt: new Date(t0 - 1_000) });
        await earlier.insert({ id: 'left-later', name: 'b', dueAt: new Date(t0 + 60_000) });
        await earlier.insert({ id: 'left-none', name: 'c' });
      },
    );
    try {
      const dueBy = async (at: number, limit = 10) =>
        (await sut.find({ dueAt: { $lte: new Date(at) } }, { sort: { dueAt: 1 }, limit })).map(
          (job) => job.id,
        );

      // The first query loads the due times with one scan.
      expect(await dueBy(t0)).toEqual(['left-due']);
      expect(scans()).toHaveLength(1);

      // This process's writes: a new due document, a due time moved earlier, one removed, and a
      // due document deleted.
      await sut.insert({ id: 'own-soon', name: 'd', dueAt: new Date(t0 - 2_000) });
      await sut.modify('left-later', (job) => ({ ...job, dueAt: new Date(t0 - 500) }));
      await sut.modify('left-due', ({ dueAt: _dueAt, ...job }) => job);
      await sut.insert({ id: 'own-gone', name: 'e', dueAt: new Date(t0 - 100) });
      await sut.delete('own-gone');

      expect(await dueBy(t0)).toEqual(['own-soon', 'left-later']);
      expect(await dueBy(t0, 1)).toEqual(['own-soon']);
      expect(await dueBy(t0 - 1_500)).toEqual(['own-soon']);
      expect(scans()).toHaveLength(1); // nothing but reads by _id since the load
      // The same answers as the server's own query.
      const serverDue = await serverSide.find(
        { dueAt: { $lte: new Date(t0) } },
        { sort: { dueAt: 1 } },
      );
      expect(serverDue.map((job) => job.id)).toEqual(['own-soon', 'left-later']);
      // Any other query is the server's.
      expect((await sut.find({ name: 'b' })).map((job) => job.id)).toEqual(['left-later']);
      expect(scans()).toHaveLength(2);
    } finally {
      await closeMongo(connection);
    }
  });

  it('in process, answers a due-time query on epoch milliseconds, numbers with numbers only', async () => {
    interface Job extends Versioned {
      name: string;
      dueAt?: number | Date | null;
    }
    const t0 = Date.now();
    const { connection, scans, sut, serverSide } = await dueCollection<Job>(
      'due_ms',
      async (earlier) => {
        await earlier.insert({ id: 'left-due', name: 'a', dueAt: t0 - 1_000 });
        await earlier.insert({ id: 'left-date', name: 'b', dueAt: new Date(t0 - 5_000) });
        await earlier.insert({ id: 'left-null', name: 'c', dueAt: null });
      },
    );
    try {
      const ids = (jobs: Job[]) => jobs.map((job) => job.id);
      await sut.insert({ id: 'own-soon', name: 'd', dueAt: t0 - 2_000 });
      await sut.modify('left-null', (job) => ({ ...job, dueAt: t0 + 60_000 }));

      // A number bound finds the numbers only; a date bound the dates only.
      expect(ids(await sut.find({ dueAt: { $lte: t0 } }, { sort: { dueAt: 1 } }))).toEqual([
        'own-soon',
        'left-due',
      ]);
      expect(ids(await sut.find({ dueAt: { $lte: new Date(t0) } }))).toEqual(['left-date']);
      expect(ids(await sut.find({ dueAt: { $lte: t0 + 60_000 } }, { limit: 1 }))).toEqual([
        'own-soon',
      ]);
      expect(scans()).toHaveLength(1); // the one load; reads by _id after it
      // The same answers as the server's own query.
      for (const bound of [t0, new Date(t0), t0 + 60_000]) {
        expect(ids(await sut.find({ dueAt: { $lte: bound } }, { sort: { dueAt: 1 } }))).toEqual(
          ids(await serverSide.find({ dueAt: { $lte: bound } }, { sort: { dueAt: 1 } })),
        );
      }
    } finally {
      await closeMongo(connection);
    }
  });

  it('in process, clears the marker of a write that never landed', async () => {
    const collection = uniqueName('unlanded').replace(/-/g, '_');
    const sut = createMongoStore<Show>({
      connection: db.connection,
      collection,
      writeConditions: 'in-process',
    });
    const markerCount = () =>
      db.connection.db!.collection(`${collection}_outbox_pending`).countDocuments();
    const kept = aShow();
    await sut.insert(kept, { events: [anEvent(kept.id)] });
    // What a crash between a marker and its document's write leaves behind: a marker for a document
    // that does not exist, and one for a document without events.
    const quiet = aShow();
    await sut.insert(quiet);
    for (const id of ['never-written', quiet.id])
      await db.connection
        .db!.collection(`${collection}_outbox_pending`)
        .insertOne({ _id: id as never, dueAt: new Date() });
    expect(await markerCount()).toBe(3);

    // The relay's read clears them and answers only the document with events.
    const pending = await sut.pendingOutbox(10);
    expect(pending).toEqual([
      { docId: kept.id, events: [expect.objectContaining({ key: kept.id })] },
    ]);
    await sut.settleOutbox!();
    expect(await markerCount()).toBe(1);
    for (const doc of pending)
      await sut.ackOutbox(
        doc.docId,
        doc.events.map((event) => event.id),
      );
    expect(await sut.pendingOutbox(10)).toEqual([]);
    // Removed together, a moment after their acknowledgement.
    await vi.waitFor(async () => expect(await markerCount()).toBe(0), { timeout: 2_000 });
    expect((await sut.get(kept.id))?.title).toBe(kept.title);
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

      // The reads of the delete and after it (the ones before go to the memory of written documents).
      expect(filters.length).toBeGreaterThanOrEqual(3);
      for (const filter of filters) expect(filter).toEqual({ _id: show.id });
    } finally {
      await monitored.drop();
    }
  });

  describe('stored shape', () => {
    it('keeps the event and the state change in one document, with an indexed pending flag', async () => {
      const collection = uniqueName('shape').replace(/-/g, '_');
      // The flag and its index are how the relay finds pending documents with conditions on the
      // server (MongoDB); the in-process mode reads its markers instead (tests above).
      const sut = createMongoStore<Show>({
        connection: db.connection,
        collection,
        writeConditions: 'server',
      });
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
      // The index is built where the server reads it: MongoDB. FerretDB reads no secondary index.
      const indexes = await db.connection.db!.collection(collection).indexes();
      const outboxIndex = { outboxPending: 1, outboxDueAt: 1 };
      if ((await mongoServerKind(db.connection)) === 'mongodb')
        expect(indexes.map((index) => index.key)).toContainEqual(outboxIndex);
      else expect(indexes.map((index) => index.key)).not.toContainEqual(outboxIndex);

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
        indexes: [
          { fields: { venueId: 1, startsAt: -1 }, name: 'venue_starts', unique: true },
          { fields: { title: 1 }, name: 'by_title' },
        ],
      });
      await sut.ensureIndexes();
      await sut.ensureIndexes(); // idempotent at every start

      const indexes = await db.connection.db!.collection(collection).indexes();
      expect(indexes.find((index) => index.name === 'venue_starts')).toMatchObject({
        key: { 'data.venueId': 1, 'data.startsAt': -1 },
        unique: true,
      });
      // A non-unique index only where the server reads it (indexes.ts).
      const byTitle = indexes.find((index) => index.name === 'by_title');
      if ((await mongoServerKind(db.connection)) === 'mongodb')
        expect(byTitle?.key).toEqual({ 'data.title': 1 });
      else expect(byTitle).toBeUndefined();
    });
  });

  it('stores kept fields as fields and the rest as one value, and moves a document either way', async () => {
    const collection = uniqueName('packing').replace(/-/g, '_');
    const raw = db.connection.db!.collection(collection);
    const packing = createMongoStore<Show>({
      connection: db.connection,
      collection,
      indexes: [{ fields: { startsAt: 1 } }],
      pack: { keep: ['venueId'] },
    });
    const plain = createMongoStore<Show>({ connection: db.connection, collection });

    const show = aShow({ details: { promoter: 'Live Co', ageLimit: 18 } });
    await packing.insert(show);
    const stored = await raw.findOne({ _id: show.id as never });
    expect(Object.keys(stored!.data as object).sort()).toEqual(['startsAt', 'venueId']);
    expect(stored!.packed).toBeDefined();

    // A store that does not pack reads the document whole; its write leaves no packed value.
    expect(await plain.get(show.id)).toEqual({ ...show, version: 1 });
    await plain.update(show.id, 1, (current) => ({ ...current, details: undefined }));
    const unpackedNow = await raw.findOne({ _id: show.id as never });
    expect(unpackedNow!.packed).toBeUndefined();
    expect(unpackedNow!.data).not.toHaveProperty('details');
    const { details: _gone, ...withoutDetails } = show;
    expect(await packing.get(show.id)).toEqual({ ...withoutDetails, version: 2 });

    // A document written unpacked is packed by the next write of a packing store.
    await packing.update(show.id, 2, (current) => ({ ...current, title: 'Packed again' }));
    const repacked = await raw.findOne({ _id: show.id as never });
    expect(Object.keys(repacked!.data as object).sort()).toEqual(['startsAt', 'venueId']);
    expect(await plain.get(show.id)).toEqual({
      ...withoutDetails,
      title: 'Packed again',
      version: 3,
    });
  });

  // Both modes: documents split by another keep list (or before layouts were recorded) are
  // rewritten once, two replicas at once included, and are then found by the newly kept field.
  for (const writeConditions of ['server', 'in-process'] as const) {
    it(`relayouts documents kept another way, once, two replicas at once (${writeConditions})`, async () => {
      const collection = uniqueName('relayout').replace(/-/g, '_');
      const raw = db.connection.db!.collection(collection);
      const older = createMongoStore<Show>({
        connection: db.connection,
        collection,
        writeConditions,
        pack: { keep: ['venueId'] },
      });
      const replica = async (connection = db.connection) => {
        const store = createMongoStore<Show>({
          connection,
          collection,
          writeConditions,
          indexes: [{ fields: { title: 1 } }],
          pack: { keep: ['venueId'] },
        });
        await store.ensureIndexes();
        return store;
      };
      // Written before `title` was kept: by the older keep list, and before layouts existed.
      const byOlderList = aShow({ title: 'Kept since' });
      await older.insert(byOlderList);
      const beforeLayouts = aShow({ title: 'Kept since' });
      const { id: legacyId, ...legacyData } = beforeLayouts;
      const { venueId, ...packedData } = legacyData;
      await raw.insertOne({
        _id: legacyId as never,
        version: 1,
        data: { venueId },
        packed: new mongoose.mongo.Binary(mongoose.mongo.BSON.serialize(packedData)),
        tombstone: false,
        outbox: [],
        outboxPending: false,
      });
      const current = await replica();
      const fresh = aShow({ title: 'Kept since' });
      await current.insert(fresh);
      // Only the document written with today's keep list is found by the newly kept field.
      expect((await current.find({ title: 'Kept since' })).map((show) => show.id)).toEqual([
        fresh.id,
      ]);

      // A second replica: its own connection (its own mutex and memory) to the same database.
      const other = await connectMongo({
        url: mongoUrl,
        dbName: db.connection.db!.databaseName,
        logger: createLogger({ service: 'platform-test', level: 'silent' }),
        appName: 'platform-test',
      });
      try {
        const rewritten = await Promise.all([
          current.relayout(),
          (await replica(other)).relayout(),
        ]);
        // Each document by one replica, or by both with the same bytes: in-process mode's writes
        // are unconditional (one writer per collection is that mode's premise), and FerretDB does
        // not make a conditional findAndModify atomic across connections (why it runs that mode),
        // so only MongoDB's server mode rewrites each exactly once.
        expect(rewritten[0] + rewritten[1]).toBeGreaterThanOrEqual(2);
        expect(rewritten[0] + rewritten[1]).toBeLessThanOrEqual(4);
        if (writeConditions === 'server' && (await mongoServerKind(db.connection)) === 'mongodb')
          expect(rewritten[0] + rewritten[1]).toBe(2);
      } finally {
        await closeMongo(other);
      }
      const found = await current.find({ title: 'Kept since' });
      expect(found.map((show) => show.id).sort()).toEqual(
        [byOlderList.id, beforeLayouts.id, fresh.id].sort(),
      );
      // Content and version unchanged: nothing but the split moved.
      expect(await current.get(beforeLayouts.id)).toEqual({ ...beforeLayouts, version: 1 });
      expect(await current.get(byOlderList.id)).toEqual({ ...byOlderList, version: 1 });
      const stored = await raw.findOne({ _id: beforeLayouts.id as never });
      expect(Object.keys(stored!.data as object).sort()).toEqual(['title', 'venueId']);
      // Nothing left: a later start rewrites nothing.
      expect(await (await replica()).relayout()).toBe(0);
    });
  }
});
