import { afterAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo, ensureIndexes } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoAuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { repositoryContract } from './repositories-contract.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('auth-gateway repositories on the Mongo-wire server', ({ mongoUrl }) => {
  const connections: Connection[] = [];
  afterAll(async () => {
    for (const connection of connections) {
      await connection.dropDatabase();
      await closeMongo(connection, logger);
    }
  });

  repositoryContract('mongo repositories', async () => {
    const connection = await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('auth').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    connections.push(connection);
    const stores = createMongoAuthStores(connection);
    await ensureIndexes(connection, stores.all as never, logger);
    return {
      apps: createAppRepository(stores),
      fans: createFanRepository(stores),
      oauth: createOAuthRepository(stores),
      keys: () => createKeyStore(stores),
      pendingGrantEvents: async () =>
        (await stores.grants.pendingOutbox(100)).flatMap((p) => p.events),
    };
  });
});
