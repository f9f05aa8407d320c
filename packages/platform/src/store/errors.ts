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

/**
 * Deletes `id` only at `version`: `false` when another write moved it on (or it was already
 * gone), so a caller that read a document to delete it keeps whatever was written since.
 */
export async function deleteAtVersion(
  store: { delete(id: string, expectedVersion?: number): Promise<boolean> },
  id: string,
  version: number,
): Promise<boolean> {
  try {
    return await store.delete(id, version);
  } catch (error) {
    if (isVersionConflict(error)) return false;
    throw error;
  }
}
