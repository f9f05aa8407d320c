import { Event, type AvailabilityChanged, type AreaAvailability } from '@marquee/proto/catalog/v1';

export const EVENT_ID = 'Z7xQ2mP9kLr4tYb';

/** A partner-imported event as 3p-connector publishes it (catalog.v1 `Event`). */
export function partnerEvent(overrides: Partial<Event> = {}): Event {
  return Event.fromPartial({
    id: EVENT_ID,
    version: 1,
    active: true,
    names: { values: { 'en-US': 'Integration Night' } },
    dates: {
      timezone: 'Europe/London',
      start: { dateTime: new Date('2031-06-01T18:30:00Z') },
    },
    location: {
      $case: 'place',
      value: { country: { countryCode: 'GB' }, cityNames: { values: { 'en-US': 'London' } } },
    },
    sales: {
      publicSale: {
        startDateTime: new Date('2030-01-01T00:00:00Z'),
        endDateTime: new Date('2031-06-01T18:00:00Z'),
      },
    },
    status: 'EVENT_STATUS_ONSALE' as Event['status'],
    origin: {
      kind: {
        $case: 'partnerImport',
        value: { partnerId: 'pPartner0001', partnerEventId: 'E1', partnerVenueId: 'V1' },
      },
    },
    ticketing: {
      manifestId: 'M1',
      maximumTicketsQuantity: 8,
      currency: 'GBP',
      secureEntryEnabled: false,
      priceLevels: [
        { id: 'PL1', names: { values: { 'en-US': 'Stalls' } } },
        { id: 'PL2', names: { values: { 'en-US': 'Circle' } } },
      ],
      priceTypes: [
        { id: '000001', regular: true, names: { values: { 'en-US': 'Adult' } } },
        {
          id: '000002',
          regular: false,
          accessCodeRequired: true,
          names: { values: { 'en-US': 'Fan club' } },
        },
      ],
      pricePeriods: [
        {
          id: 'P1',
          startDateTime: new Date('2030-01-01T00:00:00Z'),
          endDateTime: new Date('2031-01-01T00:00:00Z'),
          prices: [
            {
              priceLevelId: 'PL1',
              priceTypeId: '000001',
              amount: { amountMinor: 5000, currency: 'GBP' },
            },
            {
              priceLevelId: 'PL2',
              priceTypeId: '000001',
              amount: { amountMinor: 3000, currency: 'GBP' },
            },
            {
              priceLevelId: 'PL1',
              priceTypeId: '000002',
              amount: { amountMinor: 4000, currency: 'GBP' },
            },
          ],
        },
        {
          id: 'P2',
          startDateTime: new Date('2031-01-01T00:00:00Z'),
          endDateTime: new Date('2031-06-01T18:00:00Z'),
          prices: [
            {
              priceLevelId: 'PL1',
              priceTypeId: '000001',
              amount: { amountMinor: 6000, currency: 'GBP' },
            },
            {
              priceLevelId: 'PL2',
              priceTypeId: '000001',
              amount: { amountMinor: 3500, currency: 'GBP' },
            },
          ],
        },
      ],
    },
    ...overrides,
  });
}

export function area(overrides: Partial<AreaAvailability> = {}): AreaAvailability {
  return {
    areaId: 'A1',
    levelId: 'L1',
    sectionId: 'S1',
    priceLevelId: 'PL1',
    generalAdmission: false,
    available: 10,
    unavailable: 0,
    availableSeats: [],
    ...overrides,
  };
}

export function availability(
  sequence: number,
  areas: AreaAvailability[],
  scope: 'SYNC_SCOPE_FULL' | 'SYNC_SCOPE_PARTIAL' = 'SYNC_SCOPE_FULL',
): AvailabilityChanged {
  return {
    eventId: EVENT_ID,
    partnerId: 'pPartner0001',
    partnerEventId: 'E1',
    scope: scope as AvailabilityChanged['scope'],
    areas,
    totalAvailable: areas.reduce((s, a) => s + a.available, 0),
    observedAt: new Date('2030-06-01T10:00:00Z'),
    sequence: sequence,
  };
}
