import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createTopPicksStorage } from '../src/top-picks/index.js';
import { topPicksStorageContract } from './top-picks-stores-contract.js';

describeIntegration('top picks storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'cart-test');

  topPicksStorageContract('mongo', async () => {
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores(
      { mongo: mongo.fresh('top_picks'), logger: mongo.logger },
      createTopPicksStorage,
    );
    return storage;
  });
});
