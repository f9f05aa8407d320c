import type { ServiceStores, VersionedStore } from '@marquee/platform/store';
import type {
  FanSessionRepository,
  ListingRepository,
  OwnershipRepository,
  Stored,
  TicketOwnership,
} from '../app/ports.js';
import type { FanSession } from '../domain/fan-session.js';
import type { ResaleListing } from '../domain/listing.js';

type SessionDoc = Stored<FanSession>;
type ListingDoc = Stored<ResaleListing>;
type OwnershipDoc = Stored<TicketOwnership>;

export interface TopPicksStorage {
  sessions: FanSessionRepository;
  listings: ListingRepository;
  ownership: OwnershipRepository;
}

/**
 * Top picks' collections (memory or Mongo, chosen by `openServiceStores`): `fan_sessions` (one
 * document per session; shown prices as an array, since listing ids contain dots and cannot be keys),
 * `resale_listings` and `ticket_ownership` (who holds a resold ticket now). Every write is a
 * compare-and-set on the document's version.
 */
export function createTopPicksStorage(stores: ServiceStores): TopPicksStorage {
  const sessions = stores.collection<SessionDoc>('fan_sessions', [{ fields: { expiresAt: 1 } }]);
  const listings = stores.collection<ListingDoc>('resale_listings', [
    { fields: { eventId: 1, state: 1 } },
    { fields: { eventId: 1, createdAt: -1 } },
    // A deleted fan's listings, by the fan's orders (`listByOrders`).
    { fields: { orderId: 1 } },
  ]);
  // A deleted fan's tickets (`listByFan`), whose owner is blanked.
  const ownership = stores.collection<OwnershipDoc>('ticket_ownership', [
    { fields: { ownerFanId: 1 } },
  ]);
  return {
    sessions: sessionRepository(sessions),
    listings: listingRepository(listings),
    ownership: ownershipRepository(ownership),
  };
}

export function sessionRepository(store: VersionedStore<SessionDoc>): FanSessionRepository {
  return {
    get: (id) => store.get(id),
    insert: (session) => store.insert({ ...session }),
    update: (session, expectedVersion) => store.update(session.id, expectedVersion, { ...session }),
    async purgeExpiredBefore(before, limit) {
      const expired = await store.find(
        { expiresAt: { $lt: before } },
        { sort: { expiresAt: 1 }, limit },
      );
      let purged = 0;
      for (const doc of expired) {
        // At its version: a session renewed meanwhile is kept.
        const deleted = await store.delete(doc.id, doc.version).catch(() => false);
        if (deleted) purged++;
      }
      return purged;
    },
  };
}

const ACTIVE: ResaleListing['state'][] = ['LISTED', 'HELD'];

export function listingRepository(store: VersionedStore<ListingDoc>): ListingRepository {
  return {
    get: (id) => store.get(id),
    insert: (listing) => store.insert({ ...listing }),
    update: (listing, expectedVersion) => store.update(listing.id, expectedVersion, { ...listing }),
    findActive: (eventId) =>
      store.find({ eventId, state: { $in: ACTIVE } }, { sort: { createdAt: 1 } }),
    async list({ eventId, activeOnly, offset, limit }) {
      const filter = { eventId, ...(activeOnly ? { state: { $in: ACTIVE } } : {}) };
      const [docs, total] = await Promise.all([
        store.find(filter, { sort: { createdAt: -1 }, skip: offset, limit }),
        store.count(filter),
      ]);
      return {
        listings: docs.map(({ version: _v, ...listing }) => listing),
        total,
      };
    },
    listByOrders: async (orderIds) =>
      orderIds.length === 0 ? [] : store.find({ orderId: { $in: [...orderIds] } }),
  };
}

export function ownershipRepository(store: VersionedStore<OwnershipDoc>): OwnershipRepository {
  return {
    get: (id) => store.get(id),
    insert: (record) => store.insert({ ...record }),
    update: (record, expectedVersion) => store.update(record.id, expectedVersion, { ...record }),
    listByFan: (fanId, limit) => store.find({ ownerFanId: fanId }, { limit }),
  };
}
