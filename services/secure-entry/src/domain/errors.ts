import { errorKindOf, type ErrorKind } from '@marquee/platform/kernel';

/**
 * secure-entry's own error: a `kind` of the platform's vocabulary (the gRPC port maps it to a status
 * code) and a client-safe message. Never carries a token, a code, a secret or an order token.
 */
export class EntryError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'EntryError';
  }
}

export const isConflict = (error: unknown): boolean => errorKindOf(error) === 'aborted';
export const isDuplicate = (error: unknown): boolean => errorKindOf(error) === 'already_exists';
