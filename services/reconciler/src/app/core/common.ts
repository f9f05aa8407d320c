/** Helpers the reconciler's use cases share: the batch size and how a failed call is judged. */
import { errorKindOf, isTransient } from '@marquee/platform/kernel';

export const BATCH = 100;

export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
/** A call that may succeed if tried again later: a transient failure, or a callee out of quota. */
export const mayPassLater = (error: unknown): boolean =>
  isTransient(error) || errorKindOf(error) === 'resource_exhausted';
