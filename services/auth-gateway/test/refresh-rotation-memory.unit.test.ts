import { createMemoryAuthStores } from '../src/adapters/auth-stores.js';
import { refreshRotationSuite } from './refresh-rotation-suite.js';

refreshRotationSuite('memory stores', async () => createMemoryAuthStores());
