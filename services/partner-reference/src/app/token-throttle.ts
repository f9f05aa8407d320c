/**
 * The token endpoint's guard against guessing the client secret: failed client authentications
 * are counted per client id and per caller address in fixed one-minute windows; once either has
 * `failuresPerMinute` failures, every request under that id or from that address is refused (429
 * with Retry-After) until the window ends, the right secret included, so a guess that happens to
 * be right in that time tells nothing. Successful requests cost nothing. Counted in this process.
 */
export class TokenThrottle {
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly failuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ms until the caller may try again, when one of its keys is over the bound; else undefined. */
  refusal(keys: readonly string[]): number | undefined {
    if (this.failuresPerMinute <= 0) return undefined;
    const now = this.now();
    for (const key of keys) {
      const window = this.#current(key, now);
      if (window && window.failures >= this.failuresPerMinute)
        return window.start + WINDOW_MS - now;
    }
    return undefined;
  }

  /** Counts a failed client authentication under each key. */
  failed(keys: readonly string[]): void {
    if (this.failuresPerMinute <= 0) return;
    const now = this.now();
    for (const key of keys) {
      const window = this.#current(key, now) ?? { start: now - (now % WINDOW_MS), failures: 0 };
      window.failures += 1;
      if (!this.#windows.has(key) && this.#windows.size >= MAX_KEYS) {
        const oldest = this.#windows.keys().next().value;
        if (oldest !== undefined) this.#windows.delete(oldest);
      }
      this.#windows.set(key, window);
    }
  }

  #current(key: string, now: number) {
    const window = this.#windows.get(key);
    if (window && window.start + WINDOW_MS > now) return window;
    if (window) this.#windows.delete(key);
    return undefined;
  }
}

const WINDOW_MS = 60_000;
/** Keys counted at once; past it the oldest is dropped (a bounded map). */
const MAX_KEYS = 10_000;
