import { afterAll } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { repositoriesContract } from './repositories-contract.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('auth-gateway repositories on the Mongo-wire server', ({ mongoUrl }) => {
  const connections: Connection[] = [];
  afterAll(async () => {
    for (const connection of connections) {
      await connection.dropDatabase();
      await closeMongo(connection, logger);
    }
  });

  repositoriesContract('mongo repositories', async () => {
    const connection = await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('auth').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    connections.push(connection);
    // As the service opens them: Mongo collections with their indexes built.
    const { storage: stores } = await openServiceStores(
      { mongo: connection, logger },
      createAuthStores,
    );
    return {
      apps: createAppRepository(stores),
      fans: createFanRepository(stores),
      oauth: createOAuthRepository(stores),
      keys: () => createKeyStore(stores),
      pendingGrantEvents: async () =>
        (await stores.grants.pendingOutbox(100)).flatMap((p) => p.events),
      pendingFanEvents: async () => (await stores.fans.pendingOutbox(100)).flatMap((p) => p.events),
    };
  });
});
