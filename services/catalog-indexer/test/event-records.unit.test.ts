import { createMemoryEventRecords } from '../src/adapters/memory-event-records.js';
import { eventRecordsContract } from './event-records-contract.js';

eventRecordsContract('memory', async () => createMemoryEventRecords());
