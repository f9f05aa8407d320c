import type { Logger } from '../logger/index.js';
import { metrics } from '../metrics/registry.js';

export interface WatchDependenciesOptions {
  service: string;
  logger: Logger;
  /** Each shared dependency's probe, by name (`event-bus`, `mongo`); false or a throw: down. */
  probes: Record<string, () => Promise<boolean>>;
  /** Default 10 s. */
  intervalMs?: number;
}

export interface DependencyWatch {
  start(): void;
  stop(): void;
  /** The last result of each probe (absent before the first). */
  state(): Record<string, boolean>;
}

/**
 * The health of the shared dependencies a service uses, reported where an operator looks and never
 * through readiness (host.ts): the gauge `marquee_dependency_up{service, dependency}` (1 up, 0
 * down) and one log line per change (warn when a dependency goes down, info when it is back).
 * Probed every `intervalMs` while the service runs; the probes are the ones readiness used before
 * (the bus's admin round trip, a Mongo ping), each bounded by its own timeout.
 */
export function watchDependencies(options: WatchDependenciesOptions): DependencyWatch {
  const { service, logger, probes } = options;
  const intervalMs = options.intervalMs ?? 10_000;
  const last: Record<string, boolean> = {};
  let timer: NodeJS.Timeout | undefined;
  let stopObserving: (() => void) | undefined;
  let probing = false;

  const probeAll = async (): Promise<void> => {
    if (probing) return;
    probing = true;
    try {
      await Promise.all(
        Object.entries(probes).map(async ([dependency, probe]) => {
          let up: boolean;
          try {
            up = await probe();
          } catch {
            up = false;
          }
          const before = last[dependency];
          last[dependency] = up;
          if (before === up) return;
          if (!up) logger.warn({ dependency }, 'dependency unreachable; this replica stays ready');
          else if (before === false) logger.info({ dependency }, 'dependency reachable again');
        }),
      );
    } finally {
      probing = false;
    }
  };

  return {
    start() {
      if (timer !== undefined || Object.keys(probes).length === 0) return;
      stopObserving = metrics.gauge(
        'marquee_dependency_up',
        { description: 'Whether a shared dependency answered its last probe (1) or not (0)' },
        () =>
          Object.entries(last).map(([dependency, up]) => ({
            value: up ? 1 : 0,
            attributes: { service, dependency },
          })),
      );
      void probeAll();
      timer = setInterval(() => void probeAll(), intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
      stopObserving?.();
      stopObserving = undefined;
    },
    state: () => ({ ...last }),
  };
}
