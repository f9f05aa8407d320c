/**
 * At most one log line per key and interval, counting the ones left out. For lines a failure
 * repeats for every request while it lasts (a peer unavailable, calls shed under a burst): the
 * first of each interval is written with how many were left out since the last one written, so
 * the log shows the failure, its rate and its end, and a storm of requests does not become a storm
 * of synchronous writes on the process that is already overloaded.
 */
export class LogThrottle {
  readonly #windows = new Map<string, { until: number; suppressed: number }>();
  readonly #intervalMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  /**
   * `maxKeys`: keys remembered at most; beyond it the least recently used is forgotten (its count
   * is lost). (No parameter properties: this module is also loaded by Node's type stripping.)
   */
  constructor(intervalMs = 1_000, maxKeys = 1_024, now: () => number = Date.now) {
    this.#intervalMs = intervalMs;
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  /**
   * Whether a line of `key` is written now: `undefined` when it is left out (counted); else the
   * number left out since the last one written.
   */
  admit(key: string): number | undefined {
    const now = this.#now();
    const window = this.#windows.get(key);
    if (window !== undefined && now < window.until) {
      window.suppressed += 1;
      return undefined;
    }
    const suppressed = window?.suppressed ?? 0;
    // Re-inserted so that the map's order is the keys' last use: the first is the oldest.
    this.#windows.delete(key);
    this.#windows.set(key, { until: now + this.#intervalMs, suppressed: 0 });
    if (this.#windows.size > this.#maxKeys) {
      this.#windows.delete(this.#windows.keys().next().value!);
    }
    return suppressed;
  }
}
