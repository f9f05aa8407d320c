import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createDealsStorage } from '../src/adapters/repositories.js';
import { repositoriesContract } from './repositories-contract.js';

describeIntegration('deals storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'deals-test');

  // A fresh database per test would be slow on FerretDB; fresh collections per storage instead.
  repositoriesContract('mongo', async () => {
    // As the service opens it: Mongo collections with their indexes built.
    const { storage, outboxSources } = await openServiceStores(
      { mongo: mongo.fresh('deals'), logger: mongo.logger },
      createDealsStorage,
    );
    return { ...storage, outboxSources };
  });
});
