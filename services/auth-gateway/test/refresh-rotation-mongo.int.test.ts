import { afterAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo, ensureIndexes } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoAuthStores, type AuthStores } from '../src/adapters/auth-stores.js';
import { refreshRotationSuite } from './refresh-rotation-suite.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('refresh-token rotation on the Mongo-wire server', ({ mongoUrl }) => {
  let connection: Connection | undefined;
  let stores: AuthStores | undefined;
  afterAll(async () => {
    if (!connection) return;
    await connection.dropDatabase();
    await closeMongo(connection, logger);
  });

  refreshRotationSuite('mongo stores', async () => {
    if (!stores) {
      connection = await connectMongo({
        url: mongoUrl,
        dbName: uniqueName('auth-rotation').replace(/-/g, '_'),
        logger,
        appName: 'auth-gateway-test',
      });
      stores = createMongoAuthStores(connection);
      await ensureIndexes(connection, stores.all as never, logger);
    }
    return stores;
  });
});
