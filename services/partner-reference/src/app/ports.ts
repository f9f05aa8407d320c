import type { EventRecord } from '../domain/event.js';
import type { InventoryRecord } from '../domain/inventory.js';
import type {
  BookingRecord,
  BookingReferenceRecord,
  LogoRecord,
  ManifestRecord,
  TaxPlanRecord,
  VenueRecord,
  VersionedRecord,
} from '../domain/model.js';

/**
 * A collection of records, compare-and-set on `version`. The platform's versioned store satisfies
 * it (adapters/stores.ts), in memory or on Mongo. Filters are top-level equality, `$in`, `$ne` and
 * ranges only: what the Mongo-wire server of dev and CI can serve.
 */
export interface Repository<T extends VersionedRecord> {
  get(id: string): Promise<T | undefined>;
  /** A clash with an existing id rejects with an error of kind `already_exists`. */
  insert(record: Omit<T, 'version'>): Promise<T>;
  /** A stale `expectedVersion` rejects with an error of kind `aborted`. */
  update(id: string, expectedVersion: number, next: Omit<T, 'version'>): Promise<T>;
  find(
    filter: Record<string, unknown>,
    options?: { sort?: Record<string, 1 | -1>; skip?: number; limit?: number },
  ): Promise<T[]>;
  count(filter: Record<string, unknown>): Promise<number>;
}

export interface PartnerRepositories {
  venues: Repository<VenueRecord>;
  manifests: Repository<ManifestRecord>;
  events: Repository<EventRecord>;
  logos: Repository<LogoRecord>;
  taxPlans: Repository<TaxPlanRecord>;
  inventories: Repository<InventoryRecord>;
  bookings: Repository<BookingRecord>;
  bookingReferences: Repository<BookingReferenceRecord>;
}

export interface IdGenerator {
  /** An inventory token: unguessable, path-safe. */
  token(): string;
  /** A catalogue id with a prefix (`V-…`, `M-…`, `E-…`). */
  id(prefix: string): string;
}
