import { logLevel, type logCreator } from 'kafkajs';
import type { BusLogger } from './logger.js';

export type KafkaLogLevel = 'error' | 'warn' | 'info' | 'debug';

export const KAFKAJS_LOG_LEVELS: Record<KafkaLogLevel, logLevel> = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/**
 * Routes kafkajs's own log lines into the service logger (structured, with trace and correlation
 * ids) instead of kafkajs's console logger. kafkajs filters by level before calling this.
 */
export function kafkaLogCreator(logger: BusLogger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      // kafkajs puts its own timestamp and logger name in the entry; the service logger has both.
      const {
        message,
        timestamp: _timestamp,
        logger: _logger,
        ...extra
      } = log as typeof log & { logger?: unknown };
      const fields = { component: 'kafkajs', namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
        case logLevel.NOTHING:
          logger.error(fields, message);
          break;
        case logLevel.WARN:
          logger.warn(fields, message);
          break;
        case logLevel.INFO:
          logger.info(fields, message);
          break;
        default:
          logger.debug(fields, message);
      }
    };
}
