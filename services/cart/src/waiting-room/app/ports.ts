import type { AdmissionClaims } from '../domain/token.js';
import type { AdmissionControl, ReservePathSample } from '../domain/admission.js';
import type { WaitingRoomEvent } from '../domain/events.js';
import type { OnSale, QueueTicket } from '../domain/queue.js';

/** A stored record with the store's version (compare-and-set). */
export type Stored<T> = T & { version: number };

/** An on-sale with its admitter's state. */
export interface OnSaleRecord extends OnSale {
  control: AdmissionControl;
  /** The replica running the admitter, until its lease ends (renewed every tick). */
  lease?: { owner: string; until: Date };
  /** The admitter's last tick. */
  tickedAt?: Date;
}

export interface OnSaleRepository {
  get(eventId: string): Promise<Stored<OnSaleRecord> | undefined>;
  /** Kind `already_exists` when the event has one. */
  insert(onSale: OnSaleRecord): Promise<Stored<OnSaleRecord>>;
  /** Compare-and-set (kind `aborted` when stale), with the events it makes true. */
  update(
    onSale: OnSaleRecord,
    expectedVersion: number,
    happened?: readonly WaitingRoomEvent[],
  ): Promise<Stored<OnSaleRecord>>;
  /**
   * The early joiners' order keys as frozen, sorted (written once before `frozenAt` is set, so
   * every replica ranks them alike); undefined before.
   */
  earlyOrder(eventId: string): Promise<string[] | undefined>;
  saveEarlyOrder(eventId: string, sortedKeys: readonly string[]): Promise<void>;
  /** The ids of the events whose queue is on (the admitters' work list). */
  queued(): Promise<string[]>;
}

export interface QueueTicketRepository {
  get(id: string): Promise<Stored<QueueTicket> | undefined>;
  /** The tickets of these ids that exist, in any order. */
  getMany(ids: readonly string[]): Promise<Stored<QueueTicket>[]>;
  /** Kind `already_exists` when the identity holds a ticket of the event for the app already. */
  insert(ticket: QueueTicket): Promise<Stored<QueueTicket>>;
  findByIdentity(
    eventId: string,
    appId: string,
    identity: string,
  ): Promise<Stored<QueueTicket> | undefined>;
  /** Compare-and-set (kind `aborted` when stale), with the events it makes true. */
  update(
    ticket: QueueTicket,
    expectedVersion: number,
    happened?: readonly WaitingRoomEvent[],
  ): Promise<Stored<QueueTicket>>;
  /** The order keys of the event's early joiners (any order). */
  earlyOrderKeys(eventId: string): Promise<string[]>;
  /**
   * The event's WAITING tickets not held back, in admission order (by `orderKey`), at most
   * `limit`.
   */
  nextWaiting(eventId: string, limit: number): Promise<Stored<QueueTicket>[]>;
  /**
   * The event's WAITING tickets held back, of one app when `appId` is given, in admission order
   * (by `orderKey`), at most `limit`.
   */
  nextHeldBack(eventId: string, limit: number, appId?: string): Promise<Stored<QueueTicket>[]>;
  /**
   * The event's tickets ADMITTED at or after `since` (admissions in flight), of one app when
   * `appId` is given. Exact for a `since` up to 10 minutes before the latest one asked (older
   * admissions may be forgotten); after a failed write, it may count an admission too many until
   * `since` passes it, never one too few.
   */
  countAdmittedSince(eventId: string, since: Date, appId?: string): Promise<number>;
  /** The event's WAITING tickets. */
  countWaiting(eventId: string): Promise<number>;
  /** The event's WAITING tickets held back by their app's quota. */
  countHeldBack(eventId: string): Promise<number>;
  /**
   * The event's next late-join sequence number, from 1, atomically, taken for the ticket
   * `ticketId` (which `lateJoiners` then finds at it).
   */
  nextSequence(eventId: string, ticketId: string): Promise<number>;
  /**
   * The event's late joiners holding the sequence numbers from `from` on, at most `count` numbers
   * read (any state, in any order; a number whose ticket was never written or holds another
   * number is left out), and the last number taken so far. Reads by id: no query of the tickets.
   */
  lateJoiners(
    eventId: string,
    from: number,
    count: number,
  ): Promise<{ last: number; tickets: Stored<QueueTicket>[] }>;
}

/** When a fan an edge replica holds long polls for last asked. */
export interface FanPresence {
  ticketId: string;
  seenAtMs: number;
}

/**
 * Fans present by report: each edge replica (`reporter`) reports the fans of an event whose long
 * polls it holds, each with when it last asked, every few seconds; a report replaces the
 * reporter's last. What keeps a waiting fan in the queue without a write per fan.
 */
export interface QueuePresenceRepository {
  /** Replaces the reporter's report for the event (an empty one removes it). */
  replace(
    eventId: string,
    reporter: string,
    reportedAt: Date,
    fans: readonly FanPresence[],
  ): Promise<void>;
  /**
   * When each fan of the event last asked, per the reports made since `since` (the latest over
   * every reporter); older reports are left out (and may be removed).
   */
  seenOf(eventId: string, since: Date): Promise<Map<string, number>>;
}

/** Signs admissions and verifies tokens (an HMAC over the claims, in adapters). */
export interface AdmissionSigner {
  sign(claims: AdmissionClaims): string;
  /** The claims of a token this deployment signed; undefined for anything else. */
  verify(token: string): AdmissionClaims | undefined;
}

/** What the reserves of admitted fans met, per event, since the last call. */
export interface ReservePathProbe {
  sample(eventId: string): ReservePathSample;
}

/**
 * Changes of an event's on-sale as this replica sees them: `until` resolves once `done` holds for
 * the on-sale (read again every few hundred milliseconds while anyone waits on the event), or
 * after `timeoutMs`, whichever comes first.
 */
export interface OnSaleWatch {
  /** Resolves true once `done` held, false when the time ran out (possibly a little early). */
  until(eventId: string, done: (onSale: OnSale) => boolean, timeoutMs: number): Promise<boolean>;
  /**
   * The event's on-sale as read at most a poll ago, one read for every caller meanwhile: what
   * joins and reads of queue tickets go by, so that 10,000 fans asking at once cost one read.
   */
  latest(eventId: string): Promise<Stored<OnSaleRecord> | undefined>;
  /** Forgets what was read of the event (an operator's change on this replica). */
  forget(eventId: string): void;
}

/** What an app holds of an event under its held-ticket quota (cart's carts). */
export interface AppHoldings {
  /** The limit of an app that joined with `heldTicketsPerEvent` (absent: cart's default); 0 = none. */
  limitOf(heldTicketsPerEvent: number | undefined): number;
  /** Tickets the app holds of the event in its live carts (pending, held, paid; not sandbox). */
  ticketsHeld(appId: string, eventId: string): Promise<number>;
}

export interface WaitingRoomClock {
  now(): Date;
}

export interface WaitingRoomIds {
  /**
   * The queue ticket id of one identity's place in an event's queue for an app: the same for the
   * same place (a repeated join is a read by id), unguessable without the deployment's key.
   */
  queueTicketId(place: { eventId: string; appId: string; identity: string }): string;
  /** A uniformly random integer in [0, 2^48). */
  lottery(): number;
}

export interface WaitingRoomSettings {
  /** How long an admission may be spent on a reserve. */
  admissionTtlMs: number;
  /** A waiting fan that has not asked for this long has left the queue. */
  abandonAfterMs: number;
  /** Fans the admitter looks at per tick at most. */
  admitBatch: number;
  /** How long an admitter's lease lasts without a tick. */
  leaseMs: number;
}

export interface WaitingRoomDeps {
  onSales: OnSaleRepository;
  tickets: QueueTicketRepository;
  presence: QueuePresenceRepository;
  signer: AdmissionSigner;
  probe: ReservePathProbe;
  holdings: AppHoldings;
  watch: OnSaleWatch;
  clock: WaitingRoomClock;
  ids: WaitingRoomIds;
  settings: WaitingRoomSettings;
}
