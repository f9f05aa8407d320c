import type { Cart } from '../../domain/cart.js';
import { CartError, ErrorCode } from '../../domain/errors.js';
import type { CartRepository } from '../ports.js';
import type { CartOwner } from '../types.js';

const DEFAULT_HELD_TICKETS_PER_EVENT = 20;
/** More live carts than any limit lets one app have (each holds at least one ticket). */
const LIVE_CARTS_READ = 1_000;

/** Tickets a cart holds or asks for. */
const ticketsOf = (cart: Pick<Cart, 'requests'>): number =>
  cart.requests.reduce((sum, r) => sum + r.tickets.reduce((n, t) => n + t.quantity, 0), 0);

/**
 * The held-ticket quota: one app holds at most so many tickets of one event at once, in pending,
 * held and paid carts together, so one key cannot empty an on-sale. Released, expired and failed
 * carts stop counting the moment they are written so. Sandbox carts do not count.
 *
 * The check runs on a cart already written (and before anything is asked of the inventory), and
 * counts every other live cart of the app, those written a moment later included. Concurrent
 * reserves of one app thus never pass the limit together: whichever checks last sees the others.
 * Near the limit, two concurrent reserves may both be refused (each saw the other while it was
 * live); a refused cart is written FAILED at once and stops counting, so a retry passes. Ordering
 * the carts instead (only earlier ones count) would refuse fewer, but a cart of a replica whose
 * clock is behind would then count none of those already admitted.
 */
export class HoldLimit {
  constructor(
    private readonly carts: Pick<CartRepository, 'findLive'>,
    private readonly defaultLimit: number | undefined,
  ) {}

  /** The limit that applies to the owner; 0 = none. */
  limitOf(owner: Pick<CartOwner, 'heldTicketsPerEvent'>): number {
    return owner.heldTicketsPerEvent ?? this.defaultLimit ?? DEFAULT_HELD_TICKETS_PER_EVENT;
  }

  /**
   * Tickets the app holds of the event now in its live (pending, held, paid) carts, sandbox
   * excluded, leaving out the cart `except` (the one being checked): what counts against the limit.
   */
  async held(appId: string, eventId: string, except?: string): Promise<number> {
    const live = await this.carts.findLive(appId, eventId, LIVE_CARTS_READ);
    return live
      .filter((other) => other.id !== except && !other.sandbox)
      .reduce((sum, other) => sum + ticketsOf(other), 0);
  }

  /** The refusal of the written cart when its app is over the limit with it; else undefined. */
  async refusalOf(cart: Cart, limit: number): Promise<CartError | undefined> {
    if (cart.sandbox || limit <= 0) return undefined;
    const wanted = ticketsOf(cart);
    const ahead = await this.held(cart.appId, cart.eventId, cart.id);
    if (ahead + wanted <= limit) return undefined;
    return new CartError(
      'failed_precondition',
      ErrorCode.HELD_TICKET_LIMIT,
      `an app holds at most ${limit} tickets of one event at once; this app holds ${ahead} of event ${cart.eventId} and asked for ${wanted} more: release or buy a cart first`,
      { limit, held: ahead, requested: wanted, event_id: cart.eventId },
    );
  }
}
