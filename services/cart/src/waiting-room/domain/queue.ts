/**
 * The queue of an on-sale: who waits, in what order, and what each fan is told.
 *
 * Order. A fan who joins before the opening draws a lottery number (uniformly random, from the
 * caller): at the opening, the early joiners are ordered by it, so being fastest before the
 * opening buys nothing. A fan who joins after the opening queues behind every early joiner, in
 * arrival order (a sequence number the store hands out atomically). One order key holds both, so
 * one sorted index gives the admission order: `0<lottery><ticket id>` before `1<sequence>`.
 *
 * Rank and position. A fan's rank is its place in that order, from 1. The early joiners' ranks are
 * fixed once the early set is frozen (the opening plus a grace for joins in flight); a late
 * joiner's rank is the early count plus its sequence. `admittedThrough` is the rank up to which
 * fans have been admitted, so a waiting fan's position is its rank minus that.
 *
 * Held back. One app holds at most so many tickets of an event at once (its held-ticket quota,
 * checked again at reserve). A fan whose turn comes while its app has no room under it (tickets in
 * the app's live carts plus its admissions in flight) is held back: it stays WAITING with its
 * place, and is admitted before fans ranked after it once the app has room again. Its app's fans
 * are admitted in rank order, so `heldBackThrough` of the app (the highest rank of its fans
 * admitted since) plays for them the part `admittedThrough` plays for the others.
 */

/** How long a late join's write may trail the opening and still count as early. */
export const JOIN_GRACE_MS = 2_000;

export type QueueTicketState = 'WAITING' | 'ADMITTED' | 'USED' | 'EXPIRED';

/** One fan's place in one event's queue. */
export interface QueueTicket {
  id: string;
  eventId: string;
  appId: string;
  /** `fan:<id>` or `device:<id>` (`queueIdentityOf`). */
  identity: string;
  joinedAt: Date;
  /** Joined before the opening: ordered by lottery at the opening. */
  early: boolean;
  /** Sort key of the admission order (see the module comment). */
  orderKey: string;
  /** A late joiner's arrival sequence from 1 (its rank is the early count plus it). */
  sequence?: number;
  state: QueueTicketState;
  /** When the admitter admitted it (ADMITTED, USED). */
  admittedAt?: Date;
  /** The last time its fan asked about it: a fan that stopped asking has left the queue. */
  seenAt: Date;
  /** The app's held-ticket quota the fan joined with (0 = none); absent: cart's default. */
  heldTicketsPerEvent?: number;
  /**
   * Its turn came while its app had no room under the quota: it waits for the app's room, keeping
   * its place (set once by the admitter, cleared when admitted).
   */
  heldBack?: boolean;
}

/** The waiting room of one event's on-sale. */
export interface OnSale {
  eventId: string;
  opensAt: Date;
  /** Fans queue (and reserves need an admission) while true. */
  queue: boolean;
  /** Set when the early joiners' order was frozen; `earlyCount` is final from then on. */
  frozenAt?: Date;
  earlyCount: number;
  /**
   * Every fan ranked at or below this has been admitted, skipped having left, or held back by its
   * app's quota.
   */
  admittedThrough: number;
  /** Admissions per second over the admitter's last ticks, for the fans' wait estimates. */
  admissionsPerSecond: number;
  /** The event sold out: admissions stopped and every waiting fan is told SOLD_OUT. */
  soldOutAt?: Date;
  /**
   * Per app that had fans held back (app id to rank): the highest rank of its fans admitted, or
   * let go having left, since (0 before any).
   */
  heldBackThrough?: Record<string, number>;
  updatedAt: Date;
}

const KEY_DIGITS = 12;

/** The order key of an early joiner: its lottery number (0 to 2^48 - 1), ties by ticket id. */
export function earlyOrderKey(lottery: number, ticketId: string): string {
  return `0${Math.floor(lottery).toString(16).padStart(KEY_DIGITS, '0')}${ticketId}`;
}

/** Tickets in admission order (by order key), for `Array.prototype.sort`. */
export function byOrderKey(
  a: Pick<QueueTicket, 'orderKey'>,
  b: Pick<QueueTicket, 'orderKey'>,
): number {
  return a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : 0;
}

/** The ticket id an early joiner's order key was made of. */
export function ticketIdOfEarlyKey(orderKey: string): string {
  return orderKey.slice(1 + KEY_DIGITS);
}

/** The order key of a late joiner: its arrival sequence from 1. */
export function lateOrderKey(sequence: number): string {
  return `1${sequence.toString(16).padStart(KEY_DIGITS, '0')}`;
}

/** Whether a join at `at` counts as early (before the opening, or frozen order not yet fixed). */
export function joinsEarly(onSale: OnSale, at: Date): boolean {
  return onSale.frozenAt === undefined && at.getTime() < onSale.opensAt.getTime();
}

/** Whether the early set may be frozen at `now` (the opening and its grace have passed). */
export function mayFreeze(onSale: OnSale, now: Date): boolean {
  return onSale.frozenAt === undefined && now.getTime() >= onSale.opensAt.getTime() + JOIN_GRACE_MS;
}

/** The ranks of the early joiners, from their order keys: 1 for the smallest key. */
export function earlyRanks(orderKeys: readonly string[]): Map<string, number> {
  const sorted = [...orderKeys].sort();
  return new Map(sorted.map((key, i) => [key, i + 1]));
}

/**
 * The longest wait a ticket states: the field that carries it is a 32-bit count of seconds, and a
 * rate that has all but stopped would otherwise give a wait it cannot hold (about 68 years).
 */
export const MAX_WAIT_ESTIMATE_SECONDS = 2 ** 31 - 1;

/** What a fan is told about its queue ticket. */
export type QueueView =
  | {
      status: 'WAITING';
      position?: number;
      estimatedWaitSeconds?: number;
      opensAt: Date;
      /** Held back by its app's quota (`QueueTicket.heldBack`). */
      heldBack?: true;
    }
  | { status: 'ADMITTED'; admittedAt: Date; expiresAt: Date }
  | { status: 'SOLD_OUT' }
  | { status: 'EXPIRED' };

/**
 * The view of `ticket` at `now`. `rank` is the ticket's rank when known (`undefined` before the
 * early order is frozen); the wait estimate divides the position by the on-sale's recent
 * admission rate. An admission lasts `admissionTtlMs`; a used one reads EXPIRED (it was spent on a reserve).
 *
 * A held-back fan's position counts from its app's last admitted fan (`heldBackThrough`): at most
 * the fans ahead of it that its app's room lets through first, and it shrinks as they are. It has
 * no wait estimate: its turn comes when its app's carts free room, not at the queue's rate.
 */
export function viewOf(
  ticket: QueueTicket,
  onSale: OnSale,
  context: { now: Date; rank: number | undefined; admissionTtlMs: number },
): QueueView {
  const { now, rank, admissionTtlMs } = context;
  const { admissionsPerSecond } = onSale;
  if (ticket.state === 'ADMITTED' && ticket.admittedAt) {
    const expiresAt = new Date(ticket.admittedAt.getTime() + admissionTtlMs);
    if (expiresAt.getTime() > now.getTime())
      return { status: 'ADMITTED', admittedAt: ticket.admittedAt, expiresAt };
    return { status: 'EXPIRED' };
  }
  if (ticket.state !== 'WAITING') return { status: 'EXPIRED' };
  if (onSale.soldOutAt) return { status: 'SOLD_OUT' };
  if (rank === undefined) return { status: 'WAITING', opensAt: onSale.opensAt };
  if (ticket.heldBack)
    return {
      status: 'WAITING',
      position: Math.max(1, rank - heldBackThroughOf(onSale, ticket.appId)),
      opensAt: onSale.opensAt,
      heldBack: true,
    };
  const position = Math.max(1, rank - onSale.admittedThrough);
  const opensIn = Math.max(0, onSale.opensAt.getTime() - now.getTime()) / 1000;
  return {
    status: 'WAITING',
    position,
    opensAt: onSale.opensAt,
    ...(admissionsPerSecond > 0
      ? {
          estimatedWaitSeconds: Math.min(
            MAX_WAIT_ESTIMATE_SECONDS,
            Math.ceil(opensIn + position / admissionsPerSecond),
          ),
        }
      : {}),
  };
}

/** The highest rank of `appId`'s fans admitted since it had fans held back; 0 when none. */
export function heldBackThroughOf(onSale: Pick<OnSale, 'heldBackThrough'>, appId: string): number {
  return onSale.heldBackThrough?.[appId] ?? 0;
}

/**
 * Whether a fan WAITING at `rank` (undefined before the early order is frozen) may read something
 * else from `onSale` now: the queue was turned off, the event sold out, the early order was frozen
 * (the fan gets a rank), or the admitter reached the fan's rank. A long-polling fan is answered
 * again only then; its position in between is what the wait estimate is for.
 *
 * A fan held back by its app's quota (`heldBackOf`: its app) is reached when its app's
 * `heldBackThrough` is: `admittedThrough` passed it already, and moves on with other fans.
 */
export function waitingMayEnd(
  onSale: OnSale,
  rank: number | undefined,
  heldBackOf?: string,
): boolean {
  if (queueEnded(onSale)) return true;
  if (rank === undefined) return onSale.frozenAt !== undefined;
  if (heldBackOf !== undefined) return heldBackThroughOf(onSale, heldBackOf) >= rank;
  return onSale.admittedThrough >= rank;
}

/** Whether the queue of `onSale` closed or the event sold out: what ends any fan's wait. */
export function queueEnded(onSale: OnSale): boolean {
  return !onSale.queue || onSale.soldOutAt !== undefined;
}

/**
 * The rank above which no fan has been admitted, or is being admitted by a tick under way. A tick
 * admits from the next `admitBatch` waiting fans, all ranked after `admittedThrough` as last
 * recorded; its record of `admittedThrough` can lose a race with another write of the on-sale (the
 * sell-out, an operator's change), and after a sell-out no tick admits or records again. Two
 * batches past `admittedThrough` cover that lost record. Once the event sold out, a fan ranked
 * above the horizon is WAITING (never admitted, never skipped) and reads SOLD_OUT: the edge tells
 * it so without reading its ticket.
 */
export function admissionHorizon(
  onSale: Pick<OnSale, 'admittedThrough'>,
  admitBatch: number,
): number {
  return onSale.admittedThrough + 2 * admitBatch;
}

/**
 * Whether the fan of `ticket` left the queue: it stopped asking for `abandonAfterMs`, by its
 * ticket's `seenAt` (refreshed by reads) and `reportedSeenAtMs`, when an edge replica last
 * reported it asking (queue presence), whichever is later.
 */
export function abandoned(
  ticket: QueueTicket,
  now: Date,
  abandonAfterMs: number,
  reportedSeenAtMs = 0,
): boolean {
  const seen = Math.max(ticket.seenAt.getTime(), reportedSeenAtMs);
  return ticket.state === 'WAITING' && now.getTime() - seen > abandonAfterMs;
}

/**
 * The rank of `ticket` once it is known: a late joiner's once the early count is final, an early
 * joiner's from the frozen early ranks (`earlyRanks`).
 */
export function rankOf(
  ticket: QueueTicket,
  onSale: OnSale,
  early: ReadonlyMap<string, number> | undefined,
): number | undefined {
  if (onSale.frozenAt === undefined) return undefined;
  if (!ticket.early)
    return ticket.sequence === undefined ? undefined : onSale.earlyCount + ticket.sequence;
  return early?.get(ticket.orderKey);
}
