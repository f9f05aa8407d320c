import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createEntryStorage } from '../src/adapters/stores.js';
import { storageContract } from './storage-contract.js';

describeIntegration('secure-entry storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'secure-entry-test');

  // As the service opens it, a fresh database per storage: Mongo collections with their indexes.
  storageContract('mongo', async () => {
    const stores = { mongo: mongo.fresh('secure_entry_contract'), logger: mongo.logger };
    return (await openServiceStores(stores, createEntryStorage)).storage;
  });
});
