import type { EventEmitter } from 'node:events';
import type { Logger } from '../logger/create-logger.js';

export type StopStep = () => Promise<void> | void;

export interface StopResult {
  /** True when every step finished without error inside the budget. */
  ok: boolean;
  failed: string[];
  timedOut: string[];
}

export interface Lifecycle {
  /**
   * Registers a step to run on stop. Steps run one at a time in reverse registration order: what
   * started last (the HTTP server taking traffic) stops first, what everything relies on (the bus,
   * Mongo, telemetry) stops last. A step registered once stopping has begun runs at once.
   */
  onStop(name: string, step: StopStep): void;
  /** Runs the steps once; later calls return the same result. */
  stop(reason: string): Promise<StopResult>;
  /** SIGTERM/SIGINT → stop → exit 0 (1 if a step failed or timed out); a second signal exits at once. */
  handleSignals(): () => void;
  /** Later settings (once `main.ts` has loaded its config) replace the bootstrap ones. */
  configure(settings: { logger?: Logger; timeoutMs?: number }): void;
  readonly stopping: boolean;
  readonly logger: Logger;
}

export interface CreateLifecycleOptions {
  logger: Logger;
  /** Budget for the whole stop sequence; should sit inside the orchestrator's grace period. */
  timeoutMs: number;
  /** Test seams: where signals come from and how the process exits. */
  signals?: Pick<EventEmitter, 'on' | 'off'>;
  exit?: (code: number) => void;
}

const TIMED_OUT = Symbol('timed out');

export function createLifecycle(options: CreateLifecycleOptions): Lifecycle {
  let logger = options.logger;
  let timeoutMs = options.timeoutMs;
  const signals = options.signals ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const steps: Array<{ name: string; step: StopStep }> = [];
  let stopped: Promise<StopResult> | undefined;

  async function runSteps(reason: string): Promise<StopResult> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const failed: string[] = [];
    const timedOut: string[] = [];
    logger.info({ reason, steps: steps.length, timeoutMs }, 'stopping');

    // Once a step has used up what was left, the budget is gone even if the timer fired a
    // millisecond early by Date.now()'s clock: later steps are skipped, not squeezed in.
    let exhausted = false;
    for (const { name, step } of [...steps].reverse()) {
      const remaining = deadline - Date.now();
      if (exhausted || remaining <= 0) {
        // Out of budget: the process is about to exit, so waiting would only delay it.
        logger.error({ step: name }, 'stop step skipped: shutdown budget exhausted');
        timedOut.push(name);
        continue;
      }
      const ended = await runStep(logger, name, step, remaining);
      if (ended === 'timed-out') {
        timedOut.push(name);
        exhausted = true;
      } else if (ended === 'failed') {
        failed.push(name);
      }
    }

    const ok = failed.length === 0 && timedOut.length === 0;
    logger[ok ? 'info' : 'error'](
      { reason, durationMs: Date.now() - started, failed, timedOut },
      'stopped',
    );
    return { ok, failed, timedOut };
  }

  const lifecycle: Lifecycle = {
    onStop(name, step) {
      if (stopped !== undefined) {
        logger.warn({ step: name }, 'stop step registered while stopping; running it now');
        void Promise.resolve()
          .then(step)
          .catch((error: unknown) => logger.error({ err: error, step: name }, 'stop step failed'));
        return;
      }
      steps.push({ name, step });
    },

    stop(reason) {
      stopped ??= runSteps(reason);
      return stopped;
    },

    handleSignals() {
      return exitOnSignals(signals, lifecycle, exit);
    },

    configure(settings) {
      if (settings.logger !== undefined) logger = settings.logger;
      if (settings.timeoutMs !== undefined) timeoutMs = settings.timeoutMs;
    },

    get stopping() {
      return stopped !== undefined;
    },

    get logger() {
      return logger;
    },
  };
  return lifecycle;
}

/** SIGTERM/SIGINT → stop → exit; a second signal exits at once. Returns the unsubscribe. */
function exitOnSignals(
  signals: Pick<EventEmitter, 'on' | 'off'>,
  lifecycle: Lifecycle,
  exit: (code: number) => void,
): () => void {
  let received = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    received += 1;
    if (received > 1) {
      lifecycle.logger.warn(
        { signal },
        'second signal: exiting without waiting for the stop steps',
      );
      exit(1);
      return;
    }
    void lifecycle.stop(signal).then((result) => exit(result.ok ? 0 : 1));
  };
  signals.on('SIGTERM', onSignal);
  signals.on('SIGINT', onSignal);
  return () => {
    signals.off('SIGTERM', onSignal);
    signals.off('SIGINT', onSignal);
  };
}

/** Runs one stop step within `remainingMs`: how it ended (logged). */
async function runStep(
  logger: Logger,
  name: string,
  step: StopStep,
  remainingMs: number,
): Promise<'stopped' | 'failed' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const outcome = await Promise.race([
      Promise.resolve().then(step),
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), remainingMs);
      }),
    ]);
    if (outcome === TIMED_OUT) {
      logger.error({ step: name, remainingMs }, 'stop step timed out');
      return 'timed-out';
    }
    logger.debug({ step: name }, 'stopped');
    return 'stopped';
  } catch (error) {
    logger.error({ err: error, step: name }, 'stop step failed');
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}
