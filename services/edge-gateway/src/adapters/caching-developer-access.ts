import type { ApiKeyCheck, DeveloperAccess, TrackingIdCheck } from '../app/backends.js';
import { rateLimitLeases } from './rate-limit-leases.js';

export interface CachingOptions {
  /** How long a valid key is trusted without asking auth-gateway (a suspension shows after at most this). */
  validTtlMs?: number;
  /** How long an unknown key is remembered: short, so a just-created key works almost at once. */
  invalidTtlMs?: number;
  /** Bound on remembered keys; the least recently used go first. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * The edge's short local cache of API-key checks and tracking-id resolutions around the
 * auth-gateway client.
 * Concurrent checks of one key share one call; errors are never cached (an auth-gateway outage must
 * not turn into a minute of 401s). Rate-limit answers are never cached: auth-gateway counts every
 * call, so quotas hold across any number of edge replicas (docs/decisions.md, One counting
 * authority for quotas); for an app calling fast, the edge spends units auth-gateway let it take
 * ahead (`rateLimitLeases`).
 */
export function cachingDeveloperAccess(
  inner: DeveloperAccess,
  options: CachingOptions = {},
): DeveloperAccess {
  const validTtlMs = options.validTtlMs ?? 30_000;
  const invalidTtlMs = options.invalidTtlMs ?? 2_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  /** A cached lookup: one map per kind of id, recency-ordered, concurrent misses share a call. */
  const cached = <T extends { valid: boolean }>(load: (id: string) => Promise<T>) => {
    const cache = new Map<string, { check: T; until: number }>();
    const inFlight = new Map<string, Promise<T>>();
    return async (id: string): Promise<T> => {
      const hit = cache.get(id);
      if (hit && hit.until > now()) {
        // Map order is recency order: move the hit to the back.
        cache.delete(id);
        cache.set(id, hit);
        return hit.check;
      }
      const pending = inFlight.get(id);
      if (pending) return pending;
      const call = load(id)
        .then((check) => {
          cache.delete(id);
          cache.set(id, { check, until: now() + (check.valid ? validTtlMs : invalidTtlMs) });
          while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
          return check;
        })
        .finally(() => inFlight.delete(id));
      inFlight.set(id, call);
      return call;
    };
  };

  return {
    createApp: (input) => inner.createApp(input),
    createFan: (input) => inner.createFan(input),
    checkRateLimit: rateLimitLeases(inner, { now }),
    revokeGrant: (fanId, clientId) => inner.revokeGrant(fanId, clientId),
    deleteFan: (fanId) => inner.deleteFan(fanId),
    validateApiKey: cached<ApiKeyCheck>((apiKey) => inner.validateApiKey(apiKey)),
    resolveTrackingId: cached<TrackingIdCheck>((id) => inner.resolveTrackingId(id)),
  };
}
