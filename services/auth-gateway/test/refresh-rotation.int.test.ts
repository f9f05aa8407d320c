import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createAuthStores, type AuthStores } from '../src/adapters/auth-stores.js';
import { refreshRotationContract } from './refresh-rotation-contract.js';

describeIntegration('refresh-token rotation on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'auth-gateway-test');
  let stores: AuthStores | undefined;

  refreshRotationContract('mongo stores', async () => {
    stores ??= (
      await openServiceStores(
        { mongo: mongo.fresh('auth-rotation'), logger: mongo.logger },
        createAuthStores,
      )
    ).storage;
    return stores;
  });
});
