import { createServiceStores } from '@marquee/platform/store';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import { repositoriesContract } from './repositories-contract.js';

repositoriesContract('memory', async () =>
  createPartnerRepositories(createServiceStores(undefined)),
);
