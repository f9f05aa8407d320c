import { createLogger, type Logger } from '../logger/index.js';

/** A logger that writes nothing, named after the test's `service`. */
export function silentLogger(service = 'test'): Logger {
  return createLogger({ service, level: 'silent' });
}

/**
 * The logger of an integration test named `service`: silent unless `TEST_LOG` names a level
 * (`TEST_LOG=info` shows what the services under test log).
 */
export function testLogger(service: string): Logger {
  return createLogger({ service, level: (process.env['TEST_LOG'] as 'info') ?? 'silent' });
}
