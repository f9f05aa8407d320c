import { errorKindOf } from '@marquee/platform/kernel';
import { invalid } from '../../domain/errors.js';
import { SESSION_ID_PATTERN, priceForFan } from '../../domain/fan-session.js';
import { eventOfListing, hold, isListingId, type ResaleListing } from '../../domain/listing.js';
import { listingLocation } from '../../domain/picks.js';
import type { ListingWrites } from '../core/listing-writes.js';
import type { HeldListing, TopPicksDeps } from '../types.js';
import type { ReleaseListings } from './release-listings.js';

/** Resale inventory for the cart: a listing held for a cart's reserve, at the fan's price. */
export class HoldListings {
  constructor(
    private readonly deps: TopPicksDeps,
    private readonly writes: ListingWrites,
    private readonly releaseListings: ReleaseListings,
  ) {}

  /**
   * Holds a listing for a cart for `resaleHoldMs`, at the price the fan sees under the live fan
   * session (`priceForFan`), or the asking price without one. One listing per reserve (an order
   * confirmed from it names one seller's order); the shape takes several so that can grow, all or
   * nothing. Unknown listing: INVALID_ARGUMENT; not on sale:
   * RESOURCE_EXHAUSTED (partner cart code 20052).
   */
  async handle(input: {
    cartId: string;
    appId: string;
    eventId: string;
    fanSessionId: string;
    lines: { listingId: string; quantity: number }[];
  }): Promise<{ listings: HeldListing[]; expiresAt: Date }> {
    const now = this.deps.clock.now();
    const holdUntil = new Date(now.getTime() + this.deps.settings.resaleHoldMs);
    const ids = input.lines.map((l) => l.listingId);
    if (ids.length !== 1)
      throw invalid('a resale reserve holds exactly one listing (tickets[] with its id)');
    const stored =
      input.fanSessionId && SESSION_ID_PATTERN.test(input.fanSessionId)
        ? await this.deps.sessions.get(input.fanSessionId)
        : undefined;
    const session = stored && stored.appId === input.appId ? stored : undefined;
    const held: HeldListing[] = [];
    try {
      for (const line of input.lines) {
        if (!isListingId(line.listingId) || eventOfListing(line.listingId) !== input.eventId)
          throw invalid(`${line.listingId} is not a resale listing of event ${input.eventId}`);
        const result = await this.writes
          .changeListing(line.listingId, (listing) =>
            hold(listing, {
              cartId: input.cartId,
              until: holdUntil,
              price: priceForFan(session, listing.id, listing.price, now),
              quantity: line.quantity,
              now,
            }),
          )
          .catch((error: unknown) => {
            throw errorKindOf(error) === 'not_found'
              ? invalid(`${line.listingId} is not a resale listing of event ${input.eventId}`)
              : error;
          });
        held.push(toHeld(result));
      }
      return { listings: held, expiresAt: holdUntil };
    } catch (error) {
      await this.releaseListings
        .handle(
          input.cartId,
          held.map((h) => h.listingId),
        )
        .catch(() => undefined);
      throw error;
    }
  }
}

function toHeld(listing: ResaleListing): HeldListing {
  return {
    listingId: listing.id,
    quantity: listing.ticketIds.length,
    ticketIds: listing.ticketIds,
    areaId: listing.areaId,
    section: listing.section,
    row: listing.row,
    seats: listing.seats,
    generalAdmission: listing.generalAdmission,
    priceLevelId: listing.priceLevelId,
    priceTypeId: listing.priceTypeId,
    unitPrice: listing.holdPrice ?? listing.price,
    faceValue: listing.faceValue,
    sellerNotes: listing.sellerNotes,
    details: {
      location: listingLocation(listing),
      sellerNotes: listing.sellerNotes,
      originalFaceValueMinor: listing.faceValue.amountMinor,
      inHandDate: listing.createdAt.toISOString().slice(0, 10),
    },
  };
}
