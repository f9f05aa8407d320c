import { errorKindOf } from './error-kind.js';

/**
 * Tries of one compare-and-set write while other writers keep winning. A lost race costs one read
 * and one write; sixteen lets a document that every replica writes at once (a busy cart) through,
 * and still ends a write that can never win within a few hundred milliseconds.
 */
export const DEFAULT_CONFLICT_ATTEMPTS = 16;

export interface RetryingConflictsOptions {
  /** Tries in all, the first included (default {@link DEFAULT_CONFLICT_ATTEMPTS}). */
  attempts?: number;
  /** Which errors are a lost race (default: kind `aborted`, a version conflict of the store). */
  isConflict?: (error: unknown) => boolean;
  /**
   * Runs between a lost race and the next try: read the record again, or throw to give up (with
   * that error). The attempt that failed is given, from 1.
   */
  beforeRetry?: (error: unknown, attempt: number) => Promise<void> | void;
}

const isAborted = (error: unknown): boolean => errorKindOf(error) === 'aborted';

/**
 * A lost race of a read-then-write that may insert: a version conflict (kind `aborted`) or another
 * writer inserting the same id first (kind `already_exists`). Pass it as `isConflict` when the write
 * creates the record it did not find.
 */
export function isWriteRace(error: unknown): boolean {
  const kind = errorKindOf(error);
  return kind === 'aborted' || kind === 'already_exists';
}

/**
 * Runs a compare-and-set write again while it loses to another writer, at most `attempts` times;
 * the last conflict, or any other error, is thrown as it is. `write` reads what it needs itself
 * (or `beforeRetry` does), so each try writes over what the winner wrote.
 */
export async function retryingConflicts<T>(
  write: (attempt: number) => Promise<T>,
  options: RetryingConflictsOptions = {},
): Promise<T> {
  const { attempts = DEFAULT_CONFLICT_ATTEMPTS, isConflict = isAborted, beforeRetry } = options;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError('retryingConflicts needs at least one attempt');
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write(attempt);
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
      await beforeRetry?.(error, attempt);
    }
  }
}
