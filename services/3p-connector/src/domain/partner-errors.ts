import type { ErrorKind } from '@marquee/platform/kernel';

const RESOURCE_EXHAUSTED = new Set([301, 302, 303, 306, 307, 316]);
const FAILED_PRECONDITION = new Set([304, 305, 308, 309, 310, 311, 312, 313, 315, 317, 318]);
const NOT_FOUND = new Set([102, 108, 206, 314]);

/**
 * The platform error kind of a refused partner call, from its error body id (checked first) and
 * HTTP status. Sold-out and limits are resource_exhausted, wrong states failed_precondition,
 * unknown resources not_found, malformed requests invalid_argument; anything that says the partner
 * itself is in trouble is unavailable.
 */
export function kindOfPartnerError(
  httpStatus: number,
  partnerErrorId: number | undefined,
): ErrorKind {
  const id = partnerErrorId;
  if (id !== undefined) {
    if (RESOURCE_EXHAUSTED.has(id)) return 'resource_exhausted';
    if (FAILED_PRECONDITION.has(id)) return 'failed_precondition';
    if (NOT_FOUND.has(id)) return 'not_found';
    if (id === 1 || (id >= 101 && id <= 114) || (id >= 201 && id <= 216)) return 'invalid_argument';
  }
  if (httpStatus >= 500) return 'unavailable';
  if (httpStatus === 400) return 'invalid_argument';
  if (httpStatus === 404) return 'not_found';
  if (httpStatus === 410) return 'failed_precondition';
  if (httpStatus === 429) return 'resource_exhausted';
  return 'unavailable';
}

/** A release the partner refuses because the booking is already released or expired: done. */
export const releaseAlreadyDone = (partnerErrorId: number | undefined): boolean =>
  partnerErrorId === 311 || partnerErrorId === 312;

/** A cancel the partner refuses because the order is already cancelled: done. */
export const cancelAlreadyDone = (partnerErrorId: number | undefined): boolean =>
  partnerErrorId === 315;
