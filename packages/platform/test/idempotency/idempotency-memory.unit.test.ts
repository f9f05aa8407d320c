import { idempotencyIndexes, type IdempotencyRecord } from '../../src/idempotency/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { idempotencyContract } from './idempotency-contract.js';

idempotencyContract('memory', async () =>
  createMemoryStore<IdempotencyRecord>({ name: 'idempotency', indexes: idempotencyIndexes }),
);
