import { afterAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoRateCounter } from '../src/adapters/rate-counters.js';
import { rateCounterContract } from './rate-counter-contract.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('auth-gateway rate counter on the Mongo-wire server', ({ mongoUrl }) => {
  let connection: Connection | undefined;
  afterAll(async () => {
    if (!connection) return;
    await connection.dropDatabase();
    await closeMongo(connection, logger);
  });
  rateCounterContract('mongo rate counter', async () => {
    connection ??= await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('authrate').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    return createMongoRateCounter(connection);
  });
});
