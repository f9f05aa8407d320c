/**
 * Runs tasks one per turn of the event loop, in order. grpc-js hands over every request (and every
 * answer) of one socket read in the same turn, and HTTP/2 sends what a turn wrote only once that
 * turn ends: run back to back, a hundred CPU-heavy handlers answer together after the last one,
 * while the caller waits idle and then works through all hundred answers while this process
 * waits — two processes taking turns instead of working at once (bench/discovery, uncached
 * searches: about 40 % of each process idle while clients fell behind). Yielding after each task
 * lets its output leave, and new input arrive, while the next one runs.
 */
export class OnePerTurn {
  private readonly queue: Array<() => void> = [];
  private head = 0;
  private scheduled = false;

  run(task: () => void): void {
    this.queue.push(task);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.next);
    }
  }

  private readonly next = (): void => {
    const task = this.queue[this.head++];
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    try {
      task?.();
    } finally {
      // Even when a task throws (its error stays uncaught, as it would have been anyway), the
      // tasks behind it still run.
      if (this.head < this.queue.length) setImmediate(this.next);
      else this.scheduled = false;
    }
  };

  /** Resolves in a turn of its own, after the tasks queued before it. */
  turn(): Promise<void> {
    return new Promise((resolve) => this.run(resolve));
  }
}
