import { createMemoryStore } from '../../src/store/memory-store.js';
import { storeContract, type Show } from './store-contract.js';

storeContract('memory', async ({ indexes }) =>
  createMemoryStore<Show>({ name: 'shows', ...(indexes ? { indexes } : {}) }),
);
