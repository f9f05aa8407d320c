import { createServiceStores } from '@marquee/platform/store';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { refreshRotationContract } from './refresh-rotation-contract.js';

refreshRotationContract('memory stores', async () =>
  createAuthStores(createServiceStores(undefined)),
);
