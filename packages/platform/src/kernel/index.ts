export {
  ERROR_KINDS,
  errorKindOf,
  isErrorKind,
  isTransient,
  type ErrorKind,
} from './error-kind.js';
export { backoffMs } from './backoff.js';
export { systemClock, type Clock } from './clock.js';
export { withoutVersion } from './versioned.js';
export {
  DEFAULT_CONFLICT_ATTEMPTS,
  isWriteRace,
  retryingConflicts,
  type RetryingConflictsOptions,
} from './retrying-conflicts.js';
