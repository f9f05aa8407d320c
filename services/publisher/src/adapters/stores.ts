import { idempotencyIndexes, type IdempotencyRecord } from '@marquee/platform/idempotency';
import type { ServiceCollection, ServiceStores } from '@marquee/platform/store';
import {
  PUBLICATION_KEYS_COLLECTION,
  PUBLISHED_EVENTS_COLLECTION,
  publishedEventIndexes,
  type StoredPublicationKey,
  type StoredPublishedEvent,
} from './published-event-repository.js';

/** Collection of the `Idempotency-Key` records of publications. */
export const IDEMPOTENCY_COLLECTION = 'idempotency';

export interface PublisherStorage {
  /** The published events; carries `event-changed` in its outbox. */
  events: ServiceCollection<StoredPublishedEvent>;
  /** Which event each publication key created (a retried publication's lookup). */
  publicationKeys: ServiceCollection<StoredPublicationKey>;
  idempotency: ServiceCollection<IdempotencyRecord>;
}

/** The collections of publisher (memory or Mongo, chosen by `openServiceStores`). */
export function createPublisherStorage(stores: ServiceStores): PublisherStorage {
  return {
    events: stores.collection(PUBLISHED_EVENTS_COLLECTION, publishedEventIndexes),
    publicationKeys: stores.collection(PUBLICATION_KEYS_COLLECTION),
    idempotency: stores.collection(IDEMPOTENCY_COLLECTION, idempotencyIndexes),
  };
}
