/**
 * secure-entry's own error: a `kind` the gRPC port maps to a status code (structural, no platform
 * import) and a client-safe message. Never carries a token, a code, a secret or an order token.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'failed_precondition'
  | 'unauthenticated'
  | 'permission_denied'
  | 'aborted'
  | 'unavailable'
  | 'resource_exhausted'
  | 'internal';

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

export const errorKindOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? (error as { kind?: string }).kind : undefined;

export const isConflict = (error: unknown): boolean => errorKindOf(error) === 'aborted';
export const isDuplicate = (error: unknown): boolean => errorKindOf(error) === 'already_exists';

/** Re-runs `work` after a lost compare-and-set (kind `aborted`), a bounded number of times. */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
    }
  }
}
