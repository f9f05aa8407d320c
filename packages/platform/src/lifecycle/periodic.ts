/**
 * Background work that repeats (a sweeper, a reconciliation pass): never two runs at once, and
 * never more than a share of the time. A run that took `d` ms is followed by a pause of at least
 * `d × (1 / maxDutyCycle − 1)`, so a sweep whose queries grow slow (a store that scans, a large
 * backlog) backs off by itself instead of keeping the store busy for the requests it serves.
 */
export interface PeriodicOptions {
  /** Pause between runs when they are quick. */
  intervalMs: number;
  /** Largest share of wall time spent running, in (0, 1]. Default 0.2. */
  maxDutyCycle?: number;
  /** Called with what a run threw; the next run goes ahead as planned. */
  onError: (error: unknown) => void;
}

export interface Periodic {
  start(): void;
  /** Stops scheduling; resolves when the run in progress, if any, has finished. */
  stop(): Promise<void>;
}

/** The pause after a run of `tookMs`. */
export function pauseAfter(tookMs: number, intervalMs: number, maxDutyCycle: number): number {
  return Math.max(intervalMs, Math.ceil(tookMs * (1 / maxDutyCycle - 1)));
}

export function periodic(work: () => Promise<unknown>, options: PeriodicOptions): Periodic {
  const duty = options.maxDutyCycle ?? 0.2;
  if (!(duty > 0 && duty <= 1)) throw new RangeError('periodic: maxDutyCycle must be in (0, 1]');
  if (!(options.intervalMs > 0)) throw new RangeError('periodic: intervalMs must be positive');
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };
  function run(): void {
    const started = performance.now();
    running = work()
      .then(
        () => undefined,
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        running = undefined;
        schedule(pauseAfter(performance.now() - started, options.intervalMs, duty));
      });
  }
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(options.intervalMs);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
