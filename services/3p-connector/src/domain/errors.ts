/**
 * The connector's own error: a `kind` the gRPC port maps to a status code (structural, no platform
 * import) and client-safe details. Never carries a partner secret or a token.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'failed_precondition'
  | 'unauthenticated'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'unavailable'
  | 'aborted'
  | 'deadline_exceeded'
  | 'internal';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

export const errorKindOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? (error as { kind?: string }).kind : undefined;

export const isConflict = (error: unknown): boolean => errorKindOf(error) === 'aborted';
