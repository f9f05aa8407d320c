import { createServiceStores } from '@marquee/platform/store';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { repositoriesContract } from './repositories-contract.js';

repositoriesContract('memory repositories', async () => {
  const stores = createAuthStores(createServiceStores(undefined));
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
