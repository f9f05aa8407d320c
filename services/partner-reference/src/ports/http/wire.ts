import type {
  AvailabilityAnswer,
  Booking,
  EventAnswer,
  EventsPage,
  HealthcheckResult,
  LogoAnswer,
  ManifestAnswer,
  Order,
  OrdersPage,
  Page,
  TaxPlanAnswer,
} from '@marquee/partner-api';
import {
  eventToShape,
  manifestToShape,
  opt,
  ticketToShape,
} from '../../adapters/partner-shapes.js';
import type { Availability, EventListing } from '../../app/catalog-reads.js';
import type { HealthState } from '../../app/partner-app.js';
import { printAuthorized, validTicketsOf } from '../../domain/booking.js';
import type { EventRecord } from '../../domain/event.js';
import type {
  BookingRecord,
  LogoRecord,
  Manifest,
  PageOf,
  TaxPlanRecord,
} from '../../domain/model.js';

/**
 * Domain records as the 3P API answers them (snake_case, amounts as strings of minor units,
 * instants as ISO 8601). Records come from the use cases as they stand at the time of the call
 * (a booking past its time-out reads EXPIRED already).
 */

export const pageToWire = (page: PageOf<unknown>): Page => ({
  size: page.size,
  total_elements: page.totalElements,
  total_pages: Math.ceil(page.totalElements / page.size),
  number: page.number,
});

export const healthToWire = (health: HealthState): HealthcheckResult => ({
  id: health.id,
  message: health.message,
  ...opt('venues_to_sync', health.venuesToSync),
});

export const eventToWire = (record: EventRecord): EventAnswer => ({
  event: eventToShape(record),
  status: record.status,
});

export const eventsPageToWire = (page: PageOf<EventListing>): EventsPage => ({
  events_info: page.items.map(({ record, isNew }) => ({
    event: eventToShape(record),
    status: record.status,
    mod_list: [isNew ? 'NEW' : 'MODIFIED'],
  })),
  page: pageToWire(page),
});

export const manifestToWire = (manifest: Manifest): ManifestAnswer => ({
  manifest: manifestToShape(manifest),
});

export const logoToWire = (logo: LogoRecord): LogoAnswer => ({
  logo: { id: logo.id, format: logo.format, data: logo.data },
});

export const taxPlanToWire = (plan: TaxPlanRecord): TaxPlanAnswer => ({
  tax_plan: {
    id: plan.id,
    name: plan.name,
    rates: plan.rates.map((r) => ({ name: r.name, rate: r.rate })),
  },
});

export const availabilityToWire = (availability: Availability): AvailabilityAnswer => ({
  event_id: availability.eventId,
  last_modification: availability.changedAt.toISOString(),
  areas: availability.areas.map(({ area, available, unavailable, availableSeats }) => ({
    area_id: area.id,
    ...opt('level_id', area.levelId),
    ...opt('section_id', area.sectionId),
    price_level_id: area.priceLevelId,
    general_admission: area.generalAdmission,
    available,
    unavailable,
    ...opt(
      'available_seats',
      availableSeats?.map((s) => ({ id: s.id, row: s.row, number: s.number })),
    ),
  })),
});

/** A booking as `POST /bookings` and `DELETE /bookings/{token}` answer it. */
export const bookingToWire = (booking: BookingRecord): Booking => ({
  inventory_token: booking.id,
  event_id: booking.eventId,
  status: booking.status,
  language: booking.language,
  channel_type: booking.channelType,
  ...opt('external_reference', booking.externalReference),
  created_at: booking.createdAt.toISOString(),
  expires_at: booking.expiresAt.toISOString(),
  currency: booking.currency,
  tickets_amount: String(booking.ticketsAmountMinor),
  tickets_quantity: booking.ticketsQuantity,
  tickets: booking.tickets.map(ticketToShape),
});

/**
 * A transaction (booking or order) as the order reads answer it: the tickets a partial cancel
 * took back are not listed while the order goes on; `expires_at` only before confirmation.
 */
export function orderToWire(booking: BookingRecord): Order {
  const valid = validTicketsOf(booking);
  return {
    ...opt('inventory_order_id', booking.orderId),
    inventory_token: booking.id,
    event_id: booking.eventId,
    status: booking.status,
    ...opt('external_reference', booking.externalReference),
    ...opt('external_order_id', booking.externalOrderId),
    print_authorized: printAuthorized(booking.status),
    created_at: booking.createdAt.toISOString(),
    updated_at: booking.updatedAt.toISOString(),
    ...opt(
      'expires_at',
      booking.orderId === undefined ? booking.expiresAt.toISOString() : undefined,
    ),
    ...opt('confirmed_at', booking.confirmedAt?.toISOString()),
    currency: booking.currency,
    tickets_amount: String(valid.amountMinor),
    tickets_quantity: valid.quantity,
    ...opt('payment_method_type', booking.paymentMethodType),
    ...opt('delivery_method_type', booking.deliveryMethodType),
    tickets: valid.tickets.map(ticketToShape),
  };
}

export const ordersPageToWire = (page: PageOf<BookingRecord>): OrdersPage => ({
  orders: page.items.map(orderToWire),
  page: pageToWire(page),
});
