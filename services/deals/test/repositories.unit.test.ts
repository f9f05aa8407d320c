import { memoryStorage } from './builders.js';
import { repositoriesContract } from './repositories-contract.js';

repositoriesContract('memory', async () => memoryStorage());
