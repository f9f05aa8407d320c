import { createLogger } from '@marquee/platform/logger';
import { openServiceStores } from '@marquee/platform/store';
import { createEntryStorage } from '../src/adapters/stores.js';
import { storageContract } from './storage-contract.js';

const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });

storageContract(
  'memory',
  async () => (await openServiceStores({ mongo: undefined, logger }, createEntryStorage)).storage,
);
