export interface WaitForOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Pause between probes (default 25 ms). */
  intervalMs?: number;
  /** Names what was awaited in the timeout error. */
  description?: string;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `probe` until it returns a truthy value and returns that value. A probe that throws counts
 * as "not yet"; on timeout the error names the description and the last thrown error, so a failing
 * test says what it was waiting for. Prefer this over fixed sleeps: it is as fast as the system.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Truthy<Awaited<T>>> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<Awaited<T>>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))),
    );
  }
  const what = options.description ?? 'condition';
  const cause =
    lastError === undefined
      ? ''
      : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
  throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${cause}`, { cause: lastError });
}
