import { afterAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createAuthStores, type AuthStores } from '../src/adapters/auth-stores.js';
import { refreshRotationContract } from './refresh-rotation-contract.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('refresh-token rotation on the Mongo-wire server', ({ mongoUrl }) => {
  let connection: Connection | undefined;
  let stores: AuthStores | undefined;
  afterAll(async () => {
    if (!connection) return;
    await connection.dropDatabase();
    await closeMongo(connection, logger);
  });

  refreshRotationContract('mongo stores', async () => {
    if (!stores) {
      connection = await connectMongo({
        url: mongoUrl,
        dbName: uniqueName('auth-rotation').replace(/-/g, '_'),
        logger,
        appName: 'auth-gateway-test',
      });
      stores = (await openServiceStores({ mongo: connection, logger }, createAuthStores)).storage;
    }
    return stores;
  });
});
