import { milesToKm } from '@marquee/geo';
import type { Attraction, CatalogEvent, ClassificationSegment, Venue } from '../model.js';

/**
 * The searches the catalog answers, in its own terms. The gRPC port maps CatalogService requests to
 * these (ports/grpc/search-mapping.ts) and the answers back (adapters/proto/catalog-messages.ts);
 * nothing in the domain reads a request message. The events, venues and attractions are the
 * domain's records (model.ts).
 */

/** Discovery v2 defaults: 20 per page, radius 50 miles. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_EVENT_PAGE_SIZE = 500;
export const DEFAULT_RADIUS = 50;

/** Whether results with a property are left out (`no`), kept (`yes`), or the only ones (`only`). */
export type Inclusion = 'no' | 'yes' | 'only';

export type DistanceUnit = 'miles' | 'km';

/** `offset` from 0; `limit` 0 means the default page size. */
export interface PageRequest {
  offset: number;
  limit: number;
}

/** A half-open span of time, `[from, to)`; a missing end is open. */
export interface TimeSpan {
  from?: Date | undefined;
  to?: Date | undefined;
}

/** A circle on the map: radius 0 means DEFAULT_RADIUS. */
export interface Area {
  center: { latitude: number; longitude: number };
  radius: number;
  unit: DistanceUnit;
}

/** An area's radius in kilometres. */
export function radiusKm(area: Area): number {
  const value = area.radius > 0 ? area.radius : DEFAULT_RADIUS;
  return area.unit === 'km' ? value : milesToKm(value);
}

/**
 * An event order. Every order ends with the start date and the id, so pages are stable.
 * `popularity-*` orders by the upcoming events of an event's most popular attraction.
 */
export type EventOrder =
  | 'date-asc'
  | 'date-desc'
  | 'name-asc'
  | 'name-desc'
  | 'onsale-asc'
  | 'onsale-desc'
  | 'popularity-desc'
  | 'popularity-asc';

/**
 * How a search is sorted: `default` is by relevance (fewest name words first) when the search has
 * keywords, else by date; `distance-*` needs an area (`near`) and breaks ties by date.
 */
export type EventSort = 'default' | EventOrder | 'distance-asc' | 'distance-desc';

/** An event search: every filter given must hold. Empty lists and strings filter nothing. */
export interface EventQuery {
  /** Every word must be a word of the event's name. */
  keyword: string;
  /** Any of these words is a word of the event's name. */
  nameContains: string;
  eventIds: string[];
  attractionIds: string[];
  venueIds: string[];
  /** Ids of segments, genres or sub-genres (any case). */
  classificationIds: string[];
  classificationNames: string[];
  marketIds: number[];
  /** A designated market area: the events of its markets. */
  dmaId: number | undefined;
  /** City ids of the venue (city-id.ts). */
  cityIds: number[];
  near: Area | undefined;
  postalCode: string;
  city: string;
  countryCodes: string[];
  stateCodes: string[];
  /** Publisher (source) names, compared folded. */
  sources: string[];
  promoterIds: string[];
  /** Date spans keep only the events that have the date they filter on. */
  start: TimeSpan;
  onsale: TimeSpan;
  offsale: TimeSpan;
  /** A price range overlapping [minPrice, maxPrice] (major units; 0: no bound). */
  minPrice: number;
  maxPrice: number;
  /** Compare prices without ticket fees (default: with them, where known). */
  priceExclFees: boolean;
  excludePackages: boolean;
  /** Leave out events sold outside the platform. */
  excludeExternal: boolean;
  /** On sale now and not known to be sold out. */
  seatsAvailable: boolean;
  includeTba: Inclusion;
  includeTbd: Inclusion;
  includeTest: Inclusion;
  /** Cancelled or rescheduled events; undefined: no filter. */
  includeCancelled: Inclusion | undefined;
  includeRescheduled: Inclusion | undefined;
  sort: EventSort;
  page: PageRequest | undefined;
}

/** An event search with every field at its default (nothing filtered, the first page). */
export function eventQuery(fields: Partial<EventQuery> = {}): EventQuery {
  return {
    keyword: '',
    nameContains: '',
    eventIds: [],
    attractionIds: [],
    venueIds: [],
    classificationIds: [],
    classificationNames: [],
    marketIds: [],
    dmaId: undefined,
    cityIds: [],
    near: undefined,
    postalCode: '',
    city: '',
    countryCodes: [],
    stateCodes: [],
    sources: [],
    promoterIds: [],
    start: {},
    onsale: {},
    offsale: {},
    minPrice: 0,
    maxPrice: 0,
    priceExclFees: false,
    excludePackages: false,
    excludeExternal: false,
    seatsAvailable: false,
    includeTba: 'no',
    includeTbd: 'no',
    includeTest: 'no',
    includeCancelled: undefined,
    includeRescheduled: undefined,
    sort: 'default',
    page: undefined,
    ...fields,
  };
}

/** Venue and attraction orders: by name unless told otherwise, then by name and id. */
export type NameSort =
  'name-asc' | 'name-desc' | 'city-asc' | 'city-desc' | 'popularity-desc' | 'popularity-asc';

export interface VenueQuery {
  keyword: string;
  ids: string[];
  countryCodes: string[];
  stateCodes: string[];
  city: string;
  postalCode: string;
  near: Area | undefined;
  marketIds: number[];
  cityIds: number[];
  /** Any of these phrases is part of the venue's name. */
  nameAny: string[];
  /** Only venues with at least one event sold on the platform. */
  excludeExternal: boolean;
  includeTest: Inclusion;
  sort: NameSort;
  page: PageRequest | undefined;
}

export interface AttractionQuery {
  keyword: string;
  ids: string[];
  classificationIds: string[];
  classificationNames: string[];
  /** Part of the attraction's name (a phrase). */
  nameContains: string;
  /** Every word is a prefix of, or one edit away from, a word of the name. */
  fuzzy: string;
  /** Only attractions with an event in one of these countries. */
  countryCodes: string[];
  /** Only attractions with upcoming events. */
  hasEvents: boolean;
  includeTest: Inclusion;
  sort: NameSort;
  page: PageRequest | undefined;
}

export interface ClassificationQuery {
  keyword: string;
  page: PageRequest | undefined;
}

export interface SimilarAttractionsQuery {
  hasEvents: boolean;
  countryCodes: readonly string[];
  limit: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

/** An event of a page with its venue and attractions as they stand now. */
export interface EventHit {
  event: CatalogEvent;
  venue: Venue | undefined;
  attractions: Attraction[];
}

/**
 * A hit as the index's codec encoded it (EventCodec: the gRPC port's `Event`, `DiscoveryVenue`
 * and `DiscoveryAttraction` messages), for callers that forward the bytes as they are; the venue
 * and attractions with their ids.
 */
export interface EncodedEventHit {
  encoded: Uint8Array;
  venue: EncodedView | undefined;
  attractions: EncodedView[];
}

export interface EncodedView {
  id: string;
  encoded: Uint8Array;
}

/**
 * A hit as rendered documents (DocumentRenderer): the event's opening, then its venue's document
 * (if it has a venue) and its attractions' documents in the event's order, as they stand now.
 */
export interface DocumentHit {
  opening: Uint8Array;
  venue: Uint8Array | undefined;
  attractions: Uint8Array[];
}

export type ClassificationLevelName = 'segment' | 'genre' | 'subgenre';

export interface FoundClassification {
  segment: ClassificationSegment;
  level: ClassificationLevelName;
}

/** Whether a result with (`flag`) or without a property passes an inclusion. */
export function inclusionAccepts(inclusion: Inclusion, flag: boolean): boolean {
  switch (inclusion) {
    case 'yes':
      return true;
    case 'only':
      return flag;
    default:
      return !flag;
  }
}

/** A query the catalog refuses (kind `invalid_argument`, mapped to the API family's 400 body). */
export class InvalidQueryError extends Error {
  readonly kind = 'invalid_argument';
}

/** The page a query asks for, checked: offset 0 or more, size from 1 to `max`. */
export function checkPage(
  page: PageRequest | undefined,
  max: number,
): { offset: number; limit: number } {
  const offset = page?.offset ?? 0;
  const limit = page?.limit || DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidQueryError('page offset must be 0 or more');
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new InvalidQueryError(`page size must be between 1 and ${max}`);
  return { offset, limit };
}
