import { createMemoryStore, type ServiceStores } from '@marquee/platform/store';
import type { DealEventRepository, DealRepository } from '../app/ports.js';
import type { Deal } from '../domain/deal.js';
import {
  storeDealEventRepository,
  storeDealRepository,
  type DealEventDocument,
} from './store-repositories.js';

export interface DealsStorage {
  /** Carries `deal-changed` in its outbox. */
  deals: DealRepository;
  events: DealEventRepository;
}

/**
 * Deals in the collection `deals` (memory or Mongo, chosen by `openServiceStores`), shared by every
 * replica. The event projection is always in memory: each replica builds its own from the whole
 * `event-changed` topic at every start (README "Replicas"), so replicas never write it to a shared
 * collection, and it has no outbox.
 */
export function createDealsStorage(stores: ServiceStores): DealsStorage {
  return {
    deals: storeDealRepository(stores.collection<Deal>('deals', [{ fields: { eventId: 1 } }])),
    events: storeDealEventRepository(createMemoryStore<DealEventDocument>({ name: 'deal_events' })),
  };
}
