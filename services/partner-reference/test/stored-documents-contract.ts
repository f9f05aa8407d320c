import type { ServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import {
  COLLECTIONS,
  createPartnerRepositories,
  type BookingDocument,
  type EventDocument,
  type ManifestDocument,
} from '../src/adapters/stores.js';
import { eventDetails } from './fixtures.js';

/** Documents as partner-reference has always written them: the 3P shapes under `event`, … */
const legacyEvent: Omit<EventDocument, 'version'> = {
  id: 'E1',
  venueId: 'V1',
  status: 'ON_SALE',
  event: {
    event_id: 'E1',
    last_modification: '2030-01-02T00:00:00.000Z',
    venue_id: 'V1',
    venue_info: { name: 'Hall' },
    organization_info: { promoter_id: 'P', promoter_name: 'Promoter' },
    manifest_id: 'M1',
    text_infos: [{ lang: 'en-us', name: 'Show' }],
    maximum_tickets_quantity: 4,
    genre_info: [],
    date_time: '2030-03-01T20:00:00+01:00',
    date_time_properties: { date_hidden: false, time_hidden: false },
    timezone: 'Europe/Paris',
    currency: 'EUR',
    visibility: { default_visibility: 'VISIBLE' },
    price_levels: [{ id: 'PL1', text_infos: [] }],
    price_types: [{ id: 'ADULT', regular: true, text_infos: [] }],
    face_value_prices: [
      {
        price_period: {
          id: 'P1',
          start_date_time: '2030-01-01T00:00:00Z',
          end_date_time: '2030-03-01T20:00:00+01:00',
        },
        prices: [{ price_level_id: 'PL1', price_type_id: 'ADULT', amount: '2500' }],
      },
    ],
  },
  createdAt: new Date('2030-01-01T00:00:00Z'),
  lastModifiedAt: new Date('2030-01-02T00:00:00.000Z'),
  startsAt: new Date('2030-03-01T19:00:00Z'),
  sortName: 'show',
};

const legacyBooking: Omit<BookingDocument, 'version'> = {
  id: 'B-1',
  eventId: 'E1',
  status: 'CONFIRMED',
  language: 'en-us',
  channelType: 'INTERNET',
  createdAt: new Date('2030-01-03T00:00:00Z'),
  updatedAt: new Date('2030-01-03T00:01:00Z'),
  expiresAt: new Date('2030-01-03T00:10:00Z'),
  currency: 'EUR',
  ticketsAmount: '2500',
  ticketsQuantity: 1,
  tickets: [
    {
      ticket_id: 'B-1-1',
      area_id: 'GA',
      row: '',
      seat: '',
      general_admission: true,
      price_level_id: 'PL1',
      price_type_id: 'ADULT',
      amount: '2500',
    },
  ],
  orderId: 'O-B-1',
  confirmedAt: new Date('2030-01-03T00:01:00Z'),
};

const legacyManifest: Omit<ManifestDocument, 'version'> = {
  id: 'M1',
  venueId: 'V1',
  manifest: {
    manifest_id: 'M1',
    venue_id: 'V1',
    name: 'Standing',
    levels: [],
    sections: [],
    price_levels: [{ id: 'PL1', name: 'GA' }],
    areas: [{ id: 'GA', name: 'GA', price_level_id: 'PL1', general_admission: true, capacity: 10 }],
  },
};

/**
 * What the repositories read and write as documents, on memory and on the Mongo-wire server.
 * `make` gives stores whose collections of one name are one collection.
 */
export function storedDocumentsContract(name: string, make: () => Promise<ServiceStores>): void {
  describe(`stored documents (${name})`, () => {
    it('reads documents written in the 3P shapes as domain records', async () => {
      const stores = await make();
      await stores.collection<EventDocument>(COLLECTIONS.events).insert(legacyEvent);
      await stores.collection<BookingDocument>(COLLECTIONS.bookings).insert(legacyBooking);
      await stores.collection<ManifestDocument>(COLLECTIONS.manifests).insert(legacyManifest);
      const sut = createPartnerRepositories(stores);

      const event = await sut.events.get('E1');
      expect(event).toMatchObject({ id: 'E1', venueId: 'V1', sortName: 'show', version: 1 });
      expect(event!.details).toMatchObject({
        manifestId: 'M1',
        dateTime: '2030-03-01T20:00:00+01:00',
        faceValuePrices: [{ prices: [{ priceTypeId: 'ADULT', amountMinor: 2500 }] }],
      });
      const booking = await sut.bookings.get('B-1');
      expect(booking).toMatchObject({
        ticketsAmountMinor: 2500,
        orderId: 'O-B-1',
        tickets: [{ ticketId: 'B-1-1', generalAdmission: true, amountMinor: 2500 }],
      });
      expect((await sut.manifests.get('M1'))!.manifest.areas[0]).toEqual({
        id: 'GA',
        name: 'GA',
        priceLevelId: 'PL1',
        generalAdmission: true,
        capacity: 10,
      });
      // Filters and sorts name the documents' top-level fields, which the records share.
      expect(
        (await sut.bookings.find({ eventId: 'E1', status: 'CONFIRMED' })).map((b) => b.id),
      ).toEqual(['B-1']);
    });

    it('writes records back in the same shapes, so old and new documents are alike', async () => {
      const stores = await make();
      const raw = stores.collection<EventDocument>(COLLECTIONS.events);
      await raw.insert(legacyEvent);
      const bookings = stores.collection<BookingDocument>(COLLECTIONS.bookings);
      await bookings.insert(legacyBooking);
      const sut = createPartnerRepositories(stores);

      const event = (await sut.events.get('E1'))!;
      const { version, ...rest } = event;
      await sut.events.update('E1', version, rest);
      const { version: _v, ...rewritten } = (await raw.get('E1'))!;
      expect(rewritten).toEqual(legacyEvent);

      const booking = (await sut.bookings.get('B-1'))!;
      await sut.bookings.update('B-1', booking.version, { ...booking, status: 'PRINTED' });
      expect(await bookings.get('B-1')).toMatchObject({
        ticketsAmount: '2500',
        tickets: legacyBooking.tickets,
        status: 'PRINTED',
      });

      await sut.events.insert({
        ...rest,
        id: 'E2',
        details: eventDetails('Other', '2030-04-01T20:00:00+02:00'),
      });
      expect((await raw.get('E2'))!.event).toMatchObject({
        event_id: 'E2',
        last_modification: '2030-01-02T00:00:00.000Z',
        date_time: '2030-04-01T20:00:00+02:00',
        face_value_prices: [{ prices: [{ amount: '5000' }] }],
      });
    });
  });
}
