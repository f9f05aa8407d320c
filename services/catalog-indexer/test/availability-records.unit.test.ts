import { createMemoryAvailabilityRecords } from '../src/adapters/availability-records.js';
import { availabilityRecordsContract } from './availability-records-contract.js';

availabilityRecordsContract('memory', async () => createMemoryAvailabilityRecords());
