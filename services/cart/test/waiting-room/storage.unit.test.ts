import { createServiceStores } from '@marquee/platform/store';
import { createWaitingRoomStorage } from '../../src/waiting-room/index.js';
import { waitingRoomStorageContract } from './storage-contract.js';

waitingRoomStorageContract('memory', async () =>
  createWaitingRoomStorage(createServiceStores(undefined)),
);
