import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe } from 'vitest';
import { contentionScenario } from './contention-scenario.js';
import { ManualClock } from './fixtures.js';
import { httpHarness } from './http.js';

describeIntegration('contention on the Mongo-wire store', ({ mongoUrl }) => {
  const logger = createLogger({ service: 'partner-reference-test', level: 'silent' });
  let connection: Connection;
  const databases: Connection[] = [];
  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: 'admin',
      logger,
      appName: 'partner-reference-test',
    });
  });
  afterAll(async () => {
    if (!connection) return;
    for (const db of databases) await db.dropDatabase();
    await closeMongo(connection, logger);
  });

  describe('1,000 concurrent bookings over real FerretDB', () => {
    contentionScenario(
      async (clock) => {
        const db = connection.useDb(uniqueName('partner_ref').replace(/-/g, '_'), {
          useCache: false,
        });
        databases.push(db);
        return {
          h: await httpHarness({ mongo: db, clock, env: { BOOKING_TIMEOUT_MS: '60000' } }),
          clock,
        };
      },
      () => new ManualClock(),
    );
  });
});
