import { createMemoryRateCounter } from '../src/adapters/rate-counters.js';
import { rateCounterContract } from './rate-counter-contract.js';

rateCounterContract('memory rate counter', async () => createMemoryRateCounter());
