import { createServiceStores, openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import { repositoriesContract } from './repositories-contract.js';
import { storedDocumentsContract } from './stored-documents-contract.js';

describeIntegration('partner-reference storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'partner-reference-test');

  repositoriesContract('mongo', async () => {
    // As the service opens them: Mongo collections with their indexes built.
    const stores = { mongo: mongo.fresh('partner_ref'), logger: mongo.logger };
    return (await openServiceStores(stores, createPartnerRepositories)).storage;
  });

  storedDocumentsContract('mongo', async () =>
    createServiceStores(mongo.fresh('partner_ref_docs'), { logger: mongo.logger }),
  );
});
