import { basename } from 'node:path';
import type { EventEmitter } from 'node:events';
import { createLogger, type Logger } from '../logger/create-logger.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';

export interface RunMainOptions {
  /** Logger until `main` calls `lifecycle.configure({ logger })`; a bootstrap JSON logger otherwise. */
  logger?: Logger;
  /** Stop budget until `main` configures its own; default 30 s. */
  timeoutMs?: number;
  /** Test seams. */
  signals?: Pick<EventEmitter, 'on' | 'off'>;
  exit?: (code: number) => void;
}

/**
 * The frame of every `main.ts`:
 *
 * ```ts
 * await runMain(async (lifecycle) => {
 *   const config = loadConfig(configSchema);
 *   const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
 *   lifecycle.configure({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
 *   lifecycle.onStop('telemetry', shutdownTelemetry);
 *   ...
 * });
 * ```
 *
 * Signals are handled from the first line, so a SIGTERM during start still stops what was started.
 * A start failure (bad config included) is logged as one fatal line with its message, whatever was
 * registered is stopped, and the process exits 1. An uncaught exception or unhandled rejection later
 * on does the same: the process is in an unknown state and the orchestrator should replace it.
 */
export async function runMain(
  main: (lifecycle: Lifecycle) => Promise<void>,
  options: RunMainOptions = {},
): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const lifecycle = createLifecycle({
    logger: options.logger ?? createLogger({ service: basename(process.argv[1] ?? 'main') }),
    timeoutMs: options.timeoutMs ?? 30_000,
    exit,
    ...(options.signals === undefined ? {} : { signals: options.signals }),
  });
  lifecycle.handleSignals();

  const crash = (what: string) => (error: unknown) => {
    lifecycle.logger.fatal({ err: error }, `${what}: ${describe(error)}`);
    void lifecycle.stop(what).then(() => exit(1));
  };
  // Only for the real process: a caller injecting its own signal source (a test, an embedding
  // host) owns the process-wide handlers.
  if (options.signals === undefined) {
    process.on('uncaughtException', crash('uncaught exception'));
    process.on('unhandledRejection', crash('unhandled rejection'));
  }

  try {
    await main(lifecycle);
  } catch (error) {
    lifecycle.logger.fatal({ err: error }, `failed to start: ${describe(error)}`);
    await lifecycle.stop('start failed');
    exit(1);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
