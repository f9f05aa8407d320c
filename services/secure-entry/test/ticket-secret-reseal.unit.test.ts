import { createLogger } from '@marquee/platform/logger';
import { openServiceStores } from '@marquee/platform/store';
import { createEntryStorage } from '../src/adapters/stores.js';
import { ticketSecretResealContract } from './ticket-secret-reseal-contract.js';

const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });

ticketSecretResealContract(
  'memory',
  async () => (await openServiceStores({ mongo: undefined, logger }, createEntryStorage)).storage,
);
