import { createServiceStores, type ServiceStores } from '@marquee/platform/store';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import { repositoriesContract } from './repositories-contract.js';
import { storedDocumentsContract } from './stored-documents-contract.js';

repositoriesContract('memory', async () =>
  createPartnerRepositories(createServiceStores(undefined)),
);

/** Memory stores whose collections of one name are one collection, as on Mongo. */
function sharedMemoryStores(): ServiceStores {
  const stores = createServiceStores(undefined);
  const made = new Map<string, unknown>();
  const collection = ((name: string, ...rest: []) => {
    if (!made.has(name)) made.set(name, stores.collection(name, ...rest));
    return made.get(name);
  }) as ServiceStores['collection'];
  return Object.assign(Object.create(stores) as ServiceStores, { collection });
}

storedDocumentsContract('memory', async () => sharedMemoryStores());
