import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { createMemoryRateCounter } from '../src/adapters/rate-counters.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { DeveloperAccess } from '../src/app/developer-access.js';
import type { SecretHasher } from '../src/app/ports.js';

/** A fast stand-in for argon2 (the real hasher has its own test); never stores the clear text. */
const hasher: SecretHasher = {
  hash: async (secret) => `h(${Buffer.from(secret).toString('base64')})`,
  verify: async (hash, secret) => hash === `h(${Buffer.from(secret).toString('base64')})`,
};

function build(options: { now?: () => number; perDay?: number; perSecond?: number } = {}) {
  const stores = createAuthStores(createServiceStores(undefined));
  let now = options.now ?? (() => Date.parse('2026-03-04T10:00:00.000Z'));
  const sut = new DeveloperAccess({
    apps: createAppRepository(stores),
    fans: createFanRepository(stores),
    counter: createMemoryRateCounter(() => now()),
    hasher,
    clock: { now: () => new Date(now()) },
    defaultQuota: {
      perDay: options.perDay ?? 5000,
      perSecond: options.perSecond ?? 5,
      heldTicketsPerEvent: 20,
    },
  });
  return {
    sut,
    stores,
    setNow: (ms: number) => {
      now = () => ms;
    },
  };
}

const newApp = { name: 'Concert finder', redirectUris: ['https://finder.example/cb'] };

describe('DeveloperAccess: apps and keys', () => {
  it('creates an app whose API key validates, and keeps only hashes of its secrets', async () => {
    const { sut, stores } = build();
    const created = await sut.createApp(newApp);
    expect(created.apiKey.length).toBeGreaterThanOrEqual(32);
    expect(created.clientSecret.length).toBeGreaterThanOrEqual(43);
    const check = await sut.validateApiKey(created.apiKey);
    expect(check).toMatchObject({
      valid: true,
      appId: created.appId,
      clientId: created.clientId,
      status: 'active',
      quota: { perDay: 5000, perSecond: 5 },
    });
    const stored = JSON.stringify(await stores.apps.find());
    expect(stored).not.toContain(created.apiKey);
    expect(stored).not.toContain(created.clientSecret);
  });

  it('answers an unknown or empty key as invalid, not as an error', async () => {
    const { sut } = build();
    await sut.createApp(newApp);
    expect(await sut.validateApiKey('guessed-key')).toMatchObject({ valid: false, appId: '' });
    expect(await sut.validateApiKey('')).toMatchObject({ valid: false, status: 'unknown' });
  });

  it('gives every app distinct credentials', async () => {
    const { sut } = build();
    const a = await sut.createApp(newApp);
    const b = await sut.createApp(newApp);
    expect(
      new Set([a.apiKey, b.apiKey, a.clientId, b.clientId, a.clientSecret, b.clientSecret]).size,
    ).toBe(6);
  });

  it('refuses redirect URIs that would leak codes: relative, fragment, plain http off loopback', async () => {
    const { sut } = build();
    for (const uri of [
      '/cb',
      'https://a.example/cb#x',
      'http://a.example/cb',
      'javascript:alert(1)',
    ]) {
      await expect(sut.createApp({ name: 'x', redirectUris: [uri] })).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
    }
    await expect(
      sut.createApp({ name: 'dev', redirectUris: ['http://localhost:3000/cb'] }),
    ).resolves.toBeDefined();
  });
});

describe('DeveloperAccess: tracking ids', () => {
  it('gives every app a public tracking id at creation that resolves to it and counts nothing', async () => {
    const { sut, stores } = build({ perDay: 3 });
    const created = await sut.createApp(newApp);
    const other = await sut.createApp(newApp);
    expect(created.trackingId).toMatch(/^mqt_[A-Za-z0-9_-]{22}$/);
    expect(other.trackingId).not.toBe(created.trackingId);
    expect(created.trackingId).not.toContain(created.apiKey);
    expect((await stores.apps.get(created.appId))?.trackingId).toBe(created.trackingId);
    for (let i = 0; i < 5; i += 1) {
      expect(await sut.resolveTrackingId(created.trackingId)).toEqual({
        valid: true,
        appId: created.appId,
        access: { commerceShopping: false, partnerDistribution: false },
      });
    }
    // Resolving spent none of the app's 3 calls a day.
    expect((await sut.checkRateLimit(created.appId, 1)).available).toBe(2);
  });

  it('answers an unknown, malformed or API-key-shaped id as invalid', async () => {
    const { sut } = build();
    const created = await sut.createApp(newApp);
    for (const id of ['', 'mqt_unknownunknownunknow', created.apiKey, created.appId]) {
      expect(await sut.resolveTrackingId(id)).toMatchObject({ valid: false, appId: '' });
    }
  });
});

describe('DeveloperAccess: quotas', () => {
  it('creates apps with the held-ticket quota given or the default, and changes it by parts', async () => {
    const { sut } = build();
    const plain = await sut.createApp(newApp);
    expect((await sut.validateApiKey(plain.apiKey)).quota.heldTicketsPerEvent).toBe(20);
    const big = await sut.createApp({ ...newApp, quota: { heldTicketsPerEvent: 500 } });
    expect((await sut.validateApiKey(big.apiKey)).quota).toEqual({
      perDay: 5000,
      perSecond: 5,
      heldTicketsPerEvent: 500,
    });
    expect(await sut.setAppQuota(plain.appId, { heldTicketsPerEvent: 4 })).toEqual({
      perDay: 5000,
      perSecond: 5,
      heldTicketsPerEvent: 4,
    });
    expect(await sut.setAppQuota(plain.appId, { perDay: 9000 })).toMatchObject({
      perDay: 9000,
      heldTicketsPerEvent: 4,
    });
    expect((await sut.validateApiKey(plain.apiKey)).quota.heldTicketsPerEvent).toBe(4);
  });

  it('reads an app stored before the held-ticket quota existed with the default', async () => {
    const { sut, stores } = build();
    const created = await sut.createApp(newApp);
    const stored = (await stores.apps.get(created.appId))!;
    await stores.apps.update(stored.id, stored.version, (app) => ({
      ...app,
      quota: { perDay: 100, perSecond: 2 } as typeof app.quota,
    }));
    expect((await sut.validateApiKey(created.apiKey)).quota).toEqual({
      perDay: 100,
      perSecond: 2,
      heldTicketsPerEvent: 20,
    });
    expect(await sut.setAppQuota(created.appId, { heldTicketsPerEvent: 7 })).toEqual({
      perDay: 100,
      perSecond: 2,
      heldTicketsPerEvent: 7,
    });
  });

  it('refuses a quota out of range and an unknown app, writing nothing', async () => {
    const { sut } = build();
    const created = await sut.createApp(newApp);
    for (const change of [{ heldTicketsPerEvent: -1 }, { heldTicketsPerEvent: 1.5 }, { perDay: 0 }])
      await expect(sut.setAppQuota(created.appId, change)).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
    await expect(
      sut.createApp({ ...newApp, quota: { heldTicketsPerEvent: -3 } }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    expect((await sut.validateApiKey(created.apiKey)).quota.heldTicketsPerEvent).toBe(20);
    await expect(sut.setAppQuota('nope', { perDay: 10 })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});

describe('DeveloperAccess: approvals for restricted services', () => {
  it('grants and withdraws partner distribution on its own; the key check answers it', async () => {
    const { sut } = build();
    const created = await sut.createApp(newApp);
    await sut.setAppAccess(created.appId, { commerceShopping: true });
    expect(await sut.setAppAccess(created.appId, { partnerDistribution: true })).toEqual({
      commerceShopping: true,
      partnerDistribution: true,
    });
    expect((await sut.validateApiKey(created.apiKey)).access?.partnerDistribution).toBe(true);
    await sut.setAppAccess(created.appId, { partnerDistribution: false });
    expect((await sut.validateApiKey(created.apiKey)).access).toEqual({
      commerceShopping: true,
      partnerDistribution: false,
    });
  });

  it('creates apps approved for nothing; an approval shows in the next key check', async () => {
    const { sut } = build();
    const created = await sut.createApp(newApp);
    expect((await sut.validateApiKey(created.apiKey)).access).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
    expect(await sut.getAppAccess(created.appId)).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
    expect(await sut.setAppAccess(created.appId, { commerceShopping: true })).toEqual({
      commerceShopping: true,
      partnerDistribution: false,
    });
    expect((await sut.validateApiKey(created.apiKey)).access).toEqual({
      commerceShopping: true,
      partnerDistribution: false,
    });
    await sut.setAppAccess(created.appId, { commerceShopping: false });
    expect((await sut.validateApiKey(created.apiKey)).access).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
  });

  it('reads an app stored before approvals existed as approved for nothing', async () => {
    const { sut, stores } = build();
    const created = await sut.createApp(newApp);
    const stored = (await stores.apps.get(created.appId))!;
    await stores.apps.update(stored.id, stored.version, ({ access: _dropped, ...rest }) => rest);
    expect(await sut.getAppAccess(created.appId)).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
  });

  it('answers not_found for an unknown or empty app id, and unknown keys carry no access', async () => {
    const { sut } = build();
    await expect(sut.setAppAccess('nope', { commerceShopping: true })).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(sut.getAppAccess('')).rejects.toMatchObject({ kind: 'not_found' });
    expect((await sut.validateApiKey('guessed')).access).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
  });
});

describe('DeveloperAccess: OAuth settings of an app', () => {
  it('creates apps with every OAuth setting off unless asked, and changes them one at a time', async () => {
    const { sut, stores } = build();
    const plain = await sut.createApp(newApp);
    expect((await stores.apps.get(plain.appId))?.oauth).toEqual({
      requirePkce: false,
      rotateRefreshTokens: false,
    });
    const strict = await sut.createApp({ ...newApp, oauth: { requirePkce: true } });
    expect((await stores.apps.get(strict.appId))?.oauth).toEqual({
      requirePkce: true,
      rotateRefreshTokens: false,
    });
    expect(await sut.setAppOAuth(strict.appId, { rotateRefreshTokens: true })).toEqual({
      requirePkce: true,
      rotateRefreshTokens: true,
    });
    expect(await sut.setAppOAuth(strict.appId, { requirePkce: false })).toEqual({
      requirePkce: false,
      rotateRefreshTokens: true,
    });
    expect((await stores.apps.get(strict.appId))?.oauth).toEqual({
      requirePkce: false,
      rotateRefreshTokens: true,
    });
  });

  it('reads an app stored before the settings existed as all off, and refuses an unknown app', async () => {
    const { sut, stores } = build();
    const created = await sut.createApp(newApp);
    const stored = (await stores.apps.get(created.appId))!;
    await stores.apps.update(stored.id, stored.version, ({ oauth: _dropped, ...rest }) => rest);
    expect(await sut.setAppOAuth(created.appId, {})).toEqual({
      requirePkce: false,
      rotateRefreshTokens: false,
    });
    await expect(sut.setAppOAuth('nope', { requirePkce: true })).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(sut.setAppOAuth('', { requirePkce: true })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});

describe('DeveloperAccess: fans', () => {
  it('creates a fan once per e-mail, case-insensitively', async () => {
    const { sut } = build();
    const fan = await sut.createFan({ email: 'Ann@Example.com', password: 'correct horse' });
    expect(fan.id).toBeTruthy();
    await expect(
      sut.createFan({ email: 'ann@example.COM ', password: 'another one' }),
    ).rejects.toMatchObject({ kind: 'already_exists' });
  });

  it('refuses a short password and a malformed e-mail', async () => {
    const { sut } = build();
    await expect(sut.createFan({ email: 'a@b.co', password: 'short' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(
      sut.createFan({ email: 'not-mail', password: 'long enough' }),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });
});

describe('DeveloperAccess: rate limits', () => {
  it('counts calls down from the daily quota and resets at the end of the UTC day', async () => {
    const { sut } = build();
    const { appId } = await sut.createApp(newApp);
    const first = await sut.checkRateLimit(appId);
    const second = await sut.checkRateLimit(appId);
    expect(first).toEqual({
      limit: 5000,
      available: 4999,
      resetEpochMs: Date.parse('2026-03-05T00:00:00.000Z'),
      over: false,
      retryAfterMs: 0,
      granted: 1,
      leaseMs: 1_000,
    });
    expect(second.available).toBe(4998);
  });

  it('grants a lease of a twentieth of the per-second limit at most, counted as used', async () => {
    const { sut } = build({ perDay: 100_000, perSecond: 200 });
    const { appId } = await sut.createApp(newApp);
    // 200 a second: at most 10 ahead, whatever is asked.
    expect(await sut.checkRateLimit(appId, 1, { lease: 50 })).toMatchObject({
      over: false,
      granted: 11,
      available: 100_000 - 11,
      leaseMs: 1_000,
    });
    expect(await sut.checkRateLimit(appId, 1, { lease: 3 })).toMatchObject({
      granted: 4,
      available: 100_000 - 15,
    });
    // Without asking, one call is one unit.
    expect(await sut.checkRateLimit(appId)).toMatchObject({ granted: 1, available: 100_000 - 16 });
  });

  it('grants no lease for a small limit, nor near a limit: there calls are counted one by one', async () => {
    const small = build();
    const { appId: smallApp } = await small.sut.createApp(newApp);
    expect(await small.sut.checkRateLimit(smallApp, 1, { lease: 64 })).toMatchObject({
      granted: 1,
      available: 4999,
    });
    const { sut } = build({ perDay: 100_000, perSecond: 100 });
    const { appId } = await sut.createApp(newApp);
    const granted: number[] = [];
    for (let admitted = 0; admitted < 100;) {
      const answer = await sut.checkRateLimit(appId, 1, { lease: 64 });
      expect(answer.over).toBe(false);
      granted.push(answer.granted);
      admitted += answer.granted;
      expect(admitted).toBeLessThanOrEqual(100);
    }
    // Leases of 5 (100 a second / 20) while they fit, then one by one to the last unit.
    expect(granted.slice(0, 3)).toEqual([6, 6, 6]);
    expect(granted.reduce((sum, n) => sum + n, 0)).toBe(100);
    expect(await sut.checkRateLimit(appId, 1, { lease: 64 })).toMatchObject({
      over: true,
      granted: 0,
    });
  });

  it('reads the quota of an app once for a burst of checks, and not again while reused', async () => {
    const { sut, stores } = build({ perSecond: 1_000 });
    const { appId } = await sut.createApp(newApp);
    let reads = 0;
    const get = stores.apps.get.bind(stores.apps);
    stores.apps.get = (id: string) => {
      reads += 1;
      return get(id);
    };
    await Promise.all(Array.from({ length: 50 }, () => sut.checkRateLimit(appId)));
    await sut.checkRateLimit(appId);
    expect(reads).toBe(1);
  });

  it('refuses the sixth call within one second, and allows calls again the next second', async () => {
    const { sut, setNow } = build();
    const { appId } = await sut.createApp(newApp);
    const t = Date.parse('2026-03-04T10:00:00.000Z');
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await sut.checkRateLimit(appId));
    expect(answers.map((a) => a.over)).toEqual([false, false, false, false, false, true]);
    expect(answers[5]!.available).toBe(4995); // the refused call is not counted
    setNow(t + 1_000);
    expect((await sut.checkRateLimit(appId)).over).toBe(false);
  });

  it('refuses calls over the daily quota until the next day', async () => {
    const { sut, setNow } = build({ perDay: 3, perSecond: 100 });
    const { appId } = await sut.createApp(newApp);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await sut.checkRateLimit(appId));
    expect(results.map((r) => [r.over, r.available])).toEqual([
      [false, 2],
      [false, 1],
      [false, 0],
      [true, 0],
    ]);
    setNow(Date.parse('2026-03-05T00:00:00.001Z'));
    expect(await sut.checkRateLimit(appId)).toMatchObject({ over: false, available: 2 });
  });

  it('applies a quota set for one app, and refuses an impossible one', async () => {
    const { sut } = build();
    const { appId } = await sut.createApp({ ...newApp, quota: { perSecond: 2 } });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await sut.checkRateLimit(appId));
    expect(answers.map((a) => [a.limit, a.over])).toEqual([
      [5000, false],
      [5000, false],
      [5000, true],
    ]);
    const big = await sut.createApp({ ...newApp, quota: { perDay: 100_000 } });
    expect((await sut.validateApiKey(big.apiKey)).quota).toEqual({
      perDay: 100_000,
      perSecond: 5,
      heldTicketsPerEvent: 20,
    });
    for (const quota of [{ perDay: 0 }, { perSecond: 1.5 }, { perSecond: -1 }]) {
      await expect(sut.createApp({ ...newApp, quota })).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
    }
  });

  it('says when a refused call can pass again: the end of the second, or of the day', async () => {
    const { sut, setNow } = build({ perDay: 3, perSecond: 1 });
    const { appId } = await sut.createApp(newApp);
    setNow(Date.parse('2026-03-04T10:00:00.250Z'));
    expect(await sut.checkRateLimit(appId)).toMatchObject({ over: false, retryAfterMs: 0 });
    expect(await sut.checkRateLimit(appId)).toMatchObject({ over: true, retryAfterMs: 750 });
    setNow(Date.parse('2026-03-04T10:00:01.000Z'));
    await sut.checkRateLimit(appId);
    setNow(Date.parse('2026-03-04T10:00:02.000Z'));
    await sut.checkRateLimit(appId);
    setNow(Date.parse('2026-03-04T23:00:00.000Z'));
    // The day's 3 calls are spent: the next can pass at midnight UTC.
    expect(await sut.checkRateLimit(appId)).toMatchObject({ over: true, retryAfterMs: 3_600_000 });
  });

  it('keeps separate counts per app', async () => {
    const { sut } = build({ perDay: 1 });
    const a = await sut.createApp(newApp);
    const b = await sut.createApp(newApp);
    expect((await sut.checkRateLimit(a.appId)).over).toBe(false);
    expect((await sut.checkRateLimit(a.appId)).over).toBe(true);
    expect((await sut.checkRateLimit(b.appId)).over).toBe(false);
  });
});
