import { createServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { purgeSuite } from './transaction-purge.js';

describeIntegration('purge of settled transactions on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'reconciler-purge-test');
  purgeSuite(() => createServiceStores(mongo.fresh('reconciler_purge'), { logger: mongo.logger }));
});
