/**
 * The one lane case work runs in (the worker, the stale-hold sweep, the money checks, reports): one
 * job at a time in a process, so two jobs never act on the same partner transaction at once.
 */
export class SerialLane {
  private lane: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const run = this.lane.then(job, job);
    this.lane = run.catch(() => undefined);
    return run;
  }
}
