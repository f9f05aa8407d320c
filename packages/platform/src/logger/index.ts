export {
  createLogger,
  REDACTED_PATHS,
  type CreateLoggerOptions,
  type Logger,
} from './create-logger.js';
export {
  CORRELATION_ID_HEADER,
  currentCorrelationId,
  isValidCorrelationId,
  newCorrelationId,
  runWithCorrelationId,
} from './correlation.js';
export { LogThrottle } from './throttle.js';
