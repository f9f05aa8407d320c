import type { Log } from './ports.js';

/**
 * Runs a one-time pass in the background until it completes: at once, then again `retryMs` after
 * each failure. Never awaited by the start, so readiness never waits for it; `stop` ends the
 * waiting (a pass under way finishes its current step, and its progress is saved per batch).
 */
export function runUntilDone(
  pass: () => Promise<unknown>,
  options: { retryMs: number; log: Log; what: string },
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = (): void => {
    if (stopped) return;
    pass().then(
      (outcome) => options.log.info({ outcome }, `${options.what} done`),
      (err: unknown) => {
        options.log.warn({ err, retryMs: options.retryMs }, `${options.what} failed; retrying`);
        if (stopped) return;
        timer = setTimeout(attempt, options.retryMs);
        timer.unref();
      },
    );
  };
  attempt();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
