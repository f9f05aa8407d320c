import { createMemoryAuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { repositoryContract } from './repositories-contract.js';

repositoryContract('memory repositories', async () => {
  const stores = createMemoryAuthStores();
  return {
    apps: createAppRepository(stores),
    fans: createFanRepository(stores),
    oauth: createOAuthRepository(stores),
    keys: () => createKeyStore(stores),
    pendingGrantEvents: async () =>
      (await stores.grants.pendingOutbox(100)).flatMap((p) => p.events),
  };
});
