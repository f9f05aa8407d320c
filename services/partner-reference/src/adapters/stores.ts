import type { Manifest, PartnerEvent, Ticket } from '@marquee/partner-api';
import type { ServiceStores, StoreIndex, Versioned, VersionedStore } from '@marquee/platform/store';
import type { PartnerRepositories, Repository } from '../app/ports.js';
import type { EventRecord } from '../domain/event.js';
import type { InventoryRecord } from '../domain/inventory.js';
import type { BookingRecord, ManifestRecord, VenueRecord } from '../domain/model.js';
import {
  eventFromShape,
  eventToShape,
  manifestFromShape,
  manifestToShape,
  ticketFromShape,
  ticketToShape,
} from './partner-shapes.js';
import { recentReads } from './recent-reads.js';

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

/**
 * Stored documents keep the field names they were first written with: the top-level fields are
 * the records' own (camelCase, what filters and indexes name), while an event's `event`, a
 * manifest's `manifest` and a booking's `tickets` are the 3P API's snake_case shapes and amounts
 * are strings of minor units. Mapping here, rather than rewriting the documents, reads every
 * document ever written with no migration. Venues, logos, tax plans, inventories and booking
 * references are stored as their records.
 */
export interface ManifestDocument extends Versioned {
  venueId: string;
  manifest: Manifest;
}

export interface EventDocument extends Omit<EventRecord, 'details'> {
  event: PartnerEvent;
}

export interface BookingDocument extends Omit<BookingRecord, 'ticketsAmountMinor' | 'tickets'> {
  ticketsAmount: string;
  tickets: Ticket[];
}

export const manifestCodec = {
  toRecord: (d: ManifestDocument): ManifestRecord => ({
    id: d.id,
    version: d.version,
    venueId: d.venueId,
    manifest: manifestFromShape(d.manifest),
  }),
  toDocument: (r: Omit<ManifestRecord, 'version'>): Omit<ManifestDocument, 'version'> => ({
    id: r.id,
    venueId: r.venueId,
    manifest: manifestToShape(r.manifest),
  }),
};

export const eventCodec = {
  toRecord: ({ event, ...rest }: EventDocument): EventRecord => ({
    ...rest,
    details: eventFromShape(event),
  }),
  toDocument: ({
    details,
    ...rest
  }: Omit<EventRecord, 'version'>): Omit<EventDocument, 'version'> => ({
    ...rest,
    event: eventToShape({ ...rest, details }),
  }),
};

export const bookingCodec = {
  toRecord: ({ ticketsAmount, tickets, ...rest }: BookingDocument): BookingRecord => ({
    ...rest,
    ticketsAmountMinor: Number(ticketsAmount),
    tickets: tickets.map(ticketFromShape),
  }),
  toDocument: ({
    ticketsAmountMinor,
    tickets,
    ...rest
  }: Omit<BookingRecord, 'version'>): Omit<BookingDocument, 'version'> => ({
    ...rest,
    ticketsAmount: String(ticketsAmountMinor),
    tickets: tickets.map(ticketToShape),
  }),
};

const venueIndexes: StoreIndex<VenueRecord>[] = [{ fields: { createdAt: 1 } }];
const eventIndexes: StoreIndex<EventDocument>[] = [
  { fields: { venueId: 1, lastModifiedAt: 1 } },
  { fields: { venueId: 1, startsAt: 1 } },
];
// `due`: on the single-writer Mongo mode the sweeper's query reads only the inventories with a
// hold due, instead of decoding every inventory each sweep.
const inventoryIndexes: StoreIndex<InventoryRecord>[] = [
  { fields: { nextExpiryAt: 1 }, due: true },
];
const bookingIndexes: StoreIndex<BookingDocument>[] = [
  { fields: { eventId: 1, createdAt: 1 } },
  { fields: { status: 1, expiresAt: 1 } },
];

/** The platform store already has the shape of the port; the port only names less of it. */
const asRepository = <T extends Versioned>(store: VersionedStore<T>): Repository<T> =>
  store as unknown as Repository<T>;

/**
 * A repository of records over a store of documents. Filters and sorts name top-level fields,
 * which records and documents share, so they pass unchanged.
 */
export function mappedRepository<R extends Versioned, D extends Versioned>(
  store: VersionedStore<D>,
  codec: { toRecord(d: D): R; toDocument(r: Omit<R, 'version'>): Omit<D, 'version'> },
): Repository<R> {
  const documents = asRepository(store);
  return {
    get: async (id) => {
      const d = await documents.get(id);
      return d === undefined ? undefined : codec.toRecord(d);
    },
    insert: async (record) => codec.toRecord(await documents.insert(codec.toDocument(record))),
    update: async (id, expectedVersion, next) =>
      codec.toRecord(await documents.update(id, expectedVersion, codec.toDocument(next))),
    find: async (filter, options) => (await documents.find(filter, options)).map(codec.toRecord),
    count: (filter) => documents.count(filter),
  };
}

/**
 * partner-reference's repositories over the service's stores: memory (embedded default, unit tests)
 * or Mongo (`MONGO_URL`), the same code either way (`openServiceStores`).
 */
export function createPartnerRepositories(stores: ServiceStores): PartnerRepositories {
  return {
    venues: asRepository(stores.collection(COLLECTIONS.venues, venueIndexes)),
    manifests: mappedRepository(
      stores.collection<ManifestDocument>(COLLECTIONS.manifests),
      manifestCodec,
    ),
    // Every hold reads its event: answered from memory for a second (recent-reads.ts).
    events: recentReads(
      mappedRepository(
        stores.collection<EventDocument>(COLLECTIONS.events, eventIndexes),
        eventCodec,
      ),
    ),
    logos: asRepository(stores.collection(COLLECTIONS.logos)),
    taxPlans: asRepository(stores.collection(COLLECTIONS.taxPlans)),
    inventories: asRepository(stores.collection(COLLECTIONS.inventories, inventoryIndexes)),
    bookings: mappedRepository(
      stores.collection<BookingDocument>(COLLECTIONS.bookings, bookingIndexes),
      bookingCodec,
    ),
    bookingReferences: asRepository(stores.collection(COLLECTIONS.bookingReferences)),
  };
}
