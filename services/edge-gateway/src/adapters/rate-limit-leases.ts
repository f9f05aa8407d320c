import type { DeveloperAccess, RateLimitState } from '../app/backends.js';

export interface RateLimitLeaseOptions {
  /** Most units asked ahead per lease (auth-gateway grants at most a twentieth of the app's per-second limit). */
  maxLease?: number;
  /** Bound on apps tracked; the least recently seen go first. */
  maxApps?: number;
  now?: () => number;
}

interface Lease {
  /** Units left to admit here. */
  units: number;
  /** Edge clock, ms: the end of the per-second window the units were counted in. */
  until: number;
  limit: number;
  /** `available` as auth-gateway answered it (the leased units already counted as used). */
  available: number;
  resetEpochMs: number;
}

interface Pace {
  /** Edge-clock second being counted, and the calls of this app in it and in the one before. */
  second: number;
  calls: number;
  previous: number;
}

/**
 * Counts each call of an app per edge-clock second and answers how many units to ask ahead for it:
 * the calls seen in the last second (minus the asking one), at most `maxLease`. Tracks at most
 * `maxApps` apps; `forget` hears of each app dropped, least recently seen first.
 */
function pacer(
  maxLease: number,
  maxApps: number,
  forget: (appId: string) => void,
): (appId: string, at: number) => number {
  const paces = new Map<string, Pace>();
  return (appId, at) => {
    const second = Math.floor(at / 1_000);
    let pace = paces.get(appId);
    if (pace === undefined) {
      pace = { second, calls: 0, previous: 0 };
    } else {
      paces.delete(appId);
      if (pace.second !== second) {
        pace.previous = pace.second === second - 1 ? pace.calls : 0;
        pace.second = second;
        pace.calls = 0;
      }
    }
    pace.calls += 1;
    paces.set(appId, pace);
    while (paces.size > maxApps) {
      const oldest = paces.keys().next().value!;
      paces.delete(oldest);
      forget(oldest);
    }
    return Math.min(maxLease, Math.max(pace.previous, pace.calls) - 1);
  };
}

/**
 * The edge's side of quota leases. auth-gateway counts every call (docs/decisions.md, "One counting
 * authority for quotas"), but for an app calling fast it lets the edge take a few units ahead in
 * one call and admit that many calls itself, within the per-second window they were counted in.
 *
 * - How many to ask: what this edge saw of the app in the last second (minus the asking call),
 *   at most `maxLease`; an app calling once in a while asks none and is counted call by call.
 *   auth-gateway grants none for small limits or near a limit, so refusals stay exact there.
 * - Leased units count as used at auth-gateway whether spent or not; those left when their second
 *   ends lapse. Nothing is ever admitted beyond what auth-gateway granted, so quotas hold across
 *   any number of edge replicas; an app may at most be refused a little early.
 * - One lease call in flight per app: the calls that arrive meanwhile wait for it and spend from
 *   it, and only what it cannot cover asks again.
 * - `Rate-Limit-Available` of a call admitted here: auth-gateway's answer plus the units still held.
 */
export function rateLimitLeases(
  inner: Pick<DeveloperAccess, 'checkRateLimit'>,
  options: RateLimitLeaseOptions = {},
): (appId: string) => Promise<RateLimitState> {
  const maxLease = options.maxLease ?? 64;
  const maxApps = options.maxApps ?? 10_000;
  const now = options.now ?? Date.now;
  const leases = new Map<string, Lease>();
  const asking = new Map<string, Promise<unknown>>();

  const paceOf = pacer(maxLease, maxApps, (appId) => leases.delete(appId));

  const spend = (appId: string): RateLimitState | undefined => {
    const lease = leases.get(appId);
    if (lease === undefined) return undefined;
    if (lease.units <= 0 || now() >= lease.until) {
      leases.delete(appId);
      return undefined;
    }
    lease.units -= 1;
    return {
      limit: lease.limit,
      available: lease.available + lease.units,
      resetEpochMs: lease.resetEpochMs,
      over: false,
      retryAfterMs: 0,
    };
  };

  return async (appId) => {
    const ask = paceOf(appId, now());
    for (;;) {
      const spent = spend(appId);
      if (spent !== undefined) return spent;
      const pending = asking.get(appId);
      if (pending === undefined) break;
      // A lease is on its way: wait for it rather than ask for another.
      await pending.catch(() => undefined);
    }
    if (ask <= 0) return inner.checkRateLimit(appId);
    const sentAt = now();
    const call = inner.checkRateLimit(appId, { lease: ask });
    asking.set(appId, call);
    let answer: RateLimitState;
    try {
      answer = await call;
    } finally {
      if (asking.get(appId) === call) asking.delete(appId);
    }
    const ahead = Math.max(0, (answer.granted ?? 1) - 1);
    if (answer.over || ahead === 0) {
      leases.delete(appId);
      return answer;
    }
    leases.set(appId, {
      units: ahead,
      // From when the call was sent: the window cannot have ended later than that plus its rest.
      until: sentAt + (answer.leaseMs ?? 0),
      limit: answer.limit,
      available: answer.available,
      resetEpochMs: answer.resetEpochMs,
    });
    return { ...answer, available: answer.available + ahead };
  };
}
