import { AppError, isAppErrorLike } from '../errors/index.js';

/** A compare-and-set lost: someone else wrote first. `aborted` = re-read and retry (gRPC ABORTED). */
export function versionConflict(
  collection: string,
  id: string,
  expectedVersion: number,
  actualVersion: number,
): AppError {
  return new AppError(
    'aborted',
    `${collection} ${id}: version ${actualVersion}, expected ${expectedVersion}`,
    {
      details: { collection, id, expectedVersion, actualVersion },
    },
  );
}

export function alreadyExists(collection: string, id: string, cause?: unknown): AppError {
  return new AppError(
    'already_exists',
    `${collection} ${id} already exists or clashes with a unique index`,
    {
      details: { collection, id },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

export function notFound(collection: string, id: string): AppError {
  return new AppError('not_found', `${collection} ${id} not found`, {
    details: { collection, id },
  });
}

export function invalidDocument(message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('invalid_argument', message, { details });
}

/** True when a write failed because the document changed since it was read. */
export function isVersionConflict(error: unknown): boolean {
  return isAppErrorLike(error) && error.kind === 'aborted';
}
