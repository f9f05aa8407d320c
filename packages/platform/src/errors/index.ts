export {
  AppError,
  ERROR_KINDS,
  isAppErrorLike,
  isErrorKind,
  httpStatusForKind,
  type AppErrorLike,
  type AppErrorOptions,
  type ErrorKind,
} from './app-error.js';
export { isTransientError } from './transient.js';
