/**
 * Serialises async critical sections per key within this process. Keys with no waiter are forgotten,
 * so the map only holds documents being written right now.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<R>(key: string, work: () => Promise<R>): Promise<R> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = previous.then(() => tail);
    this.#tails.set(key, mine);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#tails.get(key) === mine) this.#tails.delete(key);
    }
  }

  /** Keys currently held or awaited (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
