import type { ServiceStores, StoreIndex, Versioned, VersionedStore } from '@marquee/platform/store';
import type { PartnerRepositories, Repository } from '../app/ports.js';
import type { InventoryRecord } from '../domain/inventory.js';
import type { BookingRecord, EventRecord, VenueRecord } from '../domain/model.js';

/** Collection names of partner-reference's database. */
export const COLLECTIONS = {
  venues: 'venues',
  manifests: 'manifests',
  events: 'events',
  logos: 'logos',
  taxPlans: 'tax_plans',
  inventories: 'inventories',
  bookings: 'bookings',
  bookingReferences: 'booking_references',
} as const;

const venueIndexes: StoreIndex<VenueRecord>[] = [{ fields: { createdAt: 1 } }];
const eventIndexes: StoreIndex<EventRecord>[] = [
  { fields: { venueId: 1, lastModifiedAt: 1 } },
  { fields: { venueId: 1, startsAt: 1 } },
];
// `due`: on the single-writer Mongo mode the sweeper's query reads only the inventories with a
// hold due, instead of decoding every inventory each sweep.
const inventoryIndexes: StoreIndex<InventoryRecord>[] = [
  { fields: { nextExpiryAt: 1 }, due: true },
];
const bookingIndexes: StoreIndex<BookingRecord>[] = [
  { fields: { eventId: 1, createdAt: 1 } },
  { fields: { status: 1, expiresAt: 1 } },
];

/** The platform store already has the shape of the port; the port only names less of it. */
const asRepository = <T extends Versioned>(store: VersionedStore<T>): Repository<T> =>
  store as unknown as Repository<T>;

/**
 * partner-reference's repositories over the service's stores: memory (embedded default, unit tests)
 * or Mongo (`MONGO_URL`), the same code either way (`openServiceStores`).
 */
export function createPartnerRepositories(stores: ServiceStores): PartnerRepositories {
  return {
    venues: asRepository(stores.collection(COLLECTIONS.venues, venueIndexes)),
    manifests: asRepository(stores.collection(COLLECTIONS.manifests)),
    events: asRepository(stores.collection(COLLECTIONS.events, eventIndexes)),
    logos: asRepository(stores.collection(COLLECTIONS.logos)),
    taxPlans: asRepository(stores.collection(COLLECTIONS.taxPlans)),
    inventories: asRepository(stores.collection(COLLECTIONS.inventories, inventoryIndexes)),
    bookings: asRepository(stores.collection(COLLECTIONS.bookings, bookingIndexes)),
    bookingReferences: asRepository(stores.collection(COLLECTIONS.bookingReferences)),
  };
}
