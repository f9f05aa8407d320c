import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createConnectorStorage } from '../src/adapters/stores.js';
import { secretResealContract } from './secret-reseal-contract.js';

describeIntegration('3p-connector re-seal on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, '3p-connector-test');

  // As the service opens it, a fresh database per storage: Mongo collections with their indexes.
  secretResealContract('mongo', async (secrets) => {
    const stores = { mongo: mongo.fresh('connector_reseal'), logger: mongo.logger };
    return (await openServiceStores(stores, (s) => createConnectorStorage(s, secrets))).storage;
  });
});
