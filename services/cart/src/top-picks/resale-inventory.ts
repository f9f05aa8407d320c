import type { HeldListing, ResoldTicket } from './app/top-picks-app.js';
import { invalid } from './domain/errors.js';
import { isListingId } from './domain/listing.js';

/**
 * What the cart's reserve, commit and release paths ask of resale (implemented by TopPicksApp).
 * A resale line is a `tickets[].id` for which `isListingId` is true: it is held in the cart service
 * itself, never at the partner (the partner sold the ticket already, to the seller).
 */
export interface ResaleInventory {
  /**
   * Holds the listing for the cart at the price the fan was shown under the live fan session (the
   * asking price without one), until `expiresAt`. One listing per reserve. INVALID_ARGUMENT (10002)
   * for an unknown listing, several listings or a quantity other than the listing's;
   * RESOURCE_EXHAUSTED (20052) when it is not on sale.
   */
  holdListings(input: {
    cartId: string;
    appId: string;
    eventId: string;
    fanSessionId: string;
    lines: { listingId: string; quantity: number }[];
  }): Promise<{ listings: HeldListing[]; expiresAt: Date }>;
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

/** The resale lines of a reserve: every `tickets[].id` is a listing id, or none is (else 10002). */
export function resaleLinesOf(
  reserves: readonly { tickets: readonly { priceTypeId: string; quantity: number }[] }[],
): { listingId: string; quantity: number }[] {
  const tickets = reserves.flatMap((r) => r.tickets);
  const resale = tickets.filter((t) => isListingId(t.priceTypeId));
  if (resale.length === 0) return [];
  if (resale.length !== tickets.length)
    throw invalid('a reserve takes either resale listings or ticket types, not both');
  return resale.map((t) => ({ listingId: t.priceTypeId, quantity: t.quantity }));
}

/** The cart's held tickets of held listings: one per ticket, at the buyer's price per ticket. */
export function heldTicketsOf(listings: readonly HeldListing[]): {
  ticketId: string;
  areaId: string;
  section: string;
  row: string;
  seat: string;
  priceLevelId: string;
  priceTypeId: string;
  faceValueMinor: number;
  generalAdmission: boolean;
  areaDescription: string;
}[] {
  return listings.flatMap((l) =>
    l.ticketIds.map((ticketId, i) => ({
      ticketId,
      areaId: l.areaId,
      section: l.section,
      row: l.row,
      seat: l.generalAdmission ? '' : (l.seats[i] ?? ''),
      priceLevelId: l.priceLevelId,
      // The listing id stands for the ticket type: the cart shows it as `tickets[].id` (RESALE).
      priceTypeId: l.listingId,
      faceValueMinor: l.unitPrice.amountMinor,
      generalAdmission: l.generalAdmission,
      areaDescription: l.areaId,
    })),
  );
}

/** The listing ids a resale cart holds (from its requests); empty for a primary cart. */
export const listingIdsOf = (
  reserves: readonly { tickets: readonly { priceTypeId: string }[] }[],
): string[] =>
  reserves.flatMap((r) => r.tickets.map((t) => t.priceTypeId)).filter((id) => isListingId(id));
