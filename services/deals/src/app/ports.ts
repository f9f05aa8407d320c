import type { Deal } from '../domain/deal.js';
import type { DealEvent } from '../domain/deal-event.js';

/**
 * Deals storage. Every write records the deal's `deal-changed` event atomically with it (the
 * adapters use the platform store's in-document outbox), so no change can be saved unannounced.
 */
export interface DealRepository {
  get(id: string): Promise<Deal | undefined>;
  /** Stores a new deal at version 1. */
  create(deal: Omit<Deal, 'version'>): Promise<Deal>;
  /** Compare-and-set on `expectedVersion` (kind `aborted` when stale); returns the stored deal. */
  update(id: string, expectedVersion: number, next: Omit<Deal, 'version'>): Promise<Deal>;
  /** Every deal, active and ended (the search index is rebuilt from this at start). */
  list(): Promise<Deal[]>;
  /** The deals of one event, active and ended. */
  listByEvent(eventId: string): Promise<Deal[]>;
}

/** The event projection fed by `event-changed`. */
export interface DealEventRepository {
  get(id: string): Promise<DealEvent | undefined>;
  /**
   * Stores `event` only if its `eventVersion` is greater than the stored one (or nothing is stored):
   * idempotent and order-safe under redelivery. Resolves whether it was applied. A deletion is a
   * `deleted` record at the version it was deleted at.
   */
  put(event: DealEvent): Promise<boolean>;
  /** Every stored event that is not deleted. */
  list(): Promise<DealEvent[]>;
  /**
   * Replaces the venue of the stored event if it is still at `eventVersion` (a newer state wins);
   * resolves whether it was applied.
   */
  setVenue(id: string, eventVersion: number, venue: DealEvent['venue']): Promise<boolean>;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

export interface IdGenerator {
  dealId(): string;
}

/** A venue's position. */
export interface VenueLocation {
  latitude: number;
  longitude: number;
}

/**
 * The venue authority (catalog-indexer): where a venue referenced by discovery id is. Resolves
 * `undefined` when the venue is not known (yet: catalog may not have processed the event), `null`
 * when it is known without coordinates. Rejects (kind `unavailable`, …) when the authority cannot answer.
 */
export interface VenueDirectory {
  locate(venueId: string): Promise<VenueLocation | null | undefined>;
}
