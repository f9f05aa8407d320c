import { createMemoryStore } from '../../src/store/memory-store.js';
import { storeContract, type Show } from './store-contract.js';

storeContract('memory', async ({ indexes, pack }) =>
  createMemoryStore<Show>({
    name: 'shows',
    ...(indexes ? { indexes } : {}),
    ...(pack ? { pack } : {}),
  }),
);
