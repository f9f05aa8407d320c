import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Connection } from 'mongoose';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { createOutboxRelay, type RawOutgoingEvent } from '@marquee/platform/outbox';
import { createMongoStore } from '@marquee/platform/store';
import { describeIntegration } from '@marquee/platform/testing';
import {
  createPublishedEventRepository,
  publishedEventIndexes,
  type StoredPublicationKey,
  type StoredPublishedEvent,
} from '../src/adapters/published-event-repository.js';
import { publishedEventRepositoryContract } from './published-event-repository-contract.js';

describeIntegration('publisher on the real Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'publisher-test', level: 'silent' });
  let connection: Connection;
  beforeAll(async () => {
    const dbName = `publisher_test_${randomBytes(4).toString('hex')}`;
    connection = await connectMongo({ url: mongoUrl, dbName, logger, appName: 'publisher-test' });
  });
  afterAll(async () => {
    if (!connection) return;
    try {
      await connection.dropDatabase();
    } finally {
      await closeMongo(connection);
    }
  });

  publishedEventRepositoryContract('mongo', async () => {
    const store = createMongoStore<StoredPublishedEvent>({
      connection,
      // A collection per test keeps the relay's view to that test's writes.
      collection: `events_${randomBytes(4).toString('hex')}`,
      indexes: publishedEventIndexes,
    });
    await store.ensureIndexes();
    let published: { topic: string; event: RawOutgoingEvent }[] = [];
    const relay = createOutboxRelay({
      sources: [store],
      publish: async (topic, events) => {
        published.push(...events.map((event) => ({ topic, event })));
      },
      logger,
    });
    return {
      sut: createPublishedEventRepository(
        store,
        createMongoStore<StoredPublicationKey>({
          connection,
          collection: `keys_${randomBytes(4).toString('hex')}`,
        }),
      ),
      relay: async () => {
        published = [];
        await relay.relayOnce();
        return published;
      },
    };
  });
});
