import type {
  ServiceCollection,
  ServiceStores,
  StoreIndex,
  Versioned,
} from '@marquee/platform/store';
import type { RateCounter } from '../app/ports.js';
import type { DeveloperApp } from '../domain/app.js';
import type { Fan } from '../domain/fan.js';
import type { AuthorizationCode, Grant, Interaction, IssuedToken } from '../domain/oauth.js';
import { createRateCounter } from './rate-counters.js';

/** A key-value record (the generated `user_id` key). */
export interface Setting {
  id: string;
  value: string;
}

export type Stored<T> = T & Versioned;

/** A collection: the store port plus the outbox side the relay reads. */
export type Collection<T extends Versioned> = ServiceCollection<T>;

/** The collections of auth-gateway: one VersionedStore each, memory or Mongo (`openServiceStores`). */
export interface AuthStores {
  apps: Collection<Stored<DeveloperApp>>;
  /** Carries `fan-deleted` in its outbox (recorded by the fan's deletion). */
  fans: Collection<Stored<Fan>>;
  interactions: Collection<Stored<Interaction>>;
  codes: Collection<Stored<AuthorizationCode>>;
  tokens: Collection<Stored<IssuedToken>>;
  /** Carries `app-authorized` in its outbox. */
  grants: Collection<Stored<Grant>>;
  settings: Collection<Stored<Setting>>;
}

const appIndexes: StoreIndex<Stored<DeveloperApp>>[] = [
  { fields: { clientId: 1 }, unique: true },
  { fields: { apiKeyFingerprint: 1 }, unique: true },
  // Not unique: apps created before tracking ids have none (128 random bits never collide).
  { fields: { trackingId: 1 } },
];
const fanIndexes: StoreIndex<Stored<Fan>>[] = [{ fields: { email: 1 }, unique: true }];

export function createAuthStores(stores: ServiceStores): AuthStores {
  return {
    apps: stores.collection<Stored<DeveloperApp>>('apps', appIndexes),
    fans: stores.collection<Stored<Fan>>('fans', fanIndexes),
    // `fanId`: a fan's deletion finds their records (`deleteFanRecords`).
    interactions: stores.collection<Stored<Interaction>>('interactions', [
      { fields: { expiresAt: 1 } },
      { fields: { fanId: 1 } },
    ]),
    codes: stores.collection<Stored<AuthorizationCode>>('codes', [
      { fields: { expiresAt: 1 } },
      { fields: { fanId: 1 } },
    ]),
    tokens: stores.collection<Stored<IssuedToken>>('tokens', [
      { fields: { codeId: 1 } },
      { fields: { grantId: 1 } },
      { fields: { expiresAt: 1 } },
      { fields: { fanId: 1 } },
    ]),
    grants: stores.collection<Stored<Grant>>('grants', [{ fields: { fanId: 1 } }]),
    settings: stores.collection<Stored<Setting>>('settings'),
  };
}

/** Everything auth-gateway keeps: its collections and its rate counters. */
export interface AuthStorage {
  stores: AuthStores;
  counter: RateCounter;
}

export const createAuthStorage = (stores: ServiceStores): AuthStorage => ({
  stores: createAuthStores(stores),
  counter: createRateCounter(stores),
});

/** Drops the store's version: the domain does not see it. */
export function plain<T extends object>(doc: Stored<T> | undefined): T | undefined {
  if (!doc) return undefined;
  const { version: _version, ...rest } = doc as Stored<T> & { version: number };
  return rest as unknown as T;
}
