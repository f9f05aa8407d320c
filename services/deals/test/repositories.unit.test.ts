import { createDealsStorage } from '../src/adapters/repositories.js';
import { dealsStorageContract } from './repository-contract.js';

dealsStorageContract('memory', async () => createDealsStorage(undefined));
