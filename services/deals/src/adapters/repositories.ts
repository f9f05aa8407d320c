import type { Connection } from 'mongoose';
import {
  createMemoryStore,
  createMongoStore,
  type MemoryStore,
  type MongoStore,
} from '@marquee/platform/store';
import type { OutboxSource } from '@marquee/platform/outbox';
import type { DealEventRepository, DealRepository } from '../app/ports.js';
import type { Deal } from '../domain/deal.js';
import {
  storeDealEventRepository,
  storeDealRepository,
  type DealEventDocument,
} from './store-repositories.js';

export interface DealsStorage {
  deals: DealRepository;
  events: DealEventRepository;
  /** Where the outbox relay reads `deal-changed` events. */
  outboxSources: OutboxSource[];
  /** Mongo only: creates the indexes before serving. */
  mongoCollections: Array<MongoStore<Deal>>;
}

/**
 * Deals in memory (embedded default, unit tests) or in the Mongo collection `deals`, shared by every
 * replica. The event projection is always in memory: each replica builds its own from the whole
 * `event-changed` topic at every start (README "Replicas"), so replicas never write it to a shared
 * collection.
 */
export function createDealsStorage(mongo: Connection | undefined): DealsStorage {
  const events = createMemoryStore<DealEventDocument>({ name: 'deal_events' });
  if (!mongo) {
    const deals: MemoryStore<Deal> = createMemoryStore<Deal>({ name: 'deals' });
    return {
      deals: storeDealRepository(deals),
      events: storeDealEventRepository(events),
      outboxSources: [deals],
      mongoCollections: [],
    };
  }
  const deals = createMongoStore<Deal>({
    connection: mongo,
    collection: 'deals',
    indexes: [{ fields: { eventId: 1 } }],
  });
  return {
    deals: storeDealRepository(deals),
    events: storeDealEventRepository(events),
    outboxSources: [deals],
    mongoCollections: [deals],
  };
}
