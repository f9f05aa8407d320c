import type { Event } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { publicIdOf } from '../../../src/domain/public-id.js';
import { toDealEvent } from '../../../src/ports/kafka/event-projection.js';

const text = (en: string, extra: Record<string, string> = {}) => ({
  values: { 'en-us': en, ...extra },
});

/** A published event as `event-changed` carries it (only the fields deals reads are filled). */
function anEventMessage(overrides: Partial<Event> = {}): Event {
  return {
    id: 'G5vYZ9abcdefghi',
    version: 3,
    publisherVersion: 1,
    active: true,
    test: false,
    url: 'https://tickets.example.com/e/1',
    names: text('Summer Jam', { 'fr-ca': 'Confiture' }),
    attractions: [
      { ref: { $case: 'id', value: 'K8vZ917' }, names: text('The Band'), resolvedId: 'K8vZ917' },
      {
        ref: { $case: 'source', value: { id: 'a-9', name: 'pub' } },
        names: text('Opener'),
        resolvedId: '',
      },
    ],
    classifications: [
      {
        primary: false,
        segment: undefined,
        genre: { id: 'g-jazz', names: text('Jazz') },
        subGenre: undefined,
      },
      {
        primary: true,
        segment: { id: 'seg', names: text('Music') },
        genre: { id: 'g-rock', names: text('Rock') },
        subGenre: { id: '', names: text('Indie') },
      },
    ],
    dates: {
      start: {
        localDate: '2030-06-01',
        localTime: '20:00:00',
        dateTime: new Date('2030-06-02T00:00:00Z'),
        dateTbd: false,
        dateTba: false,
        timeTba: false,
        noSpecificTime: false,
      },
      access: undefined,
      end: undefined,
      timezone: 'America/New_York',
    },
    images: [],
    outlets: [],
    location: {
      $case: 'place',
      value: {
        names: text('Central Park Stage'),
        address: undefined,
        areaNames: undefined,
        cityNames: text('New York'),
        country: { countryCode: 'us', names: undefined },
        state: { stateCode: 'NY', names: text('New York') },
        postalCode: '10024',
        location: { latitude: 40.78, longitude: -73.96 },
      },
    },
    priceRanges: [
      {
        type: 'PRICE_RANGE_TYPE_STANDARD' as never,
        min: { amountMinor: 3000, currency: 'USD' },
        max: { amountMinor: 8000, currency: 'USD' },
      },
      {
        type: 'PRICE_RANGE_TYPE_STANDARD' as never,
        min: { amountMinor: 2550, currency: 'USD' },
        max: { amountMinor: 9900, currency: 'USD' },
      },
    ],
    promoter: undefined,
    publicVisibility: {
      startDateTime: new Date('2030-01-01T00:00:00Z'),
      endDateTime: undefined,
      visible: true,
    },
    sales: {
      publicSale: {
        startDateTime: new Date('2030-02-01T15:00:00Z'),
        endDateTime: undefined,
        startTbd: false,
      },
    },
    marketIds: [35, 35],
    origin: undefined,
    status: 'EVENT_STATUS_ONSALE' as never,
    ticketing: undefined,
    createdAt: undefined,
    updatedAt: undefined,
    seatmap: undefined,
    package: false,
    ...overrides,
  };
}

describe('event-changed → deals projection', () => {
  it('keeps what a deals result shows and filters on', () => {
    const sut = toDealEvent(anEventMessage());

    expect(sut).toEqual({
      id: 'G5vYZ9abcdefghi',
      eventVersion: 3,
      deleted: false,
      active: true,
      test: false,
      name: 'Summer Jam',
      detailsUrl: 'https://tickets.example.com/e/1',
      startAt: new Date('2030-06-02T00:00:00Z'),
      onsaleAt: new Date('2030-02-01T15:00:00Z'),
      visibleFrom: new Date('2030-01-01T00:00:00Z'),
      price: { minMinor: 2550, maxMinor: 9900, currency: 'USD' },
      attractions: [
        { id: 'K8vZ917', name: 'The Band', number: publicIdOf('attraction', 'K8vZ917') },
        {
          id: 'source:pub:a-9',
          name: 'Opener',
          number: publicIdOf('attraction', 'source:pub:a-9'),
        },
      ],
      venue: {
        id: 'place:central park stage@40.78,-73.96',
        name: 'Central Park Stage',
        number: publicIdOf('venue', 'place:central park stage@40.78,-73.96'),
        latitude: 40.78,
        longitude: -73.96,
      },
      cities: ['new york'],
      states: ['ny', 'new york'],
      country: 'US',
      // The primary classification comes first.
      majorGenres: [
        { id: 'g-rock', name: 'Rock', number: publicIdOf('genre', 'g-rock') },
        { id: 'g-jazz', name: 'Jazz', number: publicIdOf('genre', 'g-jazz') },
      ],
      minorGenres: [{ id: 'name:indie', name: 'Indie', number: publicIdOf('genre', 'name:indie') }],
      marketIds: [35],
    });
  });

  it('a venue reference gives the venue id and name, and the country of the event markets', () => {
    const sut = toDealEvent(
      anEventMessage({
        location: {
          $case: 'venue',
          value: { ref: { $case: 'id', value: 'KovZ1' }, names: text('Arena'), resolvedId: '' },
        },
        marketIds: [202],
      }),
    );

    expect(sut.venue).toEqual({ id: 'KovZ1', name: 'Arena', number: publicIdOf('venue', 'KovZ1') });
    expect(sut.country).toBe('GB');
    expect(sut.cities).toEqual([]);
  });

  it('hidden events are not active; test events are QA data', () => {
    expect(toDealEvent(anEventMessage({ active: false })).active).toBe(false);
    expect(
      toDealEvent(
        anEventMessage({
          publicVisibility: { visible: false, startDateTime: undefined, endDateTime: undefined },
        }),
      ).active,
    ).toBe(false);
    expect(toDealEvent(anEventMessage({ test: true })).test).toBe(true);
  });

  it('leaves out price, dates and venue the event does not have', () => {
    const sut = toDealEvent(
      anEventMessage({
        priceRanges: [],
        dates: undefined,
        sales: undefined,
        location: undefined,
        marketIds: [],
      }),
    );
    expect(sut).not.toHaveProperty('price');
    expect(sut).not.toHaveProperty('startAt');
    expect(sut).not.toHaveProperty('onsaleAt');
    expect(sut).not.toHaveProperty('venue');
    expect(sut).not.toHaveProperty('country');
  });
});
