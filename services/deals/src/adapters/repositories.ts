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
  mongoCollections: Array<MongoStore<Deal> | MongoStore<DealEventDocument>>;
}

/** Memory stores (embedded default, unit tests) or Mongo collections `deals` and `deal_events`. */
export function createDealsStorage(mongo: Connection | undefined): DealsStorage {
  if (!mongo) {
    const deals: MemoryStore<Deal> = createMemoryStore<Deal>({ name: 'deals' });
    const events = createMemoryStore<DealEventDocument>({ name: 'deal_events' });
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
  const events = createMongoStore<DealEventDocument>({
    connection: mongo,
    collection: 'deal_events',
    indexes: [{ fields: { deleted: 1 } }],
  });
  return {
    deals: storeDealRepository(deals),
    events: storeDealEventRepository(events),
    outboxSources: [deals],
    mongoCollections: [deals, events],
  };
}
