import { createServiceStores } from '@marquee/platform/store';
import type { Connection } from 'mongoose';
import { createPartnerRepositories } from '../src/adapters/stores.js';
import type { CreateEventBody, CreateVenueBody } from '../src/ports/http/admin-schemas.js';
import { newEventFrom, newVenueFrom } from '../src/ports/http/admin-wire.js';
import type { BookingInput, BookingLine } from '../src/app/requests.js';
import { BackOffice } from '../src/app/back-office.js';
import { PartnerApp } from '../src/app/partner-app.js';
import type { Clock } from '@marquee/platform/kernel';
import type { PartnerRepositories } from '../src/app/ports.js';
import { randomIds } from '../src/adapters/clock-and-ids.js';
import { PartnerError } from '../src/domain/errors.js';
import { refusalStatus } from '../src/ports/http/v1-routes.js';
import type { EventDetails } from '../src/domain/event.js';

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.now()) {
    this.#now = start;
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

export const inDays = (days: number, from = Date.now()): string =>
  new Date(from + days * 86_400_000).toISOString();

/** A venue with one manifest: a reserved area of `rows` × `perRow` seats (price level PL1), and a GA area (PL2). */
export function venueBody(
  options: { rows?: number; perRow?: number; gaCapacity?: number; id?: string } = {},
): CreateVenueBody {
  const rows = options.rows ?? 5;
  const perRow = options.perRow ?? 10;
  return {
    ...(options.id !== undefined ? { venue_id: options.id } : {}),
    name: 'Test Hall',
    city: 'Lyon',
    country: 'FR',
    timezone: 'Europe/Paris',
    manifests: [
      {
        name: 'Concert',
        levels: [
          { id: 'L1', name: 'Floor', position: 1 },
          { id: 'L2', name: 'Balcony', position: 2 },
        ],
        sections: [
          { id: 'S1', name: 'Centre' },
          { id: 'S2', name: 'Standing' },
        ],
        price_levels: [
          { id: 'PL1', name: 'Seated' },
          { id: 'PL2', name: 'Standing' },
        ],
        areas: [
          {
            id: 'A1',
            name: 'Floor centre',
            level_id: 'L1',
            section_id: 'S1',
            price_level_id: 'PL1',
            general_admission: false,
            rows: Array.from({ length: rows }, (_, i) => ({
              row: String.fromCharCode(65 + i),
              seats: perRow,
            })),
          },
          ...((options.gaCapacity ?? 0) > 0
            ? [
                {
                  id: 'GA',
                  name: 'Standing',
                  level_id: 'L2',
                  section_id: 'S2',
                  price_level_id: 'PL2',
                  general_admission: true,
                  capacity: options.gaCapacity,
                },
              ]
            : []),
        ],
      },
    ],
  };
}

export function eventBody(
  venueId: string,
  manifestId: string,
  overrides: Partial<CreateEventBody> = {},
): CreateEventBody {
  return {
    venue_id: venueId,
    manifest_id: manifestId,
    text_infos: [
      { lang: 'en-us', name: 'Test Concert' },
      { lang: 'fr-fr', name: 'Concert de test' },
    ],
    date_time: inDays(30),
    currency: 'EUR',
    maximum_tickets_quantity: 10,
    price_levels: [
      { id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Seated' }] },
      { id: 'PL2', text_infos: [{ lang: 'en-us', name: 'Standing' }] },
    ],
    price_types: [
      { id: 'ADULT', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] },
      {
        id: 'PROMO',
        regular: false,
        access_code: 'SECRET',
        text_infos: [{ lang: 'en-us', name: 'Promo' }],
      },
    ],
    face_value_prices: [
      {
        price_period: { id: 'P1', start_date_time: inDays(-10), end_date_time: inDays(60) },
        prices: [
          { price_level_id: 'PL1', price_type_id: 'ADULT', amount: '5000' },
          { price_level_id: 'PL1', price_type_id: 'PROMO', amount: '3000' },
          { price_level_id: 'PL2', price_type_id: 'ADULT', amount: '2500' },
        ],
      },
    ],
    ...overrides,
  };
}

/** Everything an event is, in the domain's terms: one price level and type, one period. */
export const eventDetails = (name: string, dateTime: string): EventDetails => ({
  manifestId: 'M1',
  venueInfo: { name: 'Test Hall', city: 'Lyon', country: 'FR' },
  organization: { promoterId: 'P', promoterName: 'Promoter' },
  textInfos: [{ lang: 'en-us', name }],
  maximumTicketsQuantity: 10,
  genres: [],
  dateTime,
  dateTimeProperties: { dateHidden: false, timeHidden: false },
  timezone: 'Europe/Paris',
  currency: 'EUR',
  visibility: { defaultVisibility: 'VISIBLE' },
  priceLevels: [{ id: 'PL1', textInfos: [{ lang: 'en-us', name: 'Seated' }] }],
  priceTypes: [{ id: 'ADULT', regular: true, textInfos: [{ lang: 'en-us', name: 'Adult' }] }],
  faceValuePrices: [
    {
      id: 'P1',
      start: '2029-01-01T00:00:00+01:00',
      end: dateTime,
      prices: [{ priceLevelId: 'PL1', priceTypeId: 'ADULT', amountMinor: 5000 }],
    },
  ],
});

export interface Harness {
  repositories: PartnerRepositories;
  sut: PartnerApp;
  backOffice: BackOffice;
  clock: ManualClock;
}

export function harness(
  options: {
    mongo?: Connection;
    bookingTimeoutMs?: number;
    clock?: ManualClock;
    partialCancel?: boolean;
  } = {},
): Harness {
  const repositories = createPartnerRepositories(createServiceStores(options.mongo));
  const clock = options.clock ?? new ManualClock();
  return {
    repositories,
    clock,
    sut: new PartnerApp({
      repositories,
      clock,
      ids: randomIds,
      bookingTimeoutMs: options.bookingTimeoutMs ?? 600_000,
      ...(options.partialCancel !== undefined ? { partialCancel: options.partialCancel } : {}),
    }),
    backOffice: new BackOffice({ repositories, clock, ids: randomIds }),
  };
}

/** A venue and an event on sale; returns their ids. */
export async function onSaleEvent(
  backOffice: BackOffice,
  options: Parameters<typeof venueBody>[0] & { event?: Partial<CreateEventBody> } = {},
): Promise<{ venueId: string; manifestId: string; eventId: string }> {
  const venue = await backOffice.createVenue(newVenueFrom(venueBody(options)));
  const manifestId = venue.manifestIds[0]!;
  const eventId = await backOffice.createEvent(
    newEventFrom(eventBody(venue.venueId, manifestId, options.event)),
  );
  return { venueId: venue.venueId, manifestId, eventId };
}

/** A booking of the use case: two ADULT tickets by default. */
export const bookingInput = (
  eventId: string,
  lines: BookingLine[] = [{ priceTypeId: 'ADULT', quantity: 2 }],
  extra: Partial<BookingInput> = {},
): BookingInput => ({
  eventId,
  language: 'en-us',
  channelType: 'INTERNET',
  lines,
  ...extra,
});

/** The id of the PartnerError `fn` throws (undefined when it throws none; another error is rethrown). */
export const errorId = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof PartnerError) return error.id;
    throw error;
  }
  return undefined;
};

/** The `{status, id}` of the 3P error body `fn` is refused with (undefined: not refused). */
export const refusal = (fn: () => unknown): { status: number; id: number } | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof PartnerError) return { status: refusalStatus(error), id: error.id };
    throw error;
  }
  return undefined;
};
