import { createMarqueeClient, type MarqueeClient } from '@marquee/api-client';
import type { Stack } from './stack.js';

/**
 * The cross-service tiers' clients of the public API: `@marquee/api-client`, typed from
 * docs/api/openapi.json, so a change of the document that breaks what a test calls fails
 * `pnpm typecheck` before any stack starts. Each call answers `{data, error, response}`: tests
 * assert `response.status` and read the typed `data` (or the family's typed `error` body).
 */

/** The admin API with the stack's admin token. */
export function adminApi(sut: Pick<Stack, 'baseUrl' | 'adminToken'>): MarqueeClient {
  return createMarqueeClient({ baseUrl: sut.baseUrl, adminToken: sut.adminToken });
}

/**
 * An app's client: its API key as the `apikey` query parameter. `minIntervalMs` spaces the calls
 * (an app's default quota is 5 calls a second: 220 ms keeps a test under it); the clock is shared
 * by every client made with the same `pace`.
 */
export function appApi(sut: Pick<Stack, 'baseUrl'>, apiKey: string, pace?: Pace): MarqueeClient {
  return createMarqueeClient({
    baseUrl: sut.baseUrl,
    apiKey,
    ...(pace ? { fetch: (request: Request) => pace.run(() => fetch(request)) } : {}),
  });
}

/** Keeps at least `minIntervalMs` between the end of one call and the start of the next. */
export class Pace {
  private last = 0;
  constructor(private readonly minIntervalMs: number) {}

  /** Counts now as the end of a call (e.g. after calls made outside this pace). */
  touch(): void {
    this.last = Date.now();
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const wait = this.last + this.minIntervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await call();
    } finally {
      this.last = Date.now();
    }
  }
}
