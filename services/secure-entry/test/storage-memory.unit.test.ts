import { createServiceStores } from '@marquee/platform/store';
import { entryStorageContract } from './storage.contract.js';

entryStorageContract('memory', async () => createServiceStores(undefined));
