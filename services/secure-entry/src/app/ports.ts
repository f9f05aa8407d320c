import type {
  Admission,
  EncryptedSecret,
  EntryOrder,
  EventTimes,
  FixedPart,
  Gate,
  ScanRecord,
  Ticket,
  VoidReason,
} from '../domain/model.js';

/** Cryptography of secure-entry (adapters/entry-crypto.ts): AES-256-GCM, HMAC, SHA-256. */
export interface EntryCrypto {
  /** Id of the key `encryptSecret` seals with (the first of `SECURE_ENTRY_SECRET_KEY`). */
  readonly secretKeyId: string;
  /** Encrypts a per-ticket secret for storage. */
  encryptSecret(plain: string): EncryptedSecret;
  /** Opens with whichever key of the ring sealed it; throws, naming no value, when none can. */
  decryptSecret(secret: EncryptedSecret): string;
  /** Seals the fixed part of a token with the active key of the ring (base64url). */
  seal(fixed: FixedPart): string;
  /** Opens a fixed part with any key of the ring; undefined when forged, tampered or unknown key. */
  open(sealed: string): FixedPart | undefined;
  /** The two base32 rotating secrets of a ticket for a key generation and a bound device. */
  rotatingSecrets(ticketSecret: string, generation: number, deviceId: string): [string, string];
  sha256Hex(text: string): string;
  /** Constant-time string equality. */
  equal(a: string, b: string): boolean;
}

/** Fresh random values. */
export interface Randomness {
  /** A 16-digit numeric barcode. */
  barcode(): string;
  /** A per-ticket secret (base64 of 32 bytes). */
  ticketSecret(): string;
  gateId(): string;
  /** The secret part of a gate token (base64url of 32 bytes). */
  gateSecret(): string;
  /** An id for a scan record. */
  scanId(): string;
}

export interface OrderRepository {
  get(id: string): Promise<EntryOrder | undefined>;
  findByTokenHash(tokenHash: string): Promise<EntryOrder | undefined>;
  /**
   * Inserts the order with `ticket-issued` for its tickets in the same write; false when an order
   * with this id exists already.
   */
  insert(order: Omit<EntryOrder, 'version'>, issued: Ticket[]): Promise<boolean>;
  /**
   * Compare-and-set; `voided` (ticket ids) records `ticket-voided` for those tickets in the same
   * write. Kind `aborted` when the version moved.
   */
  update(
    order: EntryOrder,
    voided?: { ticketIds: string[]; reason: VoidReason; at: Date },
  ): Promise<EntryOrder>;
  /** Orders of the fan (`fanId`), at most `limit`. */
  listByFan(fanId: string, limit: number): Promise<EntryOrder[]>;
  /** Orders without a fan id whose id sorts after `after`, by id, at most `limit`. */
  listWithoutFanId(after: string, limit: number): Promise<EntryOrder[]>;
}

/** What cart's order says of its buyer (cart's GetOrder). */
export interface CartOrderContact {
  /** Empty when the order has none (partner orders) or its contact was erased. */
  fanId: string;
  contactErasedAt?: Date;
}

/** cart's orders, read over gRPC. Throws (kind `unavailable`, ...) when cart does not answer. */
export interface CartOrders {
  /** `undefined` when cart has no such order. */
  contactOf(orderId: string): Promise<CartOrderContact | undefined>;
}

/** Where a one-time pass over the orders stands, shared by every replica. */
export interface BackfillProgress {
  /** The last order id done; `''` before the first. */
  after: string;
  done: boolean;
  version: number;
}

export interface BackfillProgressRepository {
  get(name: string): Promise<BackfillProgress | undefined>;
  /**
   * Compare-and-set on `expectedVersion` (`undefined`: creates it); false when another replica
   * moved it first.
   */
  save(
    name: string,
    progress: Omit<BackfillProgress, 'version'>,
    expectedVersion: number | undefined,
  ): Promise<boolean>;
}

/** The fans deleted (`fan-deleted`), by id. */
export interface ErasedFanRepository {
  /** Records the fan as deleted; a fan recorded already stays as it is. */
  record(fanId: string, at: Date): Promise<void>;
  has(fanId: string): Promise<boolean>;
}

export interface TicketRepository {
  get(id: string): Promise<Ticket | undefined>;
  listByOrder(orderId: string): Promise<Ticket[]>;
  getByBarcode(barcode: string): Promise<Ticket | undefined>;
  /** Active tickets of an event with these partner ticket ids. */
  findActive(eventId: string, partnerTicketIds: string[]): Promise<Ticket[]>;
  /** Every ticket (active or voided, of every owner) of an event with these partner ticket ids. */
  findBySeats(eventId: string, partnerTicketIds: string[]): Promise<Ticket[]>;
  /** Every ticket whose id sorts after `after`, by id, at most `limit` (the re-seal's walk). */
  listAfter(after: string, limit: number): Promise<Ticket[]>;
  /** Inserts unless a ticket with this id exists (then resolves the stored one); a barcode clash is kind `already_exists`. */
  insertIfAbsent(ticket: Omit<Ticket, 'version'>): Promise<Ticket>;
  /**
   * Compare-and-set; `voided` records `ticket-voided` (this ticket, keyed by its order) in the
   * same write. Kind `aborted` when the version moved.
   */
  update(ticket: Ticket, voided?: { reason: VoidReason; at: Date }): Promise<Ticket>;
}

export interface EventRepository {
  get(id: string): Promise<EventTimes | undefined>;
  /** Applies a state of `event-changed` unless an equal or newer version is stored. */
  apply(state: Omit<EventTimes, 'version'>): Promise<void>;
}

export interface GateRepository {
  insert(gate: Omit<Gate, 'version'>): Promise<Gate>;
  get(id: string): Promise<Gate | undefined>;
  list(eventId?: string): Promise<Gate[]>;
  update(gate: Gate): Promise<Gate>;
}

export interface AdmissionRepository {
  /**
   * The double-admission guard: inserts the admission (id = ticket id) with `ticket-scanned` in the
   * same write. Resolves `undefined` when this call admitted the ticket, or the earlier admission
   * when one exists: whatever the number of gates or processes, exactly one insert wins.
   */
  admit(admission: Omit<Admission, 'version'>, scan: ScanRecord): Promise<Admission | undefined>;
  /** By admission id (`seatKeyOf`; a ticket id for admissions recorded before seats were keyed). */
  get(id: string): Promise<Admission | undefined>;
  /** The admissions of an event's seats among these partner ticket ids. */
  findSeats(eventId: string, partnerTicketIds: string[]): Promise<Admission[]>;
}

export interface ScanLog {
  /** Records a refused scan and publishes it on `ticket-scanned`. */
  record(id: string, scan: ScanRecord): Promise<void>;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

export interface Log {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
