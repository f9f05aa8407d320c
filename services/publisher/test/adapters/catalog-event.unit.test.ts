import { catalogV1 } from '@marquee/proto';
import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../src/domain/published-event.js';
import { toCatalogEvent as sut } from '../../src/adapters/catalog-event.js';
import { EVENT_ID_LENGTH, newEventId } from '../../src/adapters/event-ids.js';

const published = (body: Record<string, unknown>): PublishedEvent => ({
  id: 'Z7r9jZ1A7aFqK0v',
  version: 4,
  appId: 'app-1',
  publisherVersion: 12,
  body: { source: { id: 'acme', name: 'Acme' }, ...body },
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-05T00:00:00Z'),
});

describe('toCatalogEvent', () => {
  it('maps every published field to the event-changed message', () => {
    const event = sut(
      published({
        source: { id: 'acme', name: 'Acme', publishingSource: { id: 'cms', name: 'CMS' } },
        active: false,
        test: true,
        url: 'https://acme.example/e',
        names: { 'en-us': 'Gala' },
        pleaseNotes: { 'en-us': 'No cameras' },
        attractions: [{ id: 'K8vZ9171oZ7' }, { source: { id: 'band-1', name: 'Acme' } }],
        classifications: [
          { primary: true, segment: { id: 'seg' }, genre: { names: { 'en-us': 'Rock' } } },
        ],
        dates: {
          start: {
            localDate: '2026-05-01',
            localTime: '19:30:00',
            dateTime: '2026-05-01T23:30:00Z',
            timeTBA: true,
          },
          end: { approximate: true },
          timezone: 'America/New_York',
        },
        images: [{ url: 'https://i/1.jpg', width: 640, height: 360, ratio: '16_9' }],
        outlets: [{ url: 'https://box', type: 'venueBoxOffice' }],
        place: {
          names: { 'en-us': 'Park' },
          country: { countryCode: 'US' },
          location: { latitude: 1.5, longitude: 2.5 },
        },
        priceRanges: { type: 'standard', currency: 'USD', min: 10.5, max: 99.99 },
        promoter: { id: 'p1', names: { 'en-us': 'Promo' } },
        publicVisibility: { startDateTime: '2026-02-01T00:00:00Z' },
        sales: { public: { startDateTime: '2026-03-01T10:00:00Z', startTBD: false } },
        secret: 'unknown data is not published',
        seatmap: { staticUrl: 'https://maps.example/park.png' },
      }),
    );
    expect(event.seatmap).toEqual({ staticUrl: 'https://maps.example/park.png' });
    expect(event.package).toBe(false);
    expect(sut(published({})).seatmap).toBeUndefined();

    expect(event).toMatchObject({
      id: 'Z7r9jZ1A7aFqK0v',
      version: 4,
      publisherVersion: 12,
      source: { id: 'acme', name: 'Acme', publishingSource: { id: 'cms', name: 'CMS' } },
      active: false,
      test: true,
      url: 'https://acme.example/e',
      names: { values: { 'en-us': 'Gala' } },
      pleaseNotes: { values: { 'en-us': 'No cameras' } },
      attractions: [
        { ref: { $case: 'id', value: 'K8vZ9171oZ7' }, resolvedId: 'K8vZ9171oZ7' },
        { ref: { $case: 'source', value: { id: 'band-1', name: 'Acme' } }, resolvedId: '' },
      ],
      classifications: [
        {
          primary: true,
          segment: { id: 'seg' },
          genre: { id: '', names: { values: { 'en-us': 'Rock' } } },
        },
      ],
      dates: {
        start: {
          localDate: '2026-05-01',
          localTime: '19:30:00',
          dateTime: new Date('2026-05-01T23:30:00Z'),
          timeTba: true,
        },
        end: { approximate: true },
        timezone: 'America/New_York',
      },
      images: [{ url: 'https://i/1.jpg', width: 640, height: 360, ratio: '16_9', fallback: false }],
      outlets: [{ url: 'https://box', type: catalogV1.OutletType.OUTLET_TYPE_VENUE_BOX_OFFICE }],
      location: {
        $case: 'place',
        value: {
          names: { values: { 'en-us': 'Park' } },
          country: { countryCode: 'US' },
          location: { latitude: 1.5, longitude: 2.5 },
        },
      },
      priceRanges: [
        {
          type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
          min: { amountMinor: 1050, currency: 'USD' },
          max: { amountMinor: 9999, currency: 'USD' },
        },
      ],
      promoter: { id: 'p1', names: { values: { 'en-us': 'Promo' } } },
      publicVisibility: { startDateTime: new Date('2026-02-01T00:00:00Z'), visible: true },
      sales: { publicSale: { startDateTime: new Date('2026-03-01T10:00:00Z'), startTbd: false } },
      origin: { kind: { $case: 'published', value: { appId: 'app-1' } } },
      createdAt: new Date('2026-01-01T00:00:00Z'),
      updatedAt: new Date('2026-01-05T00:00:00Z'),
    });
    expect(JSON.stringify(event)).not.toContain('unknown data');
    // Encodable as the topic's protobuf message.
    expect(catalogV1.Event.decode(catalogV1.Event.encode(event).finish()).id).toBe(
      'Z7r9jZ1A7aFqK0v',
    );
  });

  it('resolves the API defaults: active, not test, visible', () => {
    const event = sut(published({ publicVisibility: {} }));
    expect(event).toMatchObject({ active: true, test: false, publicVisibility: { visible: true } });
    expect(event.location).toBeUndefined();
  });

  it('maps a venue by source and uses the currency exponent for money', () => {
    const event = sut(
      published({
        venue: { source: { id: 'hall-1', name: 'Acme' } },
        priceRanges: [{ currency: 'JPY', min: 3000 }],
      }),
    );
    expect(event.location).toEqual({
      $case: 'venue',
      value: {
        ref: { $case: 'source', value: { id: 'hall-1', name: 'Acme' } },
        names: undefined,
        resolvedId: '',
      },
    });
    expect(event.priceRanges[0]?.min).toEqual({ amountMinor: 3000, currency: 'JPY' });
  });

  it.each([
    ['KWD', 45.5, 45_500],
    ['IQD', 25, 25_000],
    ['IDR', 1_500_000, 150_000_000],
    ['HUF', 12_345, 1_234_500],
    ['EUR', 45.5, 4_550],
  ])('keeps %s %d as ISO 4217 minor units (%d)', (currency, amount, minor) => {
    const event = sut(published({ priceRanges: [{ currency, min: amount, max: amount }] }));
    expect(event.priceRanges[0]?.min).toEqual({ amountMinor: minor, currency });
  });
});

describe('newEventId', () => {
  it('makes distinct 15-character alphanumeric ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newEventId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9]{${EVENT_ID_LENGTH}}$`));
  });
});
