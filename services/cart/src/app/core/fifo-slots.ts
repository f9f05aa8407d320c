/**
 * At most `limit` holders at once; the next ones wait their turn in arrival order, each for a
 * bounded time, and are refused past it. A slot is given back by calling the function `acquire`
 * resolved with (once; calling it again does nothing).
 */
export class FifoSlots {
  #busy = 0;
  readonly #waiters: { grant: () => void; timer: ReturnType<typeof setTimeout> }[] = [];

  constructor(private readonly limit: number) {}

  /** A slot, at once or after waiting at most `waitMs`; past it, rejects with `refusal()`. */
  acquire(waitMs: number, refusal: () => Error): Promise<() => void> {
    if (this.#waiters.length === 0 && this.#busy < this.limit) return Promise.resolve(this.#take());
    if (waitMs <= 0) return Promise.reject(refusal());
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => resolve(this.#take()),
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          reject(refusal());
        }, waitMs),
      };
      this.#waiters.push(waiter);
    });
  }

  #take(): () => void {
    this.#busy += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#busy -= 1;
      const next = this.#waiters.shift();
      if (next === undefined) return;
      clearTimeout(next.timer);
      next.grant();
    };
  }
}
