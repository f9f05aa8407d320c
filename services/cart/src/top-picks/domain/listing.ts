import { TopPicksError, invalid, precondition, unavailable } from './errors.js';
import type { Money } from '@marquee/platform/money';

export type ListingState = 'LISTED' | 'HELD' | 'SOLD' | 'WITHDRAWN';

/**
 * A resale listing: tickets of one confirmed order put up for sale together by their owner. Sold
 * whole, at most once: every state change is a compare-and-set on the stored version.
 *
 * LISTED → HELD (a cart reserved it, until `holdExpiresAt`) → SOLD (the cart committed) ;
 * HELD → LISTED (released, or the hold ended: a held listing whose hold ended counts as listed) ;
 * LISTED → WITHDRAWN (its owner took it off sale) ;
 * LISTED or HELD → WITHDRAWN (a gate admitted one of its seats: `withdrawAdmitted`).
 */
export interface ResaleListing {
  /** `<event id>.<key>`: the `tickets[].id` of a resale reserve. */
  id: string;
  eventId: string;
  /** The order holding the tickets when they were listed. */
  orderId: string;
  ticketIds: string[];
  /** Asking price per ticket. */
  price: Money;
  /** Face value per ticket of the original sale. */
  faceValue: Money;
  areaId: string;
  section: string;
  row: string;
  seats: string[];
  generalAdmission: boolean;
  priceLevelId: string;
  priceTypeId: string;
  sellerAppId: string;
  sellerNotes: string;
  state: ListingState;
  holdCartId?: string;
  holdExpiresAt?: Date;
  /** What the holding cart pays per ticket (from the fan session or the asking price). */
  holdPrice?: Money;
  soldOrderId?: string;
  soldAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}

// The id format is the cart core's: its reserve tells a resale line from a ticket type by it.
export { LISTING_ID_PATTERN, isListingId } from '../../domain/listing-id.js';

export const eventOfListing = (id: string): string => id.slice(0, id.indexOf('.'));

/** The state that counts now: a hold whose end has passed is listed again. */
export function effectiveState(listing: ResaleListing, now: Date): ListingState {
  if (
    listing.state === 'HELD' &&
    listing.holdExpiresAt &&
    listing.holdExpiresAt.getTime() <= now.getTime()
  )
    return 'LISTED';
  return listing.state;
}

const withoutHold = (listing: ResaleListing): ResaleListing => {
  const { holdCartId: _c, holdExpiresAt: _e, holdPrice: _p, ...rest } = listing;
  return rest;
};

/** Holds the listing for a cart. Re-holding by the same cart (a retried reserve) extends the hold. */
export function hold(
  listing: ResaleListing,
  input: { cartId: string; until: Date; price: Money; quantity: number; now: Date },
): ResaleListing {
  if (input.quantity !== listing.ticketIds.length) {
    throw invalid(
      `listing ${listing.id} is sold whole: quantity must be ${listing.ticketIds.length}`,
    );
  }
  const state = effectiveState(listing, input.now);
  const sameCart = listing.state === 'HELD' && listing.holdCartId === input.cartId;
  if (state !== 'LISTED' && !(state === 'HELD' && sameCart)) {
    throw unavailable(`listing ${listing.id} is not available`);
  }
  return {
    ...listing,
    state: 'HELD',
    holdCartId: input.cartId,
    holdExpiresAt: input.until,
    holdPrice: input.price,
    updatedAt: input.now,
  };
}

/**
 * Gives the listing back for sale when `cartId` holds it. Returns `undefined` when there is nothing
 * to do (another cart's hold, sold, withdrawn): releasing is idempotent.
 */
export function release(
  listing: ResaleListing,
  cartId: string,
  now: Date,
): ResaleListing | undefined {
  if (listing.state !== 'HELD' || listing.holdCartId !== cartId) return undefined;
  return { ...withoutHold(listing), state: 'LISTED', updatedAt: now };
}

/**
 * First phase of a sale: checks the listing is still the cart's (held by it, even past the hold's end
 * as long as nobody else took it, or already sold to `orderId` by a retried commit) and keeps it held
 * until `until`, so the second phase (`sell`) cannot lose it. RESOURCE_EXHAUSTED (partner cart 20052)
 * otherwise.
 */
export function keepForSale(
  listing: ResaleListing,
  input: { cartId: string; orderId: string; until: Date; now: Date },
): ResaleListing | undefined {
  if (listing.state === 'SOLD' && listing.soldOrderId === input.orderId) return undefined;
  if (listing.state !== 'HELD' || listing.holdCartId !== input.cartId)
    throw unavailable(`listing ${listing.id} is no longer held by cart ${input.cartId}`);
  if (listing.holdExpiresAt && listing.holdExpiresAt.getTime() >= input.until.getTime())
    return undefined;
  return { ...listing, holdExpiresAt: input.until, updatedAt: input.now };
}

/**
 * Sells the listing to the order `orderId` of the cart that holds it. A hold that ended is still the
 * cart's as long as nobody else took the listing meanwhile. Selling again to the same order (a retried
 * commit) returns `undefined` (nothing to write); anything else is FAILED_PRECONDITION.
 */
export function sell(
  listing: ResaleListing,
  input: { cartId: string; orderId: string; now: Date },
): ResaleListing | undefined {
  if (listing.state === 'SOLD' && listing.soldOrderId === input.orderId) return undefined;
  if (listing.state !== 'HELD' || listing.holdCartId !== input.cartId) {
    throw precondition(`listing ${listing.id} is not held by cart ${input.cartId}`);
  }
  return {
    ...listing,
    state: 'SOLD',
    soldOrderId: input.orderId,
    soldAt: input.now,
    updatedAt: input.now,
  };
}

/** Takes the listing off sale; `undefined` when already withdrawn (idempotent). */
export function withdraw(listing: ResaleListing, now: Date): ResaleListing | undefined {
  const state = effectiveState(listing, now);
  if (state === 'WITHDRAWN') return undefined;
  if (state !== 'LISTED') {
    throw new TopPicksError(
      'failed_precondition',
      `listing ${listing.id} is ${state === 'SOLD' ? 'sold' : 'held by a cart'}`,
    );
  }
  return { ...withoutHold(listing), state: 'WITHDRAWN', updatedAt: now };
}

/**
 * Takes the listing off sale because a gate admitted one of its seats: also when a cart holds it
 * (that cart's commit then finds it gone and sells nothing). `undefined` when it is no longer on
 * sale (sold or withdrawn already).
 */
export function withdrawAdmitted(listing: ResaleListing, now: Date): ResaleListing | undefined {
  const state = effectiveState(listing, now);
  if (state === 'WITHDRAWN' || state === 'SOLD') return undefined;
  return { ...withoutHold(listing), state: 'WITHDRAWN', updatedAt: now };
}

/**
 * The seller's fan was deleted: a listing still on sale (listed, or held by a cart) is withdrawn,
 * and any listing of theirs loses its seller notes (free text the seller wrote). A held listing's
 * cart then finds it gone at commit and sells nothing, as after an admission. `undefined` when
 * there is nothing to change (idempotent).
 */
export function eraseSeller(listing: ResaleListing, now: Date): ResaleListing | undefined {
  const state = effectiveState(listing, now);
  const onSale = state === 'LISTED' || state === 'HELD';
  if (!onSale && listing.sellerNotes === '') return undefined;
  const base = onSale ? { ...withoutHold(listing), state: 'WITHDRAWN' as const } : listing;
  return { ...base, sellerNotes: '', updatedAt: now };
}
