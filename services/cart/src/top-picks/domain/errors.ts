/**
 * Errors of top picks and resale, with the structural `kind` the platform's gRPC server maps to a
 * status code (the edge then maps it to the family's HTTP body). `details.reason` is the partner cart
 * error code where one applies.
 */
export type TopPicksErrorKind =
  'invalid_argument' | 'not_found' | 'failed_precondition' | 'resource_exhausted' | 'aborted';

export class TopPicksError extends Error {
  readonly kind: TopPicksErrorKind;
  /** `{ reason }`: travels in the gRPC error details (the platform's `x-error-details` trailer). */
  readonly details: { reason: string } | undefined;

  constructor(kind: TopPicksErrorKind, message: string, reason?: string) {
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
