import type { CartRepository } from '../../app/ports.js';
import { HoldLimit } from '../../app/core/hold-limit.js';
import type { AppHoldings } from '../app/ports.js';

/**
 * What apps hold under their held-ticket quota, as cart's reserve counts it (`HoldLimit`: the
 * tickets of the app's live carts of the event, sandbox excluded), and the limit that applies to
 * a fan's app: the one it joined with, else cart's default (`CART_HELD_TICKETS_PER_EVENT`).
 */
export function createAppHoldings(
  carts: Pick<CartRepository, 'findLive'>,
  defaultLimit: number | undefined,
): AppHoldings {
  const limit = new HoldLimit(carts, defaultLimit);
  return {
    limitOf: (heldTicketsPerEvent) =>
      limit.limitOf(heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent } : {}),
    ticketsHeld: (appId, eventId) => limit.held(appId, eventId),
  };
}
