import { createMemoryStore } from '../../src/store/memory-store.js';
import { uniqueName } from '../../src/testing/index.js';
import type { Show } from '../store/store-contract.js';
import { relayContract } from './relay-contract.js';

relayContract('memory store', async () => createMemoryStore<Show>({ name: uniqueName('shows') }));
