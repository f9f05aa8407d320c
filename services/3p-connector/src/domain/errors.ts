import type { ErrorKind } from '@marquee/platform/kernel';

/**
 * The connector's own error: a `kind` of the platform's vocabulary (the gRPC port maps it to a
 * status code) and client-safe details. Never carries a partner secret or a token.
 */
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
