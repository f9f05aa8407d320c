/** The records secure-entry keeps. Secrets are only ever held encrypted (`EncryptedSecret`). */

export type RenderType = 'rotating_symbology' | 'barcode';

/** `segment_type` of rotating tickets (the value the partner cart API shows). */
export const ROTATING_SEGMENT = 'ROTATING_SYMBOLOGY';
/** `segment_type` of static barcode tickets. */
export const BARCODE_SEGMENT = 'BARCODE';

/**
 * AES-256-GCM ciphertext (base64 parts); opened only by secure-entry's secret box. `kid` names the
 * key of `SECURE_ENTRY_SECRET_KEY` that sealed it; absent on secrets sealed before key ids.
 */
export interface EncryptedSecret {
  kid?: string;
  iv: string;
  tag: string;
  data: string;
}

export interface DeviceBinding {
  id: string;
  type: string;
  os: string;
  boundAt: Date;
}

export interface Delivery {
  id: string;
  carrier: string;
  serviceLevel: string;
  description: string;
}

export interface Charge {
  description: string;
  type: 'TICKET' | 'FEE' | 'TAX' | 'DELIVERY';
  subType: string;
  amountMinor: number;
  currency: string;
}

/** An order of the partner cart as secure-entry knows it (from `order-confirmed`). */
export interface EntryOrder {
  id: string;
  version: number;
  /** Hex SHA-256 of the buyer's order token; the token itself is never stored. */
  tokenHash: string;
  appId: string;
  eventId: string;
  partnerId: string;
  customerEmail: string;
  thirdPartyAccountId: string;
  /** The buyer's platform fan id (commerce orders; from the sealed contact). */
  fanId?: string;
  /** When the contact was erased (the fan was deleted): e-mail, account id and fan id are blank. */
  contactErasedAt?: Date;
  delivery: Delivery;
  sandbox: boolean;
  secureEntry: boolean;
  confirmedAt: Date;
  ticketIds: string[];
  voided: boolean;
  voidedAt?: Date;
  /** The device the tickets are bound to (first order read or secure render). */
  device?: DeviceBinding;
  /** `order-cancelled` arrived before `order-confirmed`: nothing may be issued for this order. */
  cancelledBeforeConfirm?: boolean;
  /** Partner ticket ids this (resale) order replaced. */
  replaces?: string[];
}

/**
 * The order without its buyer's contact (docs/security.md, "Personal data"): no e-mail, partner
 * account id or fan id. Tickets, device binding and the rest stay.
 */
export function withoutContact<T extends Omit<EntryOrder, 'version'>>(order: T, at: Date): T {
  const { fanId: _fanId, ...rest } = order;
  return { ...rest, customerEmail: '', thirdPartyAccountId: '', contactErasedAt: at } as T;
}

/** A deleted fan (`fan-deleted`): orders of theirs that arrive later are stored without contact. */
export interface ErasedFan {
  /** The fan id. */
  id: string;
  version: number;
  erasedAt: Date;
}

export type TicketStatus = 'active' | 'voided';
export type VoidReason = 'ORDER_CANCELLED' | 'RESOLD';

export interface Ticket {
  id: string;
  version: number;
  orderId: string;
  eventId: string;
  partnerTicketId: string;
  /** Numeric barcode (`barcode_id`), unique. */
  barcode: string;
  /** The masked barcode shown to the fan (`display_id`). */
  displayId: string;
  section: string;
  row: string;
  seat: string;
  generalAdmission: boolean;
  renderType: RenderType;
  /** Per-ticket secret the rotating secrets derive from, encrypted at rest. */
  secret: EncryptedSecret;
  /** Key generation of the rotating secrets; a refresh re-keys by adding one. */
  generation: number;
  generationAt: Date;
  status: TicketStatus;
  voidReason?: VoidReason;
  voidedAt?: Date;
  charges: Charge[];
  issuedAt: Date;
}

/** What secure-entry needs of an event (from `event-changed`). */
export interface EventTimes {
  id: string;
  version: number;
  eventVersion: number;
  startsAt?: Date;
  deleted: boolean;
}

/** A scanner device admitted to one event's gates. */
export interface Gate {
  id: string;
  version: number;
  name: string;
  eventId: string;
  /** Hex SHA-256 of the gate token's secret part. */
  secretHash: string;
  createdAt: Date;
  revokedAt?: Date;
}

/**
 * The one admission of a seat: inserted once, by id = `seatKeyOf(ticket)` (the double-admission
 * guard). Every owner's ticket of a seat shares the key, so a seat admits once whoever holds it.
 */
export interface Admission {
  id: string;
  version: number;
  ticketId: string;
  /** The partner's ticket id of the seat (empty for admissions recorded before seats were keyed). */
  partnerTicketId?: string;
  orderId: string;
  eventId: string;
  gateId: string;
  timeStep: number;
  /** Hex SHA-256 of the admitting payload (to tell a replay from another payload). */
  payloadHash: string;
  admittedAt: Date;
}

export type ScanResult =
  | 'ADMITTED'
  | 'REPLAYED'
  | 'ALREADY_ADMITTED'
  | 'VOIDED'
  | 'WRONG_EVENT'
  | 'FORGED'
  | 'EXPIRED'
  | 'SUPERSEDED'
  | 'SANDBOX';

/** A scan as published on `ticket-scanned`. */
export interface ScanRecord {
  ticketId: string;
  /** The partner's ticket id of the seat; empty when the payload named no known ticket. */
  partnerTicketId: string;
  orderId: string;
  eventId: string;
  gateId: string;
  result: ScanResult;
  timeStep: number;
  scannedAt: Date;
}

/** The fixed (sealed) part of a token: what the gate learns by opening it. */
export interface FixedPart {
  ticketId: string;
  barcode: string;
  eventId: string;
  generation: number;
  /** Unix seconds. */
  issuedAt: number;
  /** A token of a pre-production (sandbox) order: no gate admits it. */
  sandbox: boolean;
}

/**
 * The key of a seat's one admission: the event and the partner's ticket id, which every owner's
 * ticket of the seat carries (a resale re-issues the ticket under a new id, not the seat). A ticket
 * without a partner ticket id is its own seat.
 */
export const seatKeyOf = (ticket: { id: string; eventId: string; partnerTicketId: string }) =>
  ticket.partnerTicketId ? `seat|${ticket.eventId}|${ticket.partnerTicketId}` : ticket.id;
