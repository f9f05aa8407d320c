import {
  Event,
  EventStatus,
  OutletType,
  PriceRangeType,
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
import type { CatalogEvent } from '../src/domain/model.js';
import { catalogEventOf } from '../src/adapters/proto/kafka-messages.js';
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

/**
 * A visible, active published event starting in 2030 at an inline place in New York, as its
 * producer publishes it on `event-changed`.
 */
export function anEventMessage(overrides: Partial<Event> = {}): Event {
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
 * An event with every field of the `Event` message set to something other than its default (every
 * boolean true, every list non-empty, texts in two locales), the oneofs on one case each: a field
 * added to the message and missing here is caught by test/adapters/proto/catalog-messages.unit.test.ts.
 */
/** The scalar head of `aFullEventMessage`, as the catalog record keeps it too. */
export const fullEventHead = () => ({
  id: 'FULL00000000001',
  source: { id: 'src-1', name: 'publisher-one', publishingSource: { id: 'ps-1', name: 'pub' } },
  version: 7,
  publisherVersion: 2.5,
  active: true,
  test: true,
  url: 'https://tickets.example.com/FULL00000000001',
});

/** An event location naming venue `v-1` of source `pub` (unresolved), called Club. */
export const clubVenueLocation = () => ({
  $case: 'venue' as const,
  value: {
    ref: { $case: 'source' as const, value: { id: 'v-1', name: 'pub' } },
    names: text('Club'),
    resolvedId: '',
  },
});

export function aFullEventMessage(): Event {
  const t = (en: string) => text(en, { 'de-de': `${en} (de)` });
  const at = (iso: string) => new Date(iso);
  return Event.fromPartial({
    ...fullEventHead(),
    names: t('Full Gala'),
    descriptions: t('A description'),
    infos: t('Info'),
    additionalInfos: t('More info'),
    pleaseNotes: t('Please note'),
    attractions: [
      { ref: { $case: 'id', value: 'K1' }, names: t('The Band'), resolvedId: 'K1' },
      {
        ref: { $case: 'source', value: { id: 'a-9', name: 'publisher-one' } },
        names: t('Support'),
        resolvedId: 'K2',
      },
    ],
    classifications: [
      {
        primary: true,
        segment: { id: 'KZ1', names: t('Music') },
        genre: { id: 'KG1', names: t('Rock') },
        subGenre: { id: 'KS1', names: t('Punk') },
      },
    ],
    dates: {
      start: {
        localDate: '2030-05-01',
        localTime: '19:30:00',
        dateTime: at('2030-05-01T23:30:00Z'),
        dateTbd: true,
        dateTba: true,
        timeTba: true,
        noSpecificTime: true,
      },
      access: {
        startDateTime: at('2030-05-01T22:30:00Z'),
        endDateTime: at('2030-05-02T03:00:00Z'),
        startApproximate: true,
        endApproximate: true,
      },
      end: { localTime: '23:00:00', dateTime: at('2030-05-02T03:00:00Z'), approximate: true },
      timezone: 'America/New_York',
    },
    images: [
      {
        url: 'https://img.example.com/1.jpg',
        width: 640,
        height: 360,
        ratio: '16_9',
        fallback: true,
      },
    ],
    outlets: [{ url: 'https://box.example.com', type: OutletType.OUTLET_TYPE_VENUE_BOX_OFFICE }],
    location: {
      $case: 'place',
      value: {
        names: t('Madison Square Garden'),
        address: { line1: t('4 Pennsylvania Plaza'), line2: t('Suite 1') },
        areaNames: t('Midtown'),
        cityNames: t('New York'),
        country: { countryCode: 'US', names: t('United States') },
        state: { stateCode: 'NY', names: t('New York') },
        postalCode: '10001',
        location: { latitude: 40.7505, longitude: -73.9934 },
      },
    },
    priceRanges: [
      {
        type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
        min: { amountMinor: 2500, currency: 'USD' },
        max: { amountMinor: 9900, currency: 'USD' },
      },
      {
        type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES,
        min: { amountMinor: 3000, currency: 'USD' },
        max: { amountMinor: 11000, currency: 'USD' },
      },
    ],
    promoter: { id: 'PR1', names: t('Promoter'), descriptions: t('Promotes') },
    publicVisibility: {
      startDateTime: at('2026-01-01T00:00:00Z'),
      endDateTime: at('2030-05-02T00:00:00Z'),
      visible: true,
    },
    sales: {
      publicSale: {
        startDateTime: at('2029-01-01T00:00:00Z'),
        endDateTime: at('2030-05-01T23:00:00Z'),
        startTbd: true,
      },
    },
    marketIds: [35, 27],
    origin: { kind: { $case: 'published', value: { appId: 'app-1' } } },
    status: EventStatus.EVENT_STATUS_RESCHEDULED,
    ticketing: {
      manifestId: 'M1',
      maximumTicketsQuantity: 8,
      currency: 'USD',
      priceLevels: [{ id: 'PL1', names: t('Floor'), descriptions: t('Standing') }],
      priceTypes: [
        {
          id: 'PT1',
          regular: true,
          accessCodeRequired: true,
          names: t('Adult'),
          descriptions: t('Over 18'),
        },
      ],
      pricePeriods: [
        {
          id: 'PP1',
          startDateTime: at('2029-01-01T00:00:00Z'),
          endDateTime: at('2030-05-01T23:00:00Z'),
          prices: [
            {
              priceLevelId: 'PL1',
              priceTypeId: 'PT1',
              amount: { amountMinor: 2500, currency: 'USD' },
            },
          ],
        },
      ],
      secureEntryEnabled: true,
    },
    createdAt: at('2025-06-01T00:00:00Z'),
    updatedAt: at('2025-07-01T00:00:00Z'),
    seatmap: { staticUrl: 'https://maps.example.com/1.svg' },
    package: true,
    availability: { soldOut: true },
  });
}

/**
 * The same event as the catalog's record, mapped as the Kafka port maps it: the tests state events
 * in the terms producers use.
 */
export const anEvent = (overrides: Partial<Event> = {}): CatalogEvent =>
  catalogEventOf(anEventMessage(overrides));

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
