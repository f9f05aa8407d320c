import { createServiceStores } from '@marquee/platform/store';
import { createTopPicksStorage } from '../src/top-picks/index.js';
import { topPicksStorageContract } from './top-picks-stores-contract.js';

topPicksStorageContract('memory', async () =>
  createTopPicksStorage(createServiceStores(undefined)),
);
