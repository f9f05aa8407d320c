import type { ErrorKind } from '@marquee/platform/kernel';

/** The errors of auth-gateway's domain: a `kind` of the platform's vocabulary, mapped to a gRPC status. */
export class AuthError extends Error {
  readonly kind: ErrorKind;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AuthError';
    this.kind = kind;
    this.details = details;
  }
}
