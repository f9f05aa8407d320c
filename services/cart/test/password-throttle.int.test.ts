import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCommerceStorage } from '../src/commerce/adapters/stores.js';
import {
  PASSWORD_ATTEMPTS_EXCEEDED,
  PasswordThrottle,
} from '../src/commerce/adapters/password-throttle.js';

/**
 * The presale password throttle on the Mongo-wire server: two throttles over one collection stand
 * for two cart replicas; failures counted on either (concurrently) refuse on both.
 */
describeIntegration('presale password throttle on the Mongo-wire server', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'cart-test', level: 'silent' });
  let connection: Connection;
  let db: Connection;
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: 'admin',
      logger,
      appName: 'cart-test',
    });
    db = connection.useDb(uniqueName('throttle').replace(/-/g, '_'), { useCache: false });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    if (connection) await closeMongo(connection, logger);
  });

  it('shares the counts between replicas, counts concurrent failures, and purges ended windows', async () => {
    let now = new Date('2030-06-01T12:00:00Z');
    const settings = { windowMs: 600_000, perApp: 8, perFan: 100 };
    const replica = async () => {
      const { storage } = await openServiceStores({ mongo: db, logger }, createCommerceStorage);
      return new PasswordThrottle(storage.passwordFailures, settings, () => now);
    };
    const [a, b] = [await replica(), await replica()];
    const app = { appId: 'app-1', fanId: '' };
    await Promise.all([
      ...Array.from({ length: 4 }, () => a.failed(app, 'E1', 1)),
      ...Array.from({ length: 3 }, () => b.failed(app, 'E1', 1)),
    ]);
    await b.check(app, 'E1');
    await a.failed(app, 'E1', 1);
    for (const replicaOf of [a, b])
      await expect(replicaOf.check(app, 'E1')).rejects.toMatchObject({
        kind: 'resource_exhausted',
        details: { reason: PASSWORD_ATTEMPTS_EXCEEDED, retryAfterMs: 600_000 },
      });
    // Another event of the app is not held back.
    await a.check(app, 'E2');
    now = new Date(now.getTime() + 600_000);
    await b.check(app, 'E1');
    expect(await a.purgeExpired()).toBe(1);
  });
});
