import type { OutboxSource } from '@marquee/platform/outbox';
import { createServiceStores } from '@marquee/platform/store';
import { createDealsStorage, type DealsStorage } from '../src/adapters/repositories.js';
import type { DealEvent } from '../src/domain/deal-event.js';
import { publicIdOf } from '../src/domain/public-id.js';
import type { DealSearchCriteria } from '../src/domain/search.js';

let counter = 0;

/** The deals storage the service opens, in memory, with its outbox sources for assertions. */
export type TestStorage = DealsStorage & { outboxSources: readonly OutboxSource[] };

export function memoryStorage(): TestStorage {
  const stores = createServiceStores(undefined);
  return { ...createDealsStorage(stores), outboxSources: stores.outboxSources };
}

/** A shown, production, US event in New York with a venue and coordinates; override what a test needs. */
export function anEvent(overrides: Partial<DealEvent> = {}): DealEvent {
  counter++;
  const id = overrides.id ?? `E${String(counter).padStart(6, '0')}`;
  return {
    id,
    eventVersion: 1,
    deleted: false,
    active: true,
    test: false,
    name: `Event ${id}`,
    detailsUrl: `https://example.com/events/${id}`,
    startAt: new Date('2030-06-01T20:00:00Z'),
    onsaleAt: new Date('2030-01-01T15:00:00Z'),
    price: { minMinor: 2550, maxMinor: 9900, currency: 'USD' },
    attractions: [
      { id: 'K8vZ9171', name: 'The Band', number: publicIdOf('attraction', 'K8vZ9171') },
    ],
    venue: {
      id: 'KovZpZA7AAEA',
      name: 'Madison Square Garden',
      number: publicIdOf('venue', 'KovZpZA7AAEA'),
      latitude: 40.7505,
      longitude: -73.9934,
    },
    cities: ['new york'],
    states: ['ny', 'new york'],
    country: 'US',
    majorGenres: [{ id: 'KnvZfZ7vAeA', name: 'Rock', number: publicIdOf('genre', 'KnvZfZ7vAeA') }],
    minorGenres: [
      {
        id: 'KZazBEonSMnZfZ7v6F1',
        name: 'Pop',
        number: publicIdOf('genre', 'KZazBEonSMnZfZ7v6F1'),
      },
    ],
    marketIds: [35],
    ...overrides,
  };
}

/** The criteria of a search with every API default of the deals API. */
export function criteria(overrides: Partial<DealSearchCriteria> = {}): DealSearchCriteria {
  return {
    exclusivities: ['EXCLUSIVE', 'NONEXCLUSIVE'],
    marketIds: [],
    country: 'US',
    startRow: 0,
    rows: 25,
    qa: false,
    ...overrides,
  };
}

export function aNewDeal(
  eventId: string,
  overrides: Partial<{
    name: string;
    description: string;
    offerCode: string;
    exclusivity: string;
  }> = {},
) {
  return {
    eventId,
    name: 'Two for one',
    description: 'Buy one ticket, get one free',
    offerCode: 'TWOFORONE',
    exclusivity: 'EXCLUSIVE',
    ...overrides,
  };
}

/** A point `km` kilometres due north of `from` (1 degree of latitude ≈ 111.195 km on the mean sphere). */
export function northOf(from: { latitude: number; longitude: number }, km: number) {
  return { latitude: from.latitude + km / 111.19508, longitude: from.longitude };
}
