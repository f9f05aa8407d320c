import type { Manifest, PartnerEvent, Ticket, TransactionStatus } from '@marquee/partner-api';

/**
 * The records partner-reference keeps. Each is one stored document with a string `id` and the
 * store's `version` (compare-and-set). Wire shapes of the 3P API are reused where they are the
 * record itself (manifests, events' fields, tickets), so answers need no mapping.
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

/** A seating plan of a venue; never changed once created (events refer to it). */
export interface ManifestRecord extends VersionedRecord {
  venueId: string;
  manifest: Manifest;
}

export type EventStatus = 'ON_SALE' | 'CANCELED';

/** An event: the 3P API's event fields, its status and what listing needs. */
export interface EventRecord extends VersionedRecord {
  venueId: string;
  status: EventStatus;
  event: PartnerEvent;
  createdAt: Date;
  /** `event.last_modification` as a Date, for range filters. */
  lastModifiedAt: Date;
  /** `event.date_time` as a Date, for sorting. */
  startsAt: Date;
  /** Lower-cased display name (en-us, else the first), for sorting. */
  sortName: string;
}

export interface LogoRecord extends VersionedRecord {
  format: string;
  data: string;
}

export interface TaxPlanRecord extends VersionedRecord {
  name: string;
  rates: Array<{ name: string; rate: string }>;
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
  ticketsAmount: string;
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
