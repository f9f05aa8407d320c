import type { CartCaller } from './partner-cart.js';

/** Where a fan stands in an event's queue. */
export type QueueStatus = 'WAITING' | 'ADMITTED' | 'SOLD_OUT' | 'EXPIRED';

/** A fan's queue ticket as the fan sees it. */
export interface QueueTicketRecord {
  id: string;
  eventId: string;
  status: QueueStatus;
  /** Fans ahead plus one (WAITING, once the early joiners were ordered). */
  position?: number;
  /** Seconds until admission at the current rate (WAITING, when known). */
  estimatedWaitSeconds?: number;
  /** When the on-sale opens (WAITING). */
  opensAt?: Date;
  /** The admission to reserve with (ADMITTED). */
  admissionToken?: string;
  admissionExpiresAt?: Date;
  joinedAt: Date;
  /**
   * The ticket's rank in admission order (WAITING, once the early joiners were ordered): what the
   * edge's long polls wait on (`waitingMayEnd`). Not shown to fans.
   */
  rank?: number;
  /**
   * WAITING, held back: the fan's turn came while its app held its held-ticket quota of the event;
   * it keeps its place and is admitted once the app's carts free room.
   */
  heldBack?: true;
}

/** An event's on-sale and its waiting room, as operators set and read it. */
export interface OnSaleRecord {
  eventId: string;
  opensAt: Date;
  queue: boolean;
  frozenAt?: Date;
  earlyCount: number;
  admittedThrough: number;
  soldOutAt?: Date;
  /**
   * The rank above which no fan has been or is being admitted (cart's `GetOnSale`): once the event
   * sold out, a waiting fan ranked above it is SOLD_OUT without a read of its ticket.
   */
  admissionHorizon?: number;
  /**
   * Per app that had fans held back by its quota, the highest rank of its fans admitted since: a
   * held-back fan's wait ends when its app's reaches its rank.
   */
  heldBackThrough?: Record<string, number>;
  /** Fans admitted a second as the admitter last measured it (cart's `GetOnSale`), when known. */
  admissionsPerSecond?: number;
}

/**
 * The waiting room of an on-sale (cart's WaitingRoomService): operators turn it on for an event,
 * partner apps join fans and follow their queue tickets. Errors keep the cart's partner codes.
 */
export interface WaitingRoomBackend {
  configure(eventId: string, input: { opensAt: Date; queue: boolean }): Promise<OnSaleRecord>;
  /** The caller's `heldTicketsPerEvent` goes with the join: the admitter goes by it. */
  join(
    caller: CartCaller,
    eventId: string,
    identity: { fanId?: string; deviceId?: string },
  ): Promise<{ ticket: QueueTicketRecord; joined: boolean }>;
  /** The ticket as it reads now (cart never holds the call: the edge holds long polls). */
  read(caller: CartCaller, eventId: string, ticketId: string): Promise<QueueTicketRecord>;
  /**
   * Several tickets of one event as they read now (at most 500), in one call; a ticket not found,
   * or of another app or event, is left out.
   */
  readMany(
    eventId: string,
    tickets: ReadonlyArray<{ appId: string; ticketId: string }>,
  ): Promise<QueueTicketRecord[]>;
  /**
   * The event's on-sale as cart last read it (at most about half a second old): what the edge's
   * long polls wait on, one call per event and poll. Fails not_found when the event has none.
   */
  onSale(eventId: string): Promise<OnSaleRecord>;
  /**
   * Which waiting fans of an event this replica holds long polls for, and when each last asked
   * (`seenAtMs`, ms since the epoch): cart counts each present as of then, without a read of its
   * ticket. The report replaces `reporter`'s last one for the event (an empty one withdraws it);
   * at most {@link MAX_PRESENCE_FANS} fans. A cart of an earlier release fails it (`internal`).
   */
  reportPresence(
    eventId: string,
    reporter: string,
    fans: ReadonlyArray<{ ticketId: string; seenAtMs: number }>,
  ): Promise<void>;
}

/** The most fans one presence report carries (cart refuses more). */
export const MAX_PRESENCE_FANS = 50_000;
