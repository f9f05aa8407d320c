/**
 * The deal-bearing event projection: what deals keeps of each `event-changed` state to answer a
 * deals search (the deals API's search result) and to filter it (its search parameters).
 */

/** An attraction or a genre as the deals API shows it. */
export interface NamedRef {
  /** Platform id. */
  id: string;
  name: string;
  /** Public numeric id (public-id.ts). */
  number: number;
}

export interface DealVenue extends NamedRef {
  latitude?: number;
  longitude?: number;
  /**
   * A venue referenced by discovery id that the catalog did not know yet when the event was
   * projected: its coordinates are still to be resolved (deals-app re-resolves it periodically).
   */
  unresolved?: boolean;
}

export interface EventPrice {
  /** Minor units of `currency` (2550 = 25.50 USD), as the platform carries money. */
  minMinor: number;
  maxMinor: number;
  currency: string;
}

export interface DealEvent {
  id: string;
  /** The platform version of the event state (`Event.version`); only greater versions apply. */
  eventVersion: number;
  /** A tombstone: the event was deleted at `eventVersion` (kept so older redeliveries cannot revive it). */
  deleted: boolean;
  /** `active` and publicly visible (publicVisibility.visible). */
  active: boolean;
  /** QA data set membership (the published event's `test`). */
  test: boolean;
  name: string;
  detailsUrl: string;
  startAt?: Date;
  onsaleAt?: Date;
  /** Public visibility window; absent bounds are open. */
  visibleFrom?: Date;
  visibleUntil?: Date;
  price?: EventPrice;
  attractions: NamedRef[];
  venue?: DealVenue;
  /** Lower-case city names (every locale) for the `city` filter. */
  cities: string[];
  /** Lower-case state code and names for the `state` filter. */
  states: string[];
  /** ISO country code (place country, else the country of its markets); absent when unknown. */
  country?: string;
  majorGenres: NamedRef[];
  minorGenres: NamedRef[];
  marketIds: number[];
}

/** A deletion marker for an event (tombstone on `event-changed`). */
export function deletedEvent(id: string, eventVersion: number): DealEvent {
  return {
    id,
    eventVersion,
    deleted: true,
    active: false,
    test: false,
    name: '',
    detailsUrl: '',
    attractions: [],
    cities: [],
    states: [],
    majorGenres: [],
    minorGenres: [],
    marketIds: [],
  };
}
