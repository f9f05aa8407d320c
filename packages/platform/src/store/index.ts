export type {
  CollectionOptions,
  Draft,
  FieldOperators,
  FindOptions,
  Mutation,
  OutboxEvent,
  SortDirection,
  StoreFilter,
  StoreIndex,
  Versioned,
  VersionedStore,
  WriteOptions,
} from './types.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export {
  createMongoStore,
  type MongoStore,
  type MongoStoreOptions,
  type WriteConditions,
} from './mongo-store.js';
export { deleteAtVersion, isVersionConflict } from './errors.js';
export {
  createServiceStores,
  openServiceStores,
  type OpenedStores,
  type ServiceCollection,
  type ServiceStores,
} from './service-stores.js';
