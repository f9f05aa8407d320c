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
}

/**
 * The waiting room of an on-sale (cart's WaitingRoomService): operators turn it on for an event,
 * partner apps join fans and follow their queue tickets. Errors keep the cart's partner codes.
 */
export interface WaitingRoomBackend {
  configure(eventId: string, input: { opensAt: Date; queue: boolean }): Promise<OnSaleRecord>;
  join(
    caller: CartCaller,
    eventId: string,
    identity: { fanId?: string; deviceId?: string },
  ): Promise<{ ticket: QueueTicketRecord; joined: boolean }>;
  /**
   * The ticket; with `waitSeconds`, while WAITING, answered once what it reads may have changed
   * or after that long (long polling, held by cart).
   */
  read(
    caller: CartCaller,
    eventId: string,
    ticketId: string,
    waitSeconds?: number,
  ): Promise<QueueTicketRecord>;
}
