export {
  AppError,
  isAppErrorLike,
  httpStatusForKind,
  type AppErrorLike,
  type AppErrorOptions,
} from './app-error.js';
// The vocabulary itself is pure, in the kernel, for domain code too; here for the ports.
export { ERROR_KINDS, isErrorKind, type ErrorKind } from '../kernel/error-kind.js';
export { isTransientError } from './transient.js';
