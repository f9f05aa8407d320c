import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createWaitingRoomStorage } from '../../src/waiting-room/index.js';
import { waitingRoomStorageContract } from './storage-contract.js';

describeIntegration('waiting room storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'cart-test');

  waitingRoomStorageContract('mongo', async () => {
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores(
      { mongo: mongo.fresh('waiting_room'), logger: mongo.logger },
      createWaitingRoomStorage,
    );
    return storage;
  });
});
