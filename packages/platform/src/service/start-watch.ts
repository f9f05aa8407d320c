import type { Logger } from '../logger/index.js';

/** What a starting process does, in order (`runService`). */
export type StartStage = 'metrics' | 'event-bus' | 'mongo' | 'compose' | 'serve' | 'consume';

export interface StartWatchOptions {
  /** A stage that has lasted this long is logged at warn (default 15 s). */
  warnAfterMs?: number;
  /** How often a long stage is logged again (default 15 s). */
  everyMs?: number;
  now?: () => number;
}

export interface StartWatch {
  /** The process enters `stage` (logged at info). */
  enter(stage: StartStage): void;
  /** Started (or failed): no more warnings. Idempotent. */
  done(): void;
  /** The stage the process is in, undefined once done. */
  readonly stage: StartStage | undefined;
}

/**
 * Names the stage a starting service process is in, and says so at warn while one takes long. A
 * replica that never becomes ready (its port refuses connections) otherwise gives no sign of
 * which dependency it waits on at the default log level: a broker that accepts the connection and
 * never answers the metadata request, a Mongo-wire server that never finishes the handshake, a
 * start hook that waits for a peer. The warning names the stage and how long the stage and the
 * whole start have lasted.
 */
export function watchStart(logger: Logger, options: StartWatchOptions = {}): StartWatch {
  const now = options.now ?? Date.now;
  const warnAfterMs = options.warnAfterMs ?? 15_000;
  const startedAt = now();
  let current: { stage: StartStage; since: number } | undefined;
  const timer = setInterval(() => {
    if (!current) return;
    const stageMs = now() - current.since;
    if (stageMs < warnAfterMs) return;
    logger.warn(
      {
        stage: current.stage,
        stage_seconds: Math.round(stageMs / 1000),
        start_seconds: Math.round((now() - startedAt) / 1000),
      },
      `still starting: ${current.stage} has taken ${Math.round(stageMs / 1000)} s`,
    );
  }, options.everyMs ?? 15_000);
  timer.unref();
  return {
    enter(stage) {
      current = { stage, since: now() };
      logger.info({ stage }, 'start stage');
    },
    done() {
      current = undefined;
      clearInterval(timer);
    },
    get stage() {
      return current?.stage;
    },
  };
}
