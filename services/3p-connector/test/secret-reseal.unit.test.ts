import { createLogger } from '@marquee/platform/logger';
import { openServiceStores } from '@marquee/platform/store';
import { createConnectorStorage } from '../src/adapters/stores.js';
import { secretResealContract } from './secret-reseal-contract.js';

const logger = createLogger({ service: '3p-connector-test', level: 'silent' });

secretResealContract(
  'memory',
  async (secrets) =>
    (
      await openServiceStores({ mongo: undefined, logger }, (stores) =>
        createConnectorStorage(stores, secrets),
      )
    ).storage,
);
