import { openServiceStores } from '@marquee/platform/store';
import { createLogger } from '@marquee/platform/logger';
import { createCartStorage } from '../src/adapters/stores.js';
import { cartStorageContract } from './cart-storage-contract.js';

const logger = createLogger({ service: 'cart-test', level: 'silent' });

// As the service opens it without a database: memory collections.
cartStorageContract('memory', async () => {
  const { storage } = await openServiceStores({ mongo: undefined, logger }, (stores) =>
    createCartStorage(stores, { sandboxAreaCapacity: 100 }),
  );
  return storage;
});
