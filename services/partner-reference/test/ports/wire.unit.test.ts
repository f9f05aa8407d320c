import { Booking as BookingSchema, checkAnswer, Order as OrderSchema } from '@marquee/partner-api';
import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { BookingRecord, Ticket } from '../../src/domain/model.js';
import { newEventFrom, eventPatchFrom, healthFrom } from '../../src/ports/http/admin-wire.js';
import {
  availabilityQueryOf,
  bookingInputOf,
  confirmInputOf,
  listEventsQueryOf,
  orderActionInputOf,
  ordersQueryOf,
} from '../../src/ports/http/v1-requests.js';
import {
  availabilityToWire,
  bookingToWire,
  healthToWire,
  orderToWire,
  ordersPageToWire,
} from '../../src/ports/http/wire.js';
import { eventBody, refusal } from '../fixtures.js';

const valid = (schema: TSchema, value: unknown) => {
  const check = checkAnswer(schema, value);
  expect(check.ok ? [] : check.errors).toEqual([]);
};

const ticket = (id: string, amountMinor: number): Ticket => ({
  ticketId: id,
  areaId: 'A1',
  levelId: 'L1',
  row: 'A',
  seat: '1',
  seatId: 'A1-A-1',
  generalAdmission: false,
  priceLevelId: 'PL1',
  priceTypeId: 'ADULT',
  amountMinor,
});

const booking: BookingRecord = {
  id: 'B-1',
  version: 3,
  eventId: 'E1',
  status: 'BOOKED',
  language: 'en-us',
  channelType: 'INTERNET',
  createdAt: new Date('2030-01-01T10:00:00Z'),
  updatedAt: new Date('2030-01-01T10:00:00Z'),
  expiresAt: new Date('2030-01-01T10:10:00Z'),
  currency: 'EUR',
  ticketsAmountMinor: 7500,
  ticketsQuantity: 2,
  tickets: [ticket('B-1-1', 5000), ticket('B-1-2', 2500)],
};

const request = {
  event_id: 'E1',
  language: 'en-us',
  channel_info: { channel_type: 'INTERNET' },
  tickets: [{ price_type_id: 'ADULT', quantity: 2 }],
};

describe('3P requests as use-case inputs', () => {
  it('builds a booking, optional fields absent unless given', () => {
    expect(bookingInputOf(request)).toEqual({
      eventId: 'E1',
      language: 'en-us',
      channelType: 'INTERNET',
      lines: [{ priceTypeId: 'ADULT', quantity: 2 }],
    });
    expect(
      bookingInputOf({
        ...request,
        external_reference: 'cart-1',
        tickets: [
          {
            price_type_id: 'FAN',
            quantity: 1,
            area_id: 'A1',
            price_level_id: 'PL1',
            seat_ids: ['A1-A-1'],
            access_code: 'X',
          },
        ],
      }),
    ).toMatchObject({
      externalReference: 'cart-1',
      lines: [
        {
          priceTypeId: 'FAN',
          areaId: 'A1',
          priceLevelId: 'PL1',
          seatIds: ['A1-A-1'],
          accessCode: 'X',
        },
      ],
    });
  });

  it('refuses bad booking values with their 3P ids', () => {
    const line = (extra: object) => ({
      ...request,
      tickets: [{ ...request.tickets[0]!, ...extra }],
    });
    expect(refusal(() => bookingInputOf({ ...request, language: 'EN' }))).toEqual({
      status: 400,
      id: 110,
    });
    expect(
      refusal(() => bookingInputOf({ ...request, channel_info: { channel_type: 'FAX' } })),
    ).toEqual({ status: 400, id: 111 });
    expect(refusal(() => bookingInputOf(line({ seat_ids: ['a', 'b'] })))).toEqual({
      status: 400,
      id: 1,
    });
    expect(refusal(() => bookingInputOf(line({ area_id: 'A1', seat_ids: ['a'] })))).toEqual({
      status: 400,
      id: 1,
    });
    expect(refusal(() => bookingInputOf(line({ area_id: 'A1', seat_ids: ['a', 'a'] })))).toEqual({
      status: 400,
      id: 1,
    });
  });

  it('reads the amount of a confirmation as minor units; anything else is 207', () => {
    const confirm = (amount: string) =>
      confirmInputOf({
        inventory_token: 'B-1',
        order_info: { tickets_amount: amount, tickets_quantity: 2 },
        payment_info: { payment_method_type: 'CARD' },
        delivery_info: { delivery_method_type: 'DS' },
        channel_info: { channel_type: 'INTERNET' },
      });
    expect(confirm('7500')).toEqual({
      token: 'B-1',
      ticketsAmountMinor: 7500,
      ticketsQuantity: 2,
      paymentMethodType: 'CARD',
      deliveryMethodType: 'DS',
      channelType: 'INTERNET',
    });
    expect(confirm('0').ticketsAmountMinor).toBe(0);
    for (const odd of ['', '75.00', '-1', '1e3', '0x10', '007', 'NaN', '1234567890123456789'])
      expect(refusal(() => confirm(odd))).toEqual({ status: 400, id: 207 });
  });

  it('parses the queries of listings, each bad value with its id', () => {
    expect(
      listEventsQueryOf({ venue: 'V1', last_modification: '2030-01-01T00:00:00+01:00' }),
    ).toEqual({
      venueId: 'V1',
      since: new Date('2029-12-31T23:00:00Z'),
      size: 20,
      page: 0,
      sort: 'DATE,NAME',
    });
    const events = (extra: object) => () =>
      listEventsQueryOf({ venue: 'V1', last_modification: '2030-01-01T00:00:00Z', ...extra });
    expect(refusal(events({ last_modification: '2030-01-01' }))).toEqual({ status: 400, id: 213 });
    expect(refusal(events({ size: '0' }))).toEqual({ status: 400, id: 214 });
    expect(refusal(events({ size: '2.5' }))).toEqual({ status: 400, id: 214 });
    expect(refusal(events({ page: '-1' }))).toEqual({ status: 400, id: 215 });
    expect(refusal(events({ sort: 'price' }))).toEqual({ status: 400, id: 205 });

    expect(ordersQueryOf({ inventory_token: 'B-1' })).toEqual({
      size: 100,
      page: 0,
      inventoryToken: 'B-1',
    });
    const start = '2030-01-01T00:00:00Z';
    expect(ordersQueryOf({ event_id: 'E1', start, end: '2030-01-31T00:00:00Z' })).toMatchObject({
      eventId: 'E1',
      start: new Date(start),
    });
    expect(refusal(() => ordersQueryOf({ event_id: 'E1', start }))).toEqual({ status: 400, id: 1 });
    expect(
      refusal(() => ordersQueryOf({ event_id: 'E1', start, end: '2030-02-02T00:00:00Z' })),
    ).toEqual({ status: 400, id: 213 });
    expect(refusal(() => ordersQueryOf({ event_id: 'E1', start, end: start }))).toEqual({
      status: 400,
      id: 213,
    });
    expect(refusal(() => ordersQueryOf({ inventory_token: 'B', size: '501' }))).toEqual({
      status: 400,
      id: 214,
    });

    expect(availabilityQueryOf('E1', {})).toEqual({ eventId: 'E1', detail: 'overview' });
    expect(availabilityQueryOf('E1', { level_id: 'L', section_id: 'S', detail: 'seats' })).toEqual({
      eventId: 'E1',
      detail: 'seats',
      place: { levelId: 'L', sectionId: 'S' },
    });
    expect(refusal(() => availabilityQueryOf('E1', { level_id: 'L' }))).toEqual({
      status: 400,
      id: 1,
    });
    expect(refusal(() => availabilityQueryOf('E1', { detail: 'all' }))).toEqual({
      status: 400,
      id: 216,
    });
  });

  it('parses order actions, a partial cancel with its tickets', () => {
    const base = { channel_info: { channel_type: 'INTERNET' } };
    expect(orderActionInputOf('O-B-1', { ...base, action: 'CANCEL', tickets: ['t1'] })).toEqual({
      orderId: 'O-B-1',
      action: 'CANCEL',
      channelType: 'INTERNET',
      ticketIds: ['t1'],
    });
    expect(orderActionInputOf('O-B-1', { ...base, action: 'PRINT' })).not.toHaveProperty(
      'ticketIds',
    );
    expect(refusal(() => orderActionInputOf('O-B-1', { ...base, action: 'REFUND' }))).toEqual({
      status: 400,
      id: 204,
    });
  });
});

describe('domain records as 3P answers', () => {
  it('answers a booking with its amounts as strings of minor units', () => {
    const wire = bookingToWire({ ...booking, externalReference: 'cart-1' });
    expect(wire).toMatchObject({
      inventory_token: 'B-1',
      status: 'BOOKED',
      external_reference: 'cart-1',
      created_at: '2030-01-01T10:00:00.000Z',
      expires_at: '2030-01-01T10:10:00.000Z',
      tickets_amount: '7500',
      tickets: [{ ticket_id: 'B-1-1', amount: '5000', level_id: 'L1', seat_id: 'A1-A-1' }, {}],
    });
    expect(bookingToWire(booking)).not.toHaveProperty('external_reference');
    valid(BookingSchema, wire);
  });

  it('answers an order: expires_at before confirmation only, printing while confirmed', () => {
    const before = orderToWire(booking);
    expect(before).toMatchObject({
      print_authorized: false,
      expires_at: '2030-01-01T10:10:00.000Z',
    });
    expect(before).not.toHaveProperty('inventory_order_id');
    valid(OrderSchema, before);

    const confirmed: BookingRecord = {
      ...booking,
      status: 'CONFIRMED',
      orderId: 'O-B-1',
      confirmedAt: new Date('2030-01-01T10:05:00Z'),
      paymentMethodType: 'CARD',
      deliveryMethodType: 'DS',
      externalOrderId: 'X1',
    };
    const after = orderToWire(confirmed);
    expect(after).toMatchObject({
      inventory_order_id: 'O-B-1',
      print_authorized: true,
      confirmed_at: '2030-01-01T10:05:00.000Z',
      external_order_id: 'X1',
      payment_method_type: 'CARD',
    });
    expect(after).not.toHaveProperty('expires_at');
    valid(OrderSchema, after);

    // A partial cancel: the order lists what is left; once cancelled, all it sold.
    const partly = orderToWire({ ...confirmed, cancelledTicketIds: ['B-1-1'] });
    expect(partly).toMatchObject({ tickets_amount: '2500', tickets_quantity: 1 });
    expect(partly.tickets.map((t) => t.ticket_id)).toEqual(['B-1-2']);
    const cancelled = orderToWire({
      ...confirmed,
      status: 'CANCELLED',
      cancelledTicketIds: ['B-1-1'],
    });
    expect(cancelled).toMatchObject({
      print_authorized: false,
      tickets_amount: '7500',
      tickets_quantity: 2,
    });
  });

  it('answers pages with their counts', () => {
    expect(
      ordersPageToWire({ items: [booking], size: 100, number: 0, totalElements: 1 }),
    ).toMatchObject({
      orders: [{ inventory_token: 'B-1' }],
      page: { size: 100, number: 0, total_elements: 1, total_pages: 1 },
    });
    expect(ordersPageToWire({ items: [], size: 20, number: 3, totalElements: 41 }).page).toEqual({
      size: 20,
      number: 3,
      total_elements: 41,
      total_pages: 3,
    });
  });

  it('answers availability, free seats only when asked', () => {
    const area = {
      id: 'A1',
      name: 'Floor',
      levelId: 'L1',
      priceLevelId: 'PL1',
      generalAdmission: false,
      capacity: 2,
    };
    expect(
      availabilityToWire({
        eventId: 'E1',
        changedAt: new Date('2030-01-01T10:00:00Z'),
        areas: [
          {
            area,
            available: 1,
            unavailable: 1,
            availableSeats: [{ id: 'A1-A-2', row: 'A', number: '2' }],
          },
          { area: { ...area, id: 'GA', generalAdmission: true }, available: 5, unavailable: 0 },
        ],
      }),
    ).toEqual({
      event_id: 'E1',
      last_modification: '2030-01-01T10:00:00.000Z',
      areas: [
        {
          area_id: 'A1',
          level_id: 'L1',
          price_level_id: 'PL1',
          general_admission: false,
          available: 1,
          unavailable: 1,
          available_seats: [{ id: 'A1-A-2', row: 'A', number: '2' }],
        },
        {
          area_id: 'GA',
          level_id: 'L1',
          price_level_id: 'PL1',
          general_admission: true,
          available: 5,
          unavailable: 0,
        },
      ],
    });
  });
});

describe('back-office bodies', () => {
  it('read an event body into the domain, the 3P field names mapped', () => {
    const input = newEventFrom(
      eventBody('V1', 'M1', { event_id: 'E9', status: 'CANCELED', secure_entry: true }),
    );
    expect(input).toMatchObject({
      eventId: 'E9',
      venueId: 'V1',
      manifestId: 'M1',
      status: 'CANCELED',
      secureEntry: true,
      maximumTicketsQuantity: 10,
      priceTypes: [{ id: 'ADULT' }, { id: 'PROMO', accessCode: 'SECRET' }],
    });
    expect(input).not.toHaveProperty('timezone');
    expect(input).not.toHaveProperty('organization');
    expect(eventPatchFrom({ maximum_tickets_quantity: 2 })).toEqual({ maximumTicketsQuantity: 2 });
    expect(eventPatchFrom({})).toEqual({});
  });

  it('read the healthcheck drill, its message defaulting to the id’s meaning', () => {
    expect(healthToWire(healthFrom({ id: 902, venues_to_sync: ['V1'] }))).toEqual({
      id: 902,
      message: 'Synchronization required',
      venues_to_sync: ['V1'],
    });
    expect(healthToWire(healthFrom({ id: 0 }))).toEqual({ id: 0, message: 'OK' });
  });
});
