import { openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { createEntryStorage } from '../src/adapters/stores.js';
import { ticketSecretResealContract } from './ticket-secret-reseal-contract.js';

describeIntegration('secure-entry re-seal on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'secure-entry-test');

  ticketSecretResealContract('mongo', async () => {
    const stores = { mongo: mongo.fresh('secure_entry_reseal'), logger: mongo.logger };
    return (await openServiceStores(stores, createEntryStorage)).storage;
  });
});
