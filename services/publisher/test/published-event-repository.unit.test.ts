import { createLogger } from '@marquee/platform/logger';
import { createOutboxRelay, type RawOutgoingEvent } from '@marquee/platform/outbox';
import { createMemoryStore } from '@marquee/platform/store';
import {
  createPublishedEventRepository,
  publishedEventIndexes,
  type StoredPublicationKey,
  type StoredPublishedEvent,
} from '../src/adapters/published-event-repository.js';
import { publishedEventRepositoryContract } from './published-event-repository-contract.js';

publishedEventRepositoryContract('memory', async () => {
  const store = createMemoryStore<StoredPublishedEvent>({ indexes: publishedEventIndexes });
  let published: { topic: string; event: RawOutgoingEvent }[] = [];
  const relay = createOutboxRelay({
    sources: [store],
    publish: async (topic, events) => {
      published.push(...events.map((event) => ({ topic, event })));
    },
    logger: createLogger({ service: 'publisher-test', level: 'silent' }),
  });
  return {
    sut: createPublishedEventRepository(
      store,
      createMemoryStore<StoredPublicationKey>({ name: 'publication_keys' }),
    ),
    relay: async () => {
      published = [];
      await relay.relayOnce();
      return published;
    },
  };
});
