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

export type Stored<T> = T & Versioned;

/** The collections of auth-gateway: one VersionedStore each, memory or Mongo. */
export interface AuthStores {
  apps: VersionedStore<Stored<DeveloperApp>>;
  fans: VersionedStore<Stored<Fan>>;
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
  return { apps, fans, all: [apps, fans] as unknown as AuthStores['all'] };
}

export const createMemoryAuthStores = (): AuthStores =>
  build((name, indexes) => createMemoryStore({ name, indexes }));

export const createMongoAuthStores = (connection: Connection): AuthStores =>
  build((collection, indexes) => createMongoStore({ connection, collection, indexes }));
