import type { ServiceCollection, ServiceStores } from '@marquee/platform/store';
import { passwordFailureIndexes, type PasswordFailureDoc } from './password-throttle.js';

/** The collections of the commerce slice. */
export interface CommerceStorage {
  /** Counters of wrong presale passwords (`PasswordThrottle`). */
  passwordFailures: ServiceCollection<PasswordFailureDoc>;
}

/** Commerce's collections (memory or Mongo, chosen by `openServiceStores`). */
export function createCommerceStorage(stores: ServiceStores): CommerceStorage {
  return {
    passwordFailures: stores.collection<PasswordFailureDoc>(
      'presale_password_failures',
      passwordFailureIndexes,
    ),
  };
}
