/** Errors of the catalog; `kind` is the platform error vocabulary (mapped to gRPC status by the port). */
export class CatalogNotFoundError extends Error {
  readonly kind = 'not_found';
}

/** An `event-changed` record whose key is not the id of the event it carries: a producer bug. */
export class MismatchedEventError extends Error {
  readonly kind = 'invalid_argument';
}
