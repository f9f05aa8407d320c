import type { HeldListing, ResoldTicket } from './app/top-picks-app.js';

/**
 * What the cart's reserve, commit and release paths ask of resale (implemented by TopPicksApp).
 * A resale line is a `tickets[].id` for which `isListingId` is true: it is held in the cart service
 * itself, never at the partner (the partner sold the ticket already, to the seller).
 */
export interface ResaleInventory {
  /**
   * Holds the listings for the cart until `holdUntil` at the price the fan was shown under the live
   * fan session (the asking price without one). All or nothing. INVALID_ARGUMENT for an unknown
   * listing or a quantity other than the listing's; RESOURCE_EXHAUSTED (20052) when not on sale.
   */
  holdListings(input: {
    cartId: string;
    appId: string;
    eventId: string;
    fanSessionId: string;
    lines: { listingId: string; quantity: number }[];
    holdUntil: Date;
  }): Promise<HeldListing[]>;
  /** Puts the cart's listings back on sale (release, payment failure, expiry); idempotent. */
  releaseListings(cartId: string, listingIds: readonly string[]): Promise<void>;
  /**
   * Sells the cart's listings to the buyer's order: the listings become SOLD and their tickets
   * change owner. Idempotent for the same order id. RESOURCE_EXHAUSTED (before anything is sold)
   * when the cart lost a listing.
   */
  sellListings(input: {
    cartId: string;
    orderId: string;
    buyer: { appId: string; fanId: string; thirdPartyAccountId: string };
    listingIds: readonly string[];
  }): Promise<ResoldTicket[]>;
}
