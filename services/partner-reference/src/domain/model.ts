/**
 * The records partner-reference keeps, in its own terms (camelCase, amounts in minor units as
 * integers like the platform's `Money`, instants as Dates). The 3P API's snake_case shapes are
 * mapped at the edges: ports/http for requests and answers, adapters/ for stored documents (which
 * keep the field names they were first written with; see the README, "Storage").
 *
 * Each record is one stored document with a string `id` and the store's `version`
 * (compare-and-set).
 */
export interface VersionedRecord {
  id: string;
  version: number;
}

export interface VenueRecord extends VersionedRecord {
  name: string;
  city: string;
  country: string;
  timezone: string;
  manifestIds: string[];
  createdAt: Date;
}

// ---------------------------------------------------------------------------------------------
// Manifests

export interface Seat {
  id: string;
  row: string;
  number: string;
}

export interface Area {
  id: string;
  name: string;
  levelId?: string;
  sectionId?: string;
  priceLevelId: string;
  /** General admission: counted places, no seats. */
  generalAdmission: boolean;
  /** Places of the area (the number of seats for reserved seating). */
  capacity: number;
  /** Reserved seating only, in order (rows are runs of seats with the same `row`). */
  seats?: Seat[];
}

export interface Manifest {
  id: string;
  venueId: string;
  name: string;
  levels: Array<{ id: string; name: string; position: number }>;
  sections: Array<{ id: string; name: string }>;
  priceLevels: Array<{ id: string; name: string }>;
  areas: Area[];
}

/** A seating plan of a venue; never changed once created (events refer to it). */
export interface ManifestRecord extends VersionedRecord {
  venueId: string;
  manifest: Manifest;
}

// ---------------------------------------------------------------------------------------------
// Logos and tax plans

export interface LogoRecord extends VersionedRecord {
  format: string;
  /** Base64 of the image. */
  data: string;
}

export interface TaxRate {
  name: string;
  /** Percent as a decimal string (`"20.00"`): a rate, not money. */
  rate: string;
}

export interface TaxPlanRecord extends VersionedRecord {
  name: string;
  rates: TaxRate[];
}

// ---------------------------------------------------------------------------------------------
// Bookings and orders

/** The transaction states of the 3P API (see booking.ts for the machine). */
export type TransactionStatus =
  'BOOKED' | 'RELEASED' | 'EXPIRED' | 'CONFIRMED' | 'PRINTED' | 'CANCELLED';

/** One place of a booking or order. */
export interface Ticket {
  ticketId: string;
  areaId: string;
  levelId?: string;
  sectionId?: string;
  /** Empty for general admission. */
  row: string;
  seat: string;
  seatId?: string;
  generalAdmission: boolean;
  priceLevelId: string;
  priceTypeId: string;
  /** Face value, minor units of the booking's currency. */
  amountMinor: number;
}

/**
 * A booking, and once confirmed its order: one record per inventory token, its status the
 * authority on what the seats of the token are (the inventory follows it, see inventory.ts).
 */
export interface BookingRecord extends VersionedRecord {
  eventId: string;
  status: TransactionStatus;
  language: string;
  channelType: string;
  externalReference?: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  currency: string;
  /** Sum of the tickets' amounts, minor units. */
  ticketsAmountMinor: number;
  ticketsQuantity: number;
  tickets: Ticket[];
  /** Set at confirmation. */
  orderId?: string;
  externalOrderId?: string;
  confirmedAt?: Date;
  paymentMethodType?: string;
  deliveryMethodType?: string;
  /** Tickets cancelled by partial cancels (CANCEL with `tickets`); their places are for sale again. */
  cancelledTicketIds?: string[];
}

/** Points a platform reference (cart id) of an event at its latest booking: idempotent holds. */
export interface BookingReferenceRecord extends VersionedRecord {
  token: string;
}

export const bookingReferenceId = (eventId: string, externalReference: string): string =>
  `${eventId}\u0000${externalReference}`;

/** A page of a listing: what was asked and how many there are in all. */
export interface PageOf<T> {
  items: T[];
  size: number;
  number: number;
  totalElements: number;
}
