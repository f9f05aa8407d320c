import { describe, expect, it } from 'vitest';
import type { ApiKeyCheck, DeveloperAccess } from '../src/app/backends.js';
import { cachingDeveloperAccess } from '../src/adapters/caching-developer-access.js';

function countingBackend(valid: Set<string>) {
  const calls: string[] = [];
  let failing = false;
  const backend: DeveloperAccess = {
    createApp: async () => ({ apiKey: 'k', clientId: 'c', clientSecret: 's' }),
    createFan: async () => ({ id: 'f' }),
    checkRateLimit: async () => {
      calls.push('rate');
      return { limit: 5000, available: 4999, resetEpochMs: 1, over: false };
    },
    deleteFan: async (fanId) => {
      calls.push(`delete ${fanId}`);
    },
    revokeGrant: async (fanId, clientId) => {
      calls.push(`revoke ${fanId} ${clientId}`);
      return { revokedTokens: 2 };
    },
    async resolveTrackingId(id) {
      calls.push(`tracking ${id}`);
      return valid.has(id) ? { valid: true, appId: `app-${id}` } : { valid: false, appId: '' };
    },
    async validateApiKey(key): Promise<ApiKeyCheck> {
      calls.push(key);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failing) throw Object.assign(new Error('down'), { kind: 'unavailable' });
      return valid.has(key) ? { valid: true, appId: `app-${key}` } : { valid: false, appId: '' };
    },
  };
  return { backend, calls, fail: (f: boolean) => (failing = f) };
}

describe('cachingDeveloperAccess', () => {
  it('caches tracking ids apart from API keys, a valid one for 30 s', async () => {
    let t = 0;
    const { backend, calls } = countingBackend(new Set(['good']));
    const sut = cachingDeveloperAccess(backend, { now: () => t });
    expect(await sut.resolveTrackingId('good')).toEqual({ valid: true, appId: 'app-good' });
    await sut.validateApiKey('good');
    t = 29_999;
    await sut.resolveTrackingId('good');
    expect(calls).toEqual(['tracking good', 'good']);
    t = 30_001;
    await sut.resolveTrackingId('good');
    expect(calls).toEqual(['tracking good', 'good', 'tracking good']);
  });

  it('asks auth-gateway once for a valid key within 30 s, again after', async () => {
    let t = 0;
    const { backend, calls } = countingBackend(new Set(['good']));
    const sut = cachingDeveloperAccess(backend, { now: () => t });
    expect(await sut.validateApiKey('good')).toEqual({ valid: true, appId: 'app-good' });
    t = 29_999;
    await sut.validateApiKey('good');
    expect(calls).toEqual(['good']);
    t = 30_001;
    await sut.validateApiKey('good');
    expect(calls).toEqual(['good', 'good']);
  });

  it('remembers an unknown key only briefly, so a just-created key soon works', async () => {
    let t = 0;
    const valid = new Set<string>();
    const { backend, calls } = countingBackend(valid);
    const sut = cachingDeveloperAccess(backend, { now: () => t });
    expect((await sut.validateApiKey('new')).valid).toBe(false);
    await sut.validateApiKey('new');
    expect(calls).toEqual(['new']);
    valid.add('new');
    t = 2_001;
    expect((await sut.validateApiKey('new')).valid).toBe(true);
  });

  it('shares one call among concurrent checks of the same key', async () => {
    const { backend, calls } = countingBackend(new Set(['good']));
    const sut = cachingDeveloperAccess(backend);
    await Promise.all(Array.from({ length: 10 }, () => sut.validateApiKey('good')));
    expect(calls).toEqual(['good']);
  });

  it('does not cache failures: the next call asks again', async () => {
    const { backend, calls, fail } = countingBackend(new Set(['good']));
    const sut = cachingDeveloperAccess(backend);
    fail(true);
    await expect(sut.validateApiKey('good')).rejects.toMatchObject({ kind: 'unavailable' });
    fail(false);
    expect((await sut.validateApiKey('good')).valid).toBe(true);
    expect(calls).toEqual(['good', 'good']);
  });

  it('evicts the least recently used key beyond its bound', async () => {
    const { backend, calls } = countingBackend(new Set(['a', 'b', 'c']));
    const sut = cachingDeveloperAccess(backend, { maxEntries: 2 });
    await sut.validateApiKey('a');
    await sut.validateApiKey('b');
    await sut.validateApiKey('a'); // a is now the most recent
    await sut.validateApiKey('c'); // evicts b
    await sut.validateApiKey('a');
    await sut.validateApiKey('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('never caches rate-limit checks: every call is counted by auth-gateway', async () => {
    const { backend, calls } = countingBackend(new Set());
    const sut = cachingDeveloperAccess(backend);
    await sut.checkRateLimit('app');
    await sut.checkRateLimit('app');
    expect(calls).toEqual(['rate', 'rate']);
  });

  it('passes grant revocations through to auth-gateway', async () => {
    const { backend, calls } = countingBackend(new Set());
    const sut = cachingDeveloperAccess(backend);
    expect(await sut.revokeGrant('fan', 'client')).toEqual({ revokedTokens: 2 });
    expect(calls).toEqual(['revoke fan client']);
  });
});

describe('rate-limit leases', () => {
  /** auth-gateway's side: grants what is asked up to `cap` ahead while the second has room. */
  function authGateway(perSecond: number, cap: number, now: () => number) {
    const asked: number[] = [];
    let second = -1;
    let used = 0;
    let daily = 0;
    const backend: Pick<DeveloperAccess, 'checkRateLimit'> = {
      async checkRateLimit(_appId, options = {}) {
        asked.push(options.lease ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 2));
        const s = Math.floor(now() / 1_000);
        if (s !== second) [second, used] = [s, 0];
        const ahead = Math.min(options.lease ?? 0, cap);
        const units = used + 1 + ahead <= perSecond ? 1 + ahead : 1;
        if (used + units > perSecond)
          return { limit: 1e6, available: 1e6 - daily, resetEpochMs: 9, over: true, granted: 0 };
        used += units;
        daily += units;
        return {
          limit: 1e6,
          available: 1e6 - daily,
          resetEpochMs: 9,
          over: false,
          granted: units,
          leaseMs: (s + 1) * 1_000 - now(),
        };
      },
    };
    return { backend, asked, used: () => used, daily: () => daily };
  }
  const backendWith = (rate: Pick<DeveloperAccess, 'checkRateLimit'>): DeveloperAccess => ({
    ...countingBackend(new Set()).backend,
    checkRateLimit: rate.checkRateLimit,
  });

  it('counts an app calling now and then call by call', async () => {
    let t = 500;
    const auth = authGateway(100, 5, () => t);
    const sut = cachingDeveloperAccess(backendWith(auth.backend), { now: () => t });
    for (let i = 0; i < 3; i += 1) {
      await sut.checkRateLimit('app');
      t += 1_500;
    }
    expect(auth.asked).toEqual([0, 0, 0]);
  });

  it('spends units taken ahead for a fast app, and never admits more than was granted', async () => {
    const t = 10_000;
    const auth = authGateway(20, 5, () => t);
    const sut = cachingDeveloperAccess(backendWith(auth.backend), { now: () => t });
    // 30 calls at once in one second against 20 a second.
    const answers = await Promise.all(Array.from({ length: 30 }, () => sut.checkRateLimit('app')));
    const admitted = answers.filter((answer) => !answer.over).length;
    expect(admitted).toBe(20);
    expect(auth.used()).toBe(20);
    // Fewer calls to auth-gateway than calls admitted: the leases of 5 ahead covered the rest.
    expect(auth.asked.length).toBeLessThan(admitted);
    expect(auth.asked.filter((lease) => lease > 0).length).toBeGreaterThan(0);
    // Available counts the units still held here.
    const last = answers.filter((answer) => !answer.over).at(-1)!;
    expect(last.available).toBeGreaterThanOrEqual(1e6 - 20);
  });

  it('lets unspent units lapse when their second ends', async () => {
    let t = 20_900;
    const auth = authGateway(1_000, 10, () => t);
    const sut = cachingDeveloperAccess(backendWith(auth.backend), { now: () => t });
    // The pace builds up: asks of 0, 1 (the second call), then 3 (the fourth) after the third
    // call spent the one unit held.
    for (let i = 0; i < 4; i += 1) await sut.checkRateLimit('app');
    expect(auth.asked).toEqual([0, 1, 3]);
    const before = auth.asked.length;
    await sut.checkRateLimit('app'); // from the lease: two units left
    expect(auth.asked.length).toBe(before);
    t = 21_000; // the lease's second is over
    await sut.checkRateLimit('app');
    expect(auth.asked.length).toBe(before + 1);
  });

  it('goes on after a failed lease call: the next call asks again', async () => {
    let fail = true;
    let t = 30_000;
    const auth = authGateway(1_000, 10, () => t);
    const flaky: Pick<DeveloperAccess, 'checkRateLimit'> = {
      checkRateLimit: (appId, options) =>
        fail
          ? Promise.reject(Object.assign(new Error('down'), { kind: 'unavailable' }))
          : auth.backend.checkRateLimit(appId, options),
    };
    const sut = cachingDeveloperAccess(backendWith(flaky), { now: () => t });
    const failed = await Promise.allSettled(
      Array.from({ length: 5 }, () => sut.checkRateLimit('app')),
    );
    expect(failed.every((result) => result.status === 'rejected')).toBe(true);
    fail = false;
    t += 10;
    expect((await sut.checkRateLimit('app')).over).toBe(false);
  });
});
