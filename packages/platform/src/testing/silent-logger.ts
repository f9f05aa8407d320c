import { createLogger, type Logger } from '../logger/index.js';

/** A logger that writes nothing, named after the test's `service`. */
export function silentLogger(service = 'test'): Logger {
  return createLogger({ service, level: 'silent' });
}
