/**
 * Resale listing ids, as the cart core tells them apart: a reserve's `tickets[].id` that is a
 * listing id is a resale line (held by the resale inventory), any other is a ticket type of the
 * partner. The top picks slice makes the ids; their format lives here so the core does not depend
 * on that slice.
 */

/** Listing ids: `<event id>.<22 base64url characters>`. */
export const LISTING_ID_PATTERN = /^[A-Za-z0-9]{1,64}\.[A-Za-z0-9_-]{22}$/;

/** True for a `tickets[].id` that names a resale listing (ticket type ids never contain a dot). */
export const isListingId = (id: string): boolean => LISTING_ID_PATTERN.test(id);
