import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import {
  closeMongo,
  connectMongo,
  ensureIndexes,
  mongoServerKind,
  pingMongo,
} from '../../src/mongo/index.js';
import { createMongoStore } from '../../src/store/mongo-store.js';
import { describeIntegration, uniqueName, waitFor } from '../../src/testing/index.js';

function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'mongo-test',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, text: () => lines.join('') };
}

const dbName = (): string => uniqueName('conn').replace(/-/g, '_');

describeIntegration('connectMongo', ({ mongoUrl }) => {
  it('logs commands at or over the slow threshold by name and collection, never their contents', async () => {
    const { logger, text } = capturingLogger();
    const sut = await connectMongo({ url: mongoUrl, dbName: dbName(), logger, slowCommandMs: 0 });
    try {
      await sut.db!.collection('slow_probe').insertOne({ secret: 'hunter2-not-logged' });
      const slow = text()
        .split('\n')
        .filter((line) => line.includes('slow mongo command'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(slow).toContainEqual(
        expect.objectContaining({ command: 'insert', collection: 'slow_probe', failed: false }),
      );
      expect(text()).not.toContain('hunter2-not-logged');
    } finally {
      await sut.dropDatabase();
      await closeMongo(sut, logger);
    }
  });

  it('opens a dedicated connection that answers ping, and closes idempotently', async () => {
    const { logger, text } = capturingLogger();
    const sut = await connectMongo({
      url: mongoUrl,
      dbName: dbName(),
      logger,
      appName: 'conn-test',
    });
    try {
      expect(sut).not.toBe(mongoose.connection); // never the global connection
      expect(sut.readyState).toBe(mongoose.ConnectionStates.connected);
      expect(await pingMongo(sut)).toBe(true);
      expect(text()).toContain('mongo connected');
    } finally {
      await sut.dropDatabase();
      await closeMongo(sut, logger);
    }
    expect(await pingMongo(sut)).toBe(false);
    await expect(closeMongo(sut)).resolves.toBeUndefined();
  });

  it('restarts a client whose server monitor stalled, and the connection keeps working', async () => {
    const { logger, text } = capturingLogger();
    // Stall time is three connect timeouts: 3 s here.
    const sut = await connectMongo({
      url: mongoUrl,
      dbName: dbName(),
      logger,
      connectTimeoutMS: 1_000,
    });
    try {
      const shows = sut.db!.collection<{ _id: string; n: number }>('shows');
      await shows.insertOne({ _id: 'before', n: 1 });
      // What a stuck monitor looks like from outside: a heartbeat that started and never ends.
      sut.getClient().emit('serverHeartbeatStarted', {} as never);
      await waitFor(() => text().includes('mongo client restarted'), { timeoutMs: 20_000 });
      expect(text()).toContain('mongo server monitor stalled; restarting the client');
      await shows.insertOne({ _id: 'after', n: 2 });
      expect(await shows.countDocuments({})).toBe(2);
      expect(await pingMongo(sut)).toBe(true);
    } finally {
      await sut.dropDatabase();
      await closeMongo(sut);
    }
  });

  it('builds indexes only when asked: autoIndex is off, ensureIndexes creates model and store indexes', async () => {
    const { logger } = capturingLogger();
    const sut = await connectMongo({ url: mongoUrl, dbName: dbName(), logger });
    try {
      const Venue = sut.model(
        'Venue',
        new mongoose.Schema({
          slug: { type: String, unique: true },
          city: { type: String, index: true },
        }),
      );
      await Venue.create({ slug: 'arena', city: 'Oslo' });
      const before = (await sut.db!.collection('venues').indexes()).map((index) => index.name);
      expect(before).toEqual(['_id_']);
      const store = createMongoStore<{ id: string; version: number; name: string; code: string }>({
        connection: sut,
        collection: 'shows',
        indexes: [
          { fields: { name: 1 }, name: 'by_name' },
          { fields: { code: 1 }, name: 'code_unique', unique: true },
        ],
      });

      await ensureIndexes(sut, [store], logger);
      await ensureIndexes(sut, [store], logger); // every start, idempotent

      const venueIndexes = (await sut.db!.collection('venues').indexes()).map((index) => index.key);
      expect(venueIndexes).toEqual(expect.arrayContaining([{ slug: 1 }, { city: 1 }]));
      const showIndexes = (await sut.db!.collection('shows').indexes()).map((index) => index.name);
      // A store's non-unique indexes only where the server reads them (store/mongo/indexes.ts).
      if ((await mongoServerKind(sut)) === 'mongodb')
        expect(showIndexes).toEqual(
          expect.arrayContaining(['by_name', 'code_unique', 'outbox_pending_due']),
        );
      else expect(showIndexes.sort()).toEqual(['_id_', 'code_unique']);
    } finally {
      await sut.dropDatabase();
      await closeMongo(sut);
    }
  });
});

describe('connectMongo without a server', () => {
  it('fails fast with kind unavailable and never shows the password, in the error or the logs', async () => {
    const { logger, text } = capturingLogger();
    const url = 'mongodb://marquee:hunter2-secret@127.0.0.1:1/?directConnection=true';

    const failure = await connectMongo({
      url,
      dbName: 'x',
      logger,
      serverSelectionTimeoutMS: 300,
    }).catch((error: unknown) => error);

    expect(failure).toMatchObject({ kind: 'unavailable' });
    const message = (failure as Error).message;
    expect(message).toContain('mongodb://marquee:***@127.0.0.1:1');
    expect(message).not.toContain('hunter2');
    expect(JSON.stringify(failure)).not.toContain('hunter2');
    expect(text()).not.toContain('hunter2');
  });
});
