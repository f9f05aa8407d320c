import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { createCartStorage } from '../src/adapters/stores.js';
import { EventProjectionStore } from '../src/adapters/event-projection-store.js';
import { EVENT_ID, partnerEvent } from './support/events.js';

const projectionStore = () => {
  const storage = createCartStorage(createServiceStores(undefined), { sandboxAreaCapacity: 10 });
  return { storage, projection: new EventProjectionStore(storage.events) };
};

describe('event projection store', () => {
  it('stores partner events and not published ones, nor tombstones of unknown events', async () => {
    const { storage, projection } = projectionStore();
    const published = partnerEvent({
      id: 'PUBLISHED000001',
      origin: { kind: { $case: 'published', value: { appId: 'app' } } },
    });
    expect(await projection.applyEvent(published)).toBe(false);
    expect(await storage.events.get('PUBLISHED000001')).toBeUndefined();
    expect(await projection.deleteEvent('UNKNOWN00000001')).toBe(false);
    expect(await storage.events.get('UNKNOWN00000001')).toBeUndefined();

    expect(await projection.applyEvent(partnerEvent())).toBe(true);
    expect((await projection.get(EVENT_ID))?.partnerEventId).toBe('E1');
    expect(await projection.deleteEvent(EVENT_ID)).toBe(true);
    expect(await projection.get(EVENT_ID)).toBeUndefined();
    // The tombstone's version stays: an older record redelivered does not bring the event back.
    expect(await projection.applyEvent(partnerEvent())).toBe(false);
  });
});
