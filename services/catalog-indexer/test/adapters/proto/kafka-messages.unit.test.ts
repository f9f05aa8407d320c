import { describe, expect, it } from 'vitest';
import {
  AvailabilityChanged,
  Event,
  EventStatus,
  OutletType,
  PriceRangeType,
  SyncScope,
} from '@marquee/proto/catalog/v1';
import {
  availabilityUpdateOf,
  catalogEventOf,
} from '../../../src/adapters/proto/kafka-messages.js';
import { aFullEventMessage, fullEventHead, text, clubVenueLocation } from '../../builders.js';

describe('catalogEventOf (event-changed → the catalog record)', () => {
  it('takes every field, enums by their domain names and oneofs as the domain unions', () => {
    const record = catalogEventOf(aFullEventMessage());
    expect(record).toMatchObject({
      ...fullEventHead(),
      status: 'rescheduled',
      marketIds: [35, 27],
      package: true,
      availability: { soldOut: true },
      createdAt: new Date('2025-06-01T00:00:00Z'),
      seatmap: { staticUrl: 'https://maps.example.com/1.svg' },
    });
    expect(record.priceRanges).toEqual([
      {
        type: 'standard',
        min: { amountMinor: 2500, currency: 'USD' },
        max: { amountMinor: 9900, currency: 'USD' },
      },
      {
        type: 'standard-including-fees',
        min: { amountMinor: 3000, currency: 'USD' },
        max: { amountMinor: 11000, currency: 'USD' },
      },
    ]);
    expect(record.outlets).toEqual([{ url: 'https://box.example.com', type: 'venue-box-office' }]);
    expect(record.attractions).toEqual([
      {
        ref: { kind: 'id', id: 'K1' },
        names: text('The Band', { 'de-de': 'The Band (de)' }),
        resolvedId: 'K1',
      },
      {
        ref: { kind: 'source', source: { id: 'a-9', name: 'publisher-one' } },
        names: text('Support', { 'de-de': 'Support (de)' }),
        resolvedId: 'K2',
      },
    ]);
    expect(record.location?.kind).toBe('place');
    expect(record.location?.kind === 'place' && record.location.place).toMatchObject({
      postalCode: '10001',
      country: { countryCode: 'US' },
      state: { stateCode: 'NY' },
      location: { latitude: 40.7505, longitude: -73.9934 },
      address: { line2: { values: { 'en-us': 'Suite 1', 'de-de': 'Suite 1 (de)' } } },
    });
    expect(record.origin).toEqual({ kind: { type: 'published', appId: 'app-1' } });
    expect(record.classifications[0]!.subGenre).toEqual({
      id: 'KS1',
      names: { values: { 'en-us': 'Punk', 'de-de': 'Punk (de)' } },
    });
    expect(record.ticketing?.pricePeriods[0]!.prices[0]!.amount).toEqual({
      amountMinor: 2500,
      currency: 'USD',
    });
  });

  it('keeps localized texts whole, in the producer order of their locales', () => {
    const record = catalogEventOf(
      Event.fromPartial({
        id: 'E1',
        names: { values: { 'de-de': 'Frühlingskonzert', 'en-us': 'Spring Concert' } },
        descriptions: { values: {} },
      }),
    );
    expect(record.names?.values).toEqual({
      'de-de': 'Frühlingskonzert',
      'en-us': 'Spring Concert',
    });
    expect(Object.keys(record.names!.values)).toEqual(['de-de', 'en-us']);
    // A text given with no locale is not the same as no text.
    expect(record.descriptions).toEqual({ values: {} });
    expect(record.infos).toBeUndefined();
  });

  it('leaves what the producer did not give absent, and maps the other cases of each oneof', () => {
    const bare = catalogEventOf(Event.fromPartial({ id: 'E2', version: 1 }));
    expect(bare).toMatchObject({ id: 'E2', version: 1, status: 'unspecified', package: false });
    for (const absent of [
      'source',
      'names',
      'dates',
      'location',
      'promoter',
      'publicVisibility',
      'sales',
      'origin',
      'ticketing',
      'createdAt',
      'seatmap',
      'availability',
    ] as const) {
      expect(bare[absent], absent).toBeUndefined();
    }
    expect(bare.attractions).toEqual([]);
    expect(bare.priceRanges).toEqual([]);

    const other = catalogEventOf(
      Event.fromPartial({
        id: 'E3',
        location: clubVenueLocation(),
        attractions: [{ names: text('Unnamed ref'), resolvedId: '' }],
        origin: {
          kind: {
            $case: 'partnerImport',
            value: {
              partnerId: 'P1',
              partnerEventId: 'PE1',
              partnerVenueId: 'PV1',
              lastModification: new Date('2025-01-02T00:00:00Z'),
            },
          },
        },
        priceRanges: [{ type: PriceRangeType.PRICE_RANGE_TYPE_UNSPECIFIED, min: undefined }],
        outlets: [{ url: 'u', type: OutletType.OUTLET_TYPE_UNSPECIFIED }],
      }),
    );
    expect(other.location).toEqual({
      kind: 'venue',
      venue: {
        ref: { kind: 'source', source: { id: 'v-1', name: 'pub' } },
        names: { values: { 'en-us': 'Club' } },
        resolvedId: '',
      },
    });
    expect(other.attractions).toEqual([
      { ref: undefined, names: { values: { 'en-us': 'Unnamed ref' } }, resolvedId: '' },
    ]);
    expect(other.origin).toEqual({
      kind: {
        type: 'partner-import',
        partnerId: 'P1',
        partnerEventId: 'PE1',
        partnerVenueId: 'PV1',
        lastModification: new Date('2025-01-02T00:00:00Z'),
      },
    });
    expect(other.priceRanges).toEqual([{ type: 'unspecified', min: undefined, max: undefined }]);
    expect(other.outlets).toEqual([{ url: 'u', type: 'unspecified' }]);
    expect(catalogEventOf(Event.fromPartial({ origin: {} })).origin).toEqual({ kind: undefined });
  });

  it('names every status, and one this build does not know as unrecognized', () => {
    const status = (value: EventStatus) =>
      catalogEventOf(Event.fromPartial({ status: value })).status;
    expect(status(EventStatus.EVENT_STATUS_ONSALE)).toBe('onsale');
    expect(status(EventStatus.EVENT_STATUS_OFFSALE)).toBe('offsale');
    expect(status(EventStatus.EVENT_STATUS_CANCELLED)).toBe('cancelled');
    expect(status(EventStatus.EVENT_STATUS_POSTPONED)).toBe('postponed');
    expect(status(EventStatus.EVENT_STATUS_RESCHEDULED)).toBe('rescheduled');
    // A newer producer's status decodes as UNRECOGNIZED.
    const unknown = Event.encode(Event.fromPartial({ id: 'E4' })).finish();
    const withStatus9 = Buffer.concat([Buffer.from(unknown), Buffer.from([208, 1, 9])]);
    expect(catalogEventOf(Event.decode(withStatus9)).status).toBe('unrecognized');
  });
});

describe('availabilityUpdateOf (availability-changed → the synchronisation)', () => {
  it('takes the event, scope, counts, observation time and sequence', () => {
    const update = availabilityUpdateOf(
      AvailabilityChanged.fromPartial({
        eventId: 'A1',
        partnerId: 'P1',
        scope: SyncScope.SYNC_SCOPE_PARTIAL,
        sequence: 12,
        totalAvailable: 40,
        observedAt: new Date('2026-01-01T10:00:00Z'),
        areas: [
          { areaId: 'AR1', available: 5, unavailable: 3 },
          { levelId: 'L1', sectionId: 'S2', available: 0, priceLevelId: 'PL1' },
        ],
      }),
    );
    expect(update).toEqual({
      eventId: 'A1',
      scope: 'partial',
      sequence: 12,
      totalAvailable: 40,
      observedAt: new Date('2026-01-01T10:00:00Z'),
      areas: [
        { areaId: 'AR1', levelId: '', sectionId: '', available: 5 },
        { areaId: '', levelId: 'L1', sectionId: 'S2', available: 0 },
      ],
    });
  });

  it('maps a full scope, an unset one and an unknown one, and keeps a missing time absent', () => {
    const scope = (value: SyncScope) =>
      availabilityUpdateOf(AvailabilityChanged.fromPartial({ eventId: 'A1', scope: value }));
    expect(scope(SyncScope.SYNC_SCOPE_FULL).scope).toBe('full');
    expect(scope(SyncScope.SYNC_SCOPE_UNSPECIFIED).scope).toBe('unspecified');
    expect(scope(SyncScope.UNRECOGNIZED).scope).toBe('unspecified');
    expect(scope(SyncScope.SYNC_SCOPE_FULL).observedAt).toBeUndefined();
  });
});
