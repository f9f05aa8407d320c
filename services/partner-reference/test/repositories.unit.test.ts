import { createServiceStores } from '@marquee/platform/store';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import { repositoryContract } from './repository-contract.js';

repositoryContract('memory', async () => createPartnerRepositories(createServiceStores(undefined)));
