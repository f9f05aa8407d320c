import type { Connection } from 'mongoose';
import {
  createMemoryStore,
  createMongoStore,
  type StoreIndex,
  type Versioned,
  type VersionedStore,
} from '@marquee/platform/store';
import type { OutboxSource } from '@marquee/platform/outbox';
import type { DeveloperApp } from '../domain/app.js';
import type { Fan } from '../domain/fan.js';
import type { AuthorizationCode, Grant, Interaction, IssuedToken } from '../domain/oauth.js';

/** A key-value record (the generated `user_id` key). */
export interface Setting {
  id: string;
  value: string;
}

export type Stored<T> = T & Versioned;

/** A collection: the store port plus the outbox side the relay reads. */
export type Collection<T extends Versioned> = VersionedStore<T> & OutboxSource;

/** The collections of auth-gateway: one VersionedStore each, memory or Mongo. */
export interface AuthStores {
  apps: Collection<Stored<DeveloperApp>>;
  fans: Collection<Stored<Fan>>;
  interactions: Collection<Stored<Interaction>>;
  codes: Collection<Stored<AuthorizationCode>>;
  tokens: Collection<Stored<IssuedToken>>;
  /** Carries `app-authorized` in its outbox. */
  grants: Collection<Stored<Grant>>;
  settings: Collection<Stored<Setting>>;
  /** Every store, for the outbox relay and ensureIndexes. */
  all: ReadonlyArray<VersionedStore<never> & OutboxSource & { ensureIndexes?(): Promise<void> }>;
}

const appIndexes: StoreIndex<Stored<DeveloperApp>>[] = [
  { fields: { clientId: 1 }, unique: true },
  { fields: { apiKeyFingerprint: 1 }, unique: true },
];
const fanIndexes: StoreIndex<Stored<Fan>>[] = [{ fields: { email: 1 }, unique: true }];

type Factory = <T extends Versioned>(
  collection: string,
  indexes: readonly StoreIndex<T>[],
) => VersionedStore<T> & OutboxSource;

function build(factory: Factory): AuthStores {
  const apps = factory<Stored<DeveloperApp>>('apps', appIndexes);
  const fans = factory<Stored<Fan>>('fans', fanIndexes);
  const interactions = factory<Stored<Interaction>>('interactions', [{ fields: { expiresAt: 1 } }]);
  const codes = factory<Stored<AuthorizationCode>>('codes', [{ fields: { expiresAt: 1 } }]);
  const tokens = factory<Stored<IssuedToken>>('tokens', [
    { fields: { codeId: 1 } },
    { fields: { grantId: 1 } },
    { fields: { expiresAt: 1 } },
  ]);
  const grants = factory<Stored<Grant>>('grants', []);
  const settings = factory<Stored<Setting>>('settings', []);
  const all = [apps, fans, interactions, codes, tokens, grants, settings];
  return {
    apps,
    fans,
    interactions,
    codes,
    tokens,
    grants,
    settings,
    all: all as unknown as AuthStores['all'],
  };
}

export const createMemoryAuthStores = (): AuthStores =>
  build((name, indexes) => createMemoryStore({ name, indexes }));

export const createMongoAuthStores = (connection: Connection): AuthStores =>
  build((collection, indexes) => createMongoStore({ connection, collection, indexes }));
