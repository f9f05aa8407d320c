import {
  Event,
  EventStatus,
  SearchAttractionsRequest,
  SearchClassificationsRequest,
  SearchEventsRequest,
  SearchVenuesRequest,
  type Place,
  type Classification,
} from '@marquee/proto/catalog/v1';
import type {
  AttractionQuery,
  ClassificationQuery,
  EventQuery,
  VenueQuery,
} from '../src/domain/catalog-index.js';
import {
  attractionQueryOf,
  classificationQueryOf,
  eventQueryOf,
  venueQueryOf,
} from '../src/ports/grpc/search-mapping.js';

let sequence = 0;

/** A localized text in en-us (and other locales when given). */
export const text = (en: string, others: Record<string, string> = {}) => ({
  values: { 'en-us': en, ...others },
});

export const place = (overrides: Partial<Place> = {}): Place => ({
  names: text('Madison Square Garden'),
  address: { line1: text('4 Pennsylvania Plaza'), line2: undefined },
  areaNames: undefined,
  cityNames: text('New York'),
  country: { countryCode: 'US', names: text('United States Of America') },
  state: { stateCode: 'NY', names: text('New York') },
  postalCode: '10001',
  location: { latitude: 40.7505, longitude: -73.9934 },
  ...overrides,
});

export const classification = (
  segment: [string, string],
  genre?: [string, string],
  primary = true,
): Classification => ({
  primary,
  segment: { id: segment[0], names: text(segment[1]) },
  genre: genre && { id: genre[0], names: text(genre[1]) },
  subGenre: undefined,
});

/** A visible, active published event starting in 2030 at an inline place in New York. */
export function anEvent(overrides: Partial<Event> = {}): Event {
  sequence += 1;
  const id = overrides.id ?? `evt${String(sequence).padStart(12, '0')}`;
  return Event.fromPartial({
    id,
    version: 1,
    active: true,
    test: false,
    url: `https://example.com/events/${id}`,
    source: { id: 'pub-1', name: 'publisher-one' },
    names: text('Spring Concert'),
    dates: {
      start: {
        localDate: '2030-05-01',
        localTime: '19:30:00',
        dateTime: new Date('2030-05-01T23:30:00Z'),
      },
      timezone: 'America/New_York',
    },
    location: { $case: 'place', value: place() },
    marketIds: [35],
    status: EventStatus.EVENT_STATUS_ONSALE,
    ...overrides,
  });
}

/**
 * A search written as the API's request (every other field at its default), as the gRPC port maps
 * it: the tests state queries in the terms clients use.
 */
export const query = (overrides: Partial<SearchEventsRequest> = {}): EventQuery =>
  eventQueryOf(SearchEventsRequest.fromPartial(overrides));

export const venueQuery = (overrides: Partial<SearchVenuesRequest> = {}): VenueQuery =>
  venueQueryOf(SearchVenuesRequest.fromPartial(overrides));

export const attractionQuery = (
  overrides: Partial<SearchAttractionsRequest> = {},
): AttractionQuery => attractionQueryOf(SearchAttractionsRequest.fromPartial(overrides));

export const classificationQuery = (
  overrides: Partial<SearchClassificationsRequest> = {},
): ClassificationQuery =>
  classificationQueryOf(SearchClassificationsRequest.fromPartial(overrides));
