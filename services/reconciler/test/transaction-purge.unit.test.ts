import { createServiceStores } from '@marquee/platform/store';
import { describe } from 'vitest';
import { keepsEverythingWithoutRetention, purgeSuite } from './transaction-purge.js';

describe('purge of settled transactions (memory stores)', () => {
  purgeSuite(() => createServiceStores(undefined));
  keepsEverythingWithoutRetention();
});
