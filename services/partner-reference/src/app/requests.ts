import type { OrderAction } from '../domain/booking.js';

/**
 * What the 3P API's use cases take: values already parsed and checked by the port (dates as
 * Dates, amounts as minor units, enumerations as their values). ports/http/ builds them from query
 * strings and bodies.
 */

export type EventSort = 'DATE,NAME' | 'NAME,DATE';

export interface ListEventsQuery {
  venueId: string;
  /** Events modified at or after it. */
  since: Date;
  size: number;
  page: number;
  sort: EventSort;
}

export type AvailabilityDetail = 'overview' | 'seats';

export interface AvailabilityQuery {
  eventId: string;
  /** One area: the one of this level and section; absent = every area. */
  place?: { levelId: string; sectionId: string };
  detail: AvailabilityDetail;
}

/** One line of a booking: a quantity of a price type, best available or named seats. */
export interface BookingLine {
  priceTypeId: string;
  quantity: number;
  areaId?: string;
  priceLevelId?: string;
  /** Exactly these seats (as many as `quantity`, none twice), all in `areaId`. */
  seatIds?: string[];
  accessCode?: string;
}

export interface BookingInput {
  eventId: string;
  language: string;
  channelType: string;
  /** The platform's reference (cart id): a repeat answers the live booking of it. */
  externalReference?: string;
  lines: BookingLine[];
}

export interface ConfirmInput {
  token: string;
  ticketsAmountMinor: number;
  ticketsQuantity: number;
  externalOrderId?: string;
  paymentMethodType: string;
  deliveryMethodType: string;
  channelType: string;
}

export interface OrderActionInput {
  orderId: string;
  action: OrderAction;
  channelType: string;
  /** CANCEL only: the tickets to cancel (a partial cancel); absent = the whole order. */
  ticketIds?: string[];
}

/** `GET /orders`: one transaction by its token, or an event's of a period (`start` ≤ t < `end`). */
export type OrdersQuery = { size: number; page: number } & (
  { inventoryToken: string } | { eventId: string; start: Date; end: Date }
);
