import type { FanSession } from '../domain/fan-session.js';
import type { ResaleListing } from '../domain/listing.js';
import type { Money } from '@marquee/platform/money';
import type { AreaSeat, PicksEvent } from '../domain/picks.js';

/** A stored record with the store's version (compare-and-set). */
export type Stored<T> = T & { version: number };

export interface FanSessionRepository {
  get(id: string): Promise<Stored<FanSession> | undefined>;
  /** Kind `already_exists` when the id is taken. */
  insert(session: FanSession): Promise<Stored<FanSession>>;
  /** Compare-and-set (kind `aborted` when stale). */
  update(session: FanSession, expectedVersion: number): Promise<Stored<FanSession>>;
  /** Deletes sessions that expired before `before`; resolves how many. */
  purgeExpiredBefore(before: Date, limit: number): Promise<number>;
}

export interface ListingQuery {
  eventId: string;
  activeOnly: boolean;
  offset: number;
  limit: number;
}

export interface ListingRepository {
  get(id: string): Promise<Stored<ResaleListing> | undefined>;
  insert(listing: ResaleListing): Promise<Stored<ResaleListing>>;
  /** Compare-and-set (kind `aborted` when stale). */
  update(listing: ResaleListing, expectedVersion: number): Promise<Stored<ResaleListing>>;
  /** Listings of an event that may be on sale (LISTED, or HELD whose hold may have ended). */
  findActive(eventId: string): Promise<Stored<ResaleListing>[]>;
  /** Newest first. */
  list(query: ListingQuery): Promise<{ listings: ResaleListing[]; total: number }>;
  /** Listings of tickets of the orders `orderIds` (their sellers' orders), any state. */
  listByOrders(orderIds: readonly string[]): Promise<Stored<ResaleListing>[]>;
}

/**
 * Who holds a ticket now, one record per `<event id>.<ticket id>`, created when the ticket is first
 * listed (until then the buyer of its original order holds it). `listingId` is the listing that claims
 * the ticket while it is on sale: a ticket is in at most one active listing.
 */
export interface TicketOwnership {
  id: string;
  eventId: string;
  ticketId: string;
  /** The order that holds the ticket now (the original order, then each resale buyer's order). */
  orderId: string;
  ownerAppId: string;
  ownerFanId: string;
  thirdPartyAccountId: string;
  /** The listing claiming the ticket; empty when none. */
  listingId: string;
  /** Earlier holders, oldest first. */
  previous: { orderId: string; listingId: string; until: Date }[];
  updatedAt: Date;
}

export interface OwnershipRepository {
  get(id: string): Promise<Stored<TicketOwnership> | undefined>;
  insert(record: TicketOwnership): Promise<Stored<TicketOwnership>>;
  update(record: TicketOwnership, expectedVersion: number): Promise<Stored<TicketOwnership>>;
  /** Tickets the fan holds now (`ownerFanId`), at most `limit`. */
  listByFan(fanId: string, limit: number): Promise<Stored<TicketOwnership>[]>;
}

/** A ticket of a confirmed order, as the cart's orders record it. */
export interface OrderTicketView {
  ticketId: string;
  areaId: string;
  section: string;
  row: string;
  seat: string;
  generalAdmission: boolean;
  priceLevelId: string;
  priceTypeId: string;
  faceValue: Money;
}

/** An order as listing needs it. */
export interface OrderView {
  id: string;
  eventId: string;
  confirmed: boolean;
  appId: string;
  fanId: string;
  thirdPartyAccountId: string;
  tickets: OrderTicketView[];
}

/** The cart's orders (cart core's application service). */
export interface OrderLookup {
  getOrder(orderId: string): Promise<OrderView | undefined>;
}

/**
 * The seats a gate has admitted (secure-entry's `ListAdmittedSeats`): an admitted seat is never
 * listed for resale. Rejects when secure-entry cannot answer (a listing is then refused, not made).
 */
export interface AdmittedSeats {
  /** The ticket ids among `ticketIds` of the event whose seat a gate admitted, under any owner. */
  admitted(eventId: string, ticketIds: readonly string[]): Promise<string[]>;
}

/** The cart's event projection as top picks needs it; `undefined` for an event not sold here. */
export interface PicksEventSource {
  get(eventId: string): Promise<PicksEvent | undefined>;
}

/**
 * Live seats of reserved areas (3p-connector `GetAvailability` with seats), asked for only when the
 * projection knows counts but not seats. May reject (partner down): top picks then uses counts.
 */
export interface LiveSeats {
  availableSeats(eventId: string): Promise<Map<string, AreaSeat[]>>;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

export interface TopPicksIds {
  /** A fan session id: 32 bytes from a CSPRNG, base64url. */
  sessionId(): string;
  /** The key of a listing id: 16 bytes from a CSPRNG, base64url (22 characters). */
  listingKey(): string;
}

export interface TopPicksLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
