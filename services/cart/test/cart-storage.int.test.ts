import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createCartStorage } from '../src/adapters/stores.js';
import { cartStorageContract } from './cart-storage-contract.js';

describeIntegration('cart storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'cart-test');

  cartStorageContract('mongo', async () => {
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores(
      { mongo: mongo.fresh('cart'), logger: mongo.logger },
      (stores) => createCartStorage(stores, { sandboxAreaCapacity: 100 }),
    );
    return storage;
  });
});
