import type { ErrorKind } from '@marquee/platform/kernel';

/**
 * Errors of top picks and resale, with a `kind` of the platform's vocabulary, which its gRPC server
 * maps to a status code (the edge then maps it to the family's HTTP body). `details.reason` is the
 * partner cart error code where one applies.
 */
export class TopPicksError extends Error {
  readonly kind: ErrorKind;
  /** `{ reason }`: travels in the gRPC error details (the platform's `x-error-details` trailer). */
  readonly details: { reason: string } | undefined;

  constructor(kind: ErrorKind, message: string, reason?: string) {
    super(message);
    this.name = 'TopPicksError';
    this.kind = kind;
    this.details = reason === undefined ? undefined : { reason };
  }
}

export const invalid = (message: string) => new TopPicksError('invalid_argument', message, '10002');
export const notFound = (message: string) => new TopPicksError('not_found', message);
export const precondition = (message: string) => new TopPicksError('failed_precondition', message);
/** The partner cart's "no inventory" (20052): the listing is held, sold or withdrawn. */
export const unavailable = (message: string) =>
  new TopPicksError('resource_exhausted', message, '20052');
