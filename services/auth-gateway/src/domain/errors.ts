/**
 * The errors of auth-gateway's domain. `kind` uses the platform's error vocabulary structurally
 * (docs/architecture.md, `errors`), so gRPC maps it to a status code without the domain importing
 * anything.
 */
export type AuthErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'unauthenticated'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'failed_precondition';

export class AuthError extends Error {
  readonly kind: AuthErrorKind;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: AuthErrorKind, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AuthError';
    this.kind = kind;
    this.details = details;
  }
}
