import { createServiceStores } from '@marquee/platform/store';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { authRepositories, repositoriesContract } from './repositories-contract.js';

repositoriesContract('memory repositories', async () =>
  authRepositories(createAuthStores(createServiceStores(undefined))),
);
