import { describe, expect, it } from 'vitest';
import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event,
  EventStatus,
  OutletType,
  PriceRangeType,
} from '@marquee/proto/catalog/v1';
import type {
  Attraction,
  CatalogEvent,
  ClassificationSegment,
  Venue,
} from '../../../src/domain/model.js';
import {
  attractionMessageOf,
  eventMessageOf,
  segmentMessageOf,
  venueMessageOf,
} from '../../../src/adapters/proto/catalog-messages.js';
import { catalogEventOf } from '../../../src/adapters/proto/kafka-messages.js';
import { aFullEventMessage, text, clubVenueLocation } from '../../builders.js';

/** The paths of the fields a message leaves at their default value. */
function defaults(value: unknown, path = ''): string[] {
  if (value === undefined || value === '' || value === 0 || value === false) return [path];
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((v, i) => defaults(v, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || value instanceof Date) return [];
  const entries = Object.entries(value);
  return entries.length === 0
    ? [path]
    : entries.flatMap(([key, v]) => defaults(v, path ? `${path}.${key}` : key));
}

/** A record in the domain's terms, as the index holds one after resolving its references. */
const record = (): CatalogEvent => ({
  ...catalogEventOf(Event.fromPartial({ id: 'E1', version: 3, active: true })),
  names: { values: { 'fr-fr': 'Concert de printemps', 'en-us': 'Spring Concert' } },
  status: 'cancelled',
  priceRanges: [
    {
      type: 'standard-including-fees',
      min: { amountMinor: 1200, currency: 'EUR' },
      max: undefined,
    },
    { type: 'unspecified', min: undefined, max: { amountMinor: 800, currency: 'EUR' } },
  ],
  outlets: [{ url: 'https://box.example.com', type: 'venue-box-office' }],
  location: {
    kind: 'venue',
    venue: { ref: { kind: 'id', id: 'ZV1' }, names: text('Hall'), resolvedId: 'ZV1' },
  },
  attractions: [
    {
      ref: { kind: 'source', source: { id: 'a-1', name: 'pub' } },
      names: undefined,
      resolvedId: 'K9',
    },
  ],
  origin: {
    kind: { type: 'partner-import', partnerId: 'P1', partnerEventId: 'PE1', partnerVenueId: '' },
  },
  availability: { soldOut: true },
});

describe('eventMessageOf (the catalog record → Event)', () => {
  it('writes enums by their message names and the unions as oneofs', () => {
    const message = eventMessageOf(record());
    expect(message.status).toBe(EventStatus.EVENT_STATUS_CANCELLED);
    expect(message.priceRanges).toEqual([
      {
        type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES,
        min: { amountMinor: 1200, currency: 'EUR' },
        max: undefined,
      },
      {
        type: PriceRangeType.PRICE_RANGE_TYPE_UNSPECIFIED,
        min: undefined,
        max: { amountMinor: 800, currency: 'EUR' },
      },
    ]);
    expect(message.outlets).toEqual([
      { url: 'https://box.example.com', type: OutletType.OUTLET_TYPE_VENUE_BOX_OFFICE },
    ]);
    expect(message.location).toEqual({
      $case: 'venue',
      value: { ref: { $case: 'id', value: 'ZV1' }, names: text('Hall'), resolvedId: 'ZV1' },
    });
    expect(message.attractions).toEqual([
      {
        ref: { $case: 'source', value: { id: 'a-1', name: 'pub' } },
        names: undefined,
        resolvedId: 'K9',
      },
    ]);
    expect(message.origin).toEqual({
      kind: {
        $case: 'partnerImport',
        value: {
          partnerId: 'P1',
          partnerEventId: 'PE1',
          partnerVenueId: '',
          lastModification: undefined,
        },
      },
    });
    expect(message.availability).toEqual({ soldOut: true });
    // Texts keep every locale, in order; what the record lacks stays absent.
    expect(Object.entries(message.names!.values)).toEqual([
      ['fr-fr', 'Concert de printemps'],
      ['en-us', 'Spring Concert'],
    ]);
    expect(message.descriptions).toBeUndefined();
    expect(message.dates).toBeUndefined();
    expect(message.ticketing).toBeUndefined();
    expect(Event.decode(Event.encode(message).finish()).status).toBe(
      EventStatus.EVENT_STATUS_CANCELLED,
    );
  });

  it('gives back, byte for byte, the message the Kafka port mapped, every field set', () => {
    const full = aFullEventMessage();
    // Every field of the message is set in the fixture: a field added to the message is caught
    // here until the fixture, the record and both mappings carry it.
    expect(defaults(full)).toEqual([]);
    expect(eventMessageOf(catalogEventOf(full))).toEqual(full);
    expect(Buffer.from(Event.encode(eventMessageOf(catalogEventOf(full))).finish())).toEqual(
      Buffer.from(Event.encode(full).finish()),
    );
  });

  it('gives back the other cases of the oneofs, and an event with nothing set', () => {
    const other = Event.fromPartial({
      ...aFullEventMessage(),
      location: clubVenueLocation(),
      attractions: [{ ref: undefined, names: undefined, resolvedId: '' }],
      origin: { kind: { $case: 'partnerImport', value: { partnerId: 'P1' } } },
      status: EventStatus.UNRECOGNIZED,
      outlets: [{ url: 'u', type: OutletType.UNRECOGNIZED }],
      priceRanges: [{ type: PriceRangeType.UNRECOGNIZED }],
      descriptions: { values: {} },
    });
    expect(eventMessageOf(catalogEventOf(other))).toEqual(other);
    const empty = Event.fromPartial({});
    expect(eventMessageOf(catalogEventOf(empty))).toEqual(empty);
    expect(Event.encode(eventMessageOf(catalogEventOf(empty))).finish()).toHaveLength(0);
  });
});

describe('venueMessageOf, attractionMessageOf, segmentMessageOf', () => {
  it('write every field of a venue, absent parts left absent', () => {
    const venue: Venue = {
      id: 'ZV1',
      names: text('Hall', { 'de-de': 'Halle' }),
      test: true,
      postalCode: '10001',
      timezone: 'America/New_York',
      marketIds: [35],
      country: { countryCode: 'US', names: text('United States') },
      state: undefined,
      cityNames: text('New York'),
      location: { latitude: 40.75, longitude: -73.99 },
      address: { line1: text('1 Main St'), line2: undefined },
      upcomingEvents: 3,
      cityId: 281_474_976_710_655,
    };
    const message = venueMessageOf(venue);
    expect(message).toEqual({
      id: 'ZV1',
      names: { values: { 'en-us': 'Hall', 'de-de': 'Halle' } },
      test: true,
      postalCode: '10001',
      timezone: 'America/New_York',
      marketIds: [35],
      country: { countryCode: 'US', names: { values: { 'en-us': 'United States' } } },
      state: undefined,
      cityNames: { values: { 'en-us': 'New York' } },
      location: { latitude: 40.75, longitude: -73.99 },
      address: { line1: { values: { 'en-us': '1 Main St' } }, line2: undefined },
      upcomingEvents: 3,
      cityId: 281_474_976_710_655,
    });
    expect(DiscoveryVenue.decode(DiscoveryVenue.encode(message).finish())).toEqual(message);
  });

  it('write every field of an attraction and of a classification segment', () => {
    const k1 = (): Attraction => ({
      id: 'K1',
      names: undefined,
      test: false,
      url: 'https://example.com/k1',
      images: [{ url: 'i.jpg', width: 100, height: 50, ratio: '2_1', fallback: false }],
      classifications: [{ primary: true, segment: { id: 'KZ1', names: text('Music') } }],
      upcomingEvents: 0,
    });
    const attraction = k1();
    const message = attractionMessageOf(attraction);
    expect(message).toEqual(k1());
    expect(DiscoveryAttraction.decode(DiscoveryAttraction.encode(message).finish())).toEqual(
      message,
    );

    const segment: ClassificationSegment = {
      segment: { id: 'KZ1', names: text('Music') },
      genres: [
        { genre: { id: 'KG1', names: text('Rock') }, subGenres: [{ id: 'KS1', names: undefined }] },
        { genre: undefined, subGenres: [] },
      ],
      eventCount: 4,
    };
    expect(segmentMessageOf(segment)).toEqual({
      segment: { id: 'KZ1', names: { values: { 'en-us': 'Music' } } },
      genres: [
        {
          genre: { id: 'KG1', names: { values: { 'en-us': 'Rock' } } },
          subGenres: [{ id: 'KS1', names: undefined }],
        },
        { genre: undefined, subGenres: [] },
      ],
      eventCount: 4,
    });
  });
});
