/**
 * Runs async work one at a time per key, in arrival order. Booking work of one event goes through
 * it, so a thousand concurrent holds of one event are a queue of compare-and-sets that each succeed
 * first time, instead of a thousand readers spinning on version conflicts.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<R>(key: string, work: () => Promise<R>): Promise<R> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
