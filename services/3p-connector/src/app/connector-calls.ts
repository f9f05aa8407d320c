/**
 * What the runtime calls of cart and reconciler take and answer (ConnectorRuntime), addressed by
 * platform event id. ports/grpc maps them from and to the `marquee.partner.v1` messages.
 */
import type { AreaAvailability } from '../domain/availability.js';
import type { Money } from '../domain/discovery-event.js';

/** A ticket the partner holds or sold. */
export interface HeldTicket {
  ticketId: string;
  areaId: string;
  /** Empty when the partner gave none. */
  section: string;
  row: string;
  seat: string;
  priceLevelId: string;
  priceTypeId: string;
  price: Money;
}

/** A partner transaction's status; `UNSPECIFIED` for one the 3P API does not name. */
export type PartnerOrderStatus =
  'UNSPECIFIED' | 'BOOKED' | 'RELEASED' | 'EXPIRED' | 'CONFIRMED' | 'PRINTED' | 'CANCELLED';

/** A booking or order as the partner reports it, with the platform ids it belongs to. */
export interface PartnerOrder {
  partnerId: string;
  eventId: string;
  partnerEventId: string;
  inventoryToken: string;
  /** Empty while it is only a booking. */
  inventoryOrderId: string;
  status: PartnerOrderStatus;
  /** The booking's external reference; empty when none. */
  cartId: string;
  /** The order's external id; empty when none. */
  orderId: string;
  tickets: HeldTicket[];
  ticketsAmount: Money;
  createdAt: Date;
  updatedAt?: Date | undefined;
  expiresAt?: Date | undefined;
}

export interface BookingCall {
  eventId: string;
  cartId: string;
  lines: {
    /** Empty: any area. */
    areaId: string;
    /** Empty: any price level. */
    priceLevelId: string;
    priceTypeId: string;
    quantity: number;
    /** Empty: best available. */
    seatIds: string[];
    /** Empty: none given. */
    accessCode: string;
  }[];
  /** Empty: `en-us`. */
  language: string;
  /** Empty: `INTERNET`. */
  channelType: string;
}

export interface HeldBooking {
  inventoryToken: string;
  expiresAt: Date;
  tickets: HeldTicket[];
  total: Money;
}

export interface ReleaseCall {
  eventId: string;
  inventoryToken: string;
}

export interface OrderCall {
  eventId: string;
  inventoryToken: string;
  orderId: string;
  ticketsAmount?: Money | undefined;
  ticketsQuantity: number;
  /** Empty: `UN`. */
  paymentMethodType: string;
  /** Empty: `UN`. */
  deliveryMethodType: string;
  /** Empty: `INTERNET`. */
  channelType: string;
}

export interface ConfirmedOrder {
  inventoryOrderId: string;
  tickets: HeldTicket[];
}

export interface AvailabilityCall {
  eventId: string;
  /** With `sectionId` (both or neither): the areas of one level and section only. */
  levelId: string;
  sectionId: string;
  withSeats: boolean;
}

export interface AvailabilityRead {
  eventId: string;
  areas: AreaAvailability[];
  totalAvailable: number;
  observedAt: Date;
}

export type OrderActionType = 'PRINT' | 'ROLLBACK_PRINT' | 'CANCEL';

export interface OrderActionCall {
  eventId: string;
  inventoryOrderId: string;
  /** Undefined for an action the runtime does not know (refused as invalid). */
  action: OrderActionType | undefined;
  orderId: string;
  language: string;
  channelType: string;
  printMessages: string[];
  /** CANCEL of these tickets only (a partial cancel). */
  ticketIds: string[];
}

export interface OrderActionResult {
  /** Absent when the cancel was queued. */
  order?: PartnerOrder | undefined;
  queued: boolean;
}

export interface OrderQuery {
  eventId: string;
  inventoryOrderId: string;
}

export interface OrdersQuery {
  eventId: string;
  /** By inventory token; else the transactions of `startTime` … `endTime`. */
  inventoryToken: string;
  startTime?: Date | undefined;
  endTime?: Date | undefined;
}

export interface AccessCodeCall {
  eventId: string;
  code: string;
}
