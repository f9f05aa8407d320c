import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { authRepositories, repositoriesContract } from './repositories-contract.js';

describeIntegration('auth-gateway repositories on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'auth-gateway-test');

  repositoriesContract('mongo repositories', async () => {
    // As the service opens them: Mongo collections with their indexes built.
    const { storage } = await openServiceStores(
      { mongo: mongo.fresh('auth'), logger: mongo.logger },
      createAuthStores,
    );
    return authRepositories(storage);
  });
});
