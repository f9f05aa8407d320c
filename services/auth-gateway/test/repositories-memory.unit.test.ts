import { createMemoryAuthStores } from '../src/adapters/auth-stores.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { repositoryContract } from './repositories-contract.js';

repositoryContract('memory repositories', async () => {
  const stores = createMemoryAuthStores();
  return { apps: createAppRepository(stores), fans: createFanRepository(stores) };
});
