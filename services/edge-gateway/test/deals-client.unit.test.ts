import { DealEvent, DealState, Exclusivity } from '@marquee/proto/deals/v1';
import { describe, expect, it } from 'vitest';
import { toAmount, toRecord, toSearchEvent } from '../src/adapters/deals-client.js';

describe('deals gRPC answers → the deals API search result', () => {
  it('maps every field, with public numbers as ids and prices in major units', () => {
    const sut = toSearchEvent(
      DealEvent.fromPartial({
        eventId: 'E1',
        eventName: 'Summer Jam',
        eventDate: new Date('2030-06-02T00:00:00Z'),
        onsaleOnDate: new Date('2030-02-01T15:00:00Z'),
        eventDetailsLink: 'https://t.example/e/1',
        minPrice: { amountMinor: 2550, currency: 'USD' },
        maxPrice: { amountMinor: 9900, currency: 'USD' },
        deals: [
          { name: 'Two for one', description: 'BOGO', offerCode: 'TWO' },
          { name: 'Early bird', description: 'Cheaper', offerCode: '' },
        ],
        attractions: [{ id: 'K8vZ917', name: 'The Band', number: 123 }],
        venue: {
          id: 'KovZ1',
          name: 'Arena',
          number: 42,
          location: { latitude: 40.75, longitude: -73.99 },
        },
        majorGenres: [{ id: 'g-rock', name: 'Rock', number: 7 }],
        minorGenres: [{ id: 'g-indie', name: 'Indie', number: 8 }],
      }),
    );

    expect(sut).toEqual({
      eventId: 'E1',
      eventName: 'Summer Jam',
      eventDate: '2030-06-02T00:00:00.000Z',
      onsaleOnDate: '2030-02-01T15:00:00.000Z',
      eventDetailsLink: 'https://t.example/e/1',
      minPrice: 25.5,
      maxPrice: 99,
      currency: 'USD',
      deals: [
        { dealName: 'Two for one', dealDescription: 'BOGO', dealOfferCode: 'TWO' },
        { dealName: 'Early bird', dealDescription: 'Cheaper' },
      ],
      attractions: [{ attractionId: 123, attractionName: 'The Band' }],
      venue: { venueId: 42, venueName: 'Arena', venueLatitude: 40.75, venueLongitude: -73.99 },
      categorization: {
        majorGenres: [{ name: 'Rock', id: 7 }],
        minorGenres: [{ name: 'Indie', id: 8 }],
      },
    });
  });

  it('omits what the event does not have instead of sending zeros', () => {
    const sut = toSearchEvent(
      DealEvent.fromPartial({
        eventId: 'E2',
        eventName: 'Bare',
        venue: { id: 'v', name: 'Hall', number: 5 },
      }),
    );
    expect(sut).toEqual({
      eventId: 'E2',
      eventName: 'Bare',
      eventDetailsLink: '',
      deals: [],
      attractions: [],
      venue: { venueId: 5, venueName: 'Hall' },
      categorization: { majorGenres: [], minorGenres: [] },
    });
  });

  it('converts minor units by the currency exponent', () => {
    expect(toAmount({ amountMinor: 2550, currency: 'USD' })).toBe(25.5);
    expect(toAmount({ amountMinor: 3000, currency: 'JPY' })).toBe(3000);
    expect(toAmount({ amountMinor: 12345, currency: 'KWD' })).toBe(12.345);
  });

  it('maps a deal record for the admin API', () => {
    expect(
      toRecord({
        id: 'D1',
        eventId: 'E1',
        name: 'n',
        description: 'd',
        offerCode: '',
        exclusivity: Exclusivity.EXCLUSIVITY_NONEXCLUSIVE,
        state: DealState.DEAL_STATE_ENDED,
        version: 2,
        createdAt: new Date('2030-01-01T00:00:00Z'),
        updatedAt: new Date('2030-01-02T00:00:00Z'),
      }),
    ).toEqual({
      id: 'D1',
      eventId: 'E1',
      dealName: 'n',
      dealDescription: 'd',
      exclusivity: 'NONEXCLUSIVE',
      state: 'ENDED',
      version: 2,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-02T00:00:00.000Z',
    });
  });
});
