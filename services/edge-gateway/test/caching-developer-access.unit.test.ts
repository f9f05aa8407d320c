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
    revokeGrant: async (fanId, clientId) => {
      calls.push(`revoke ${fanId} ${clientId}`);
      return { revokedTokens: 2 };
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
