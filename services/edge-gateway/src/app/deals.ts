/**
 * The edge's port to the deals service, in the deals API's own terms.
 * Implemented by adapters/deals-client.ts over gRPC and by fakes in unit tests.
 */

export type DealExclusivity = 'EXCLUSIVE' | 'NONEXCLUSIVE';
export type RadiusUnit = 'miles' | 'kilometers';

/** A deals search after the API defaults were applied to its query parameters. */
export interface DealSearchQuery {
  /** `/deals/{deal}/events`. */
  dealId?: string;
  exclusivities: DealExclusivity[];
  marketIds: number[];
  country: string;
  city?: string;
  state?: string;
  near?: { latitude: number; longitude: number; radius: number; unit: RadiusUnit };
  majorGenreId?: number;
  minorGenreId?: number;
  venueId?: number;
  attractionId?: number;
  timeRangeStart?: Date;
  timeRangeEnd?: Date;
  startRow: number;
  rows: number;
  /** The `/dc/content-qa/v1` prefix: the QA data set. */
  qa: boolean;
}

/** One event of the deals search result, exactly as the deals API names its fields. */
export interface DealSearchEvent {
  eventId: string;
  eventName: string;
  eventDate?: string;
  onsaleOnDate?: string;
  eventDetailsLink: string;
  minPrice?: number;
  maxPrice?: number;
  currency?: string;
  deals: Array<{ dealName: string; dealDescription: string; dealOfferCode?: string }>;
  attractions: Array<{ attractionId: number; attractionName: string }>;
  venue?: { venueId: number; venueName: string; venueLatitude?: number; venueLongitude?: number };
  categorization: {
    majorGenres: Array<{ name: string; id: number }>;
    minorGenres: Array<{ name: string; id: number }>;
  };
}

export interface DealSearchResult {
  hits: number;
  totalHits: number;
  events: DealSearchEvent[];
}

export interface NewDeal {
  eventId: string;
  dealName: string;
  dealDescription: string;
  dealOfferCode?: string;
  exclusivity: DealExclusivity;
}

export interface DealChange {
  dealName: string;
  dealDescription: string;
  dealOfferCode?: string;
  exclusivity: DealExclusivity;
  expectedVersion?: number;
}

/** A deal as the admin API shows it. */
export interface DealRecord {
  id: string;
  eventId: string;
  dealName: string;
  dealDescription: string;
  dealOfferCode?: string;
  exclusivity: DealExclusivity;
  state: 'ACTIVE' | 'ENDED';
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface DealsBackend {
  searchDeals(query: DealSearchQuery): Promise<DealSearchResult>;
  createDeal(input: NewDeal): Promise<DealRecord>;
  updateDeal(id: string, change: DealChange): Promise<DealRecord>;
  endDeal(id: string): Promise<DealRecord>;
  getDeal(id: string): Promise<DealRecord>;
}
