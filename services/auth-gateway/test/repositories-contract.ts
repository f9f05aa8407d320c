import { systemClock } from '@marquee/platform/kernel';
import { fanDeletedTopic } from '@marquee/proto/topics';
import { describe, expect, it } from 'vitest';
import type { AuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { DeveloperAccess } from '../src/app/developer-access.js';
import type { AppRepository, FanRepository, KeyStore, OAuthRepository } from '../src/app/ports.js';
import type { AuthorizationCode, IssuedToken } from '../src/domain/oauth.js';
import type { DeveloperApp } from '../src/domain/app.js';
import type { Fan } from '../src/domain/fan.js';

let seq = 0;
const unique = () =>
  `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** The repositories of auth-gateway over its stores, as the contract takes them. */
export const authRepositories = (stores: AuthStores) => ({
  apps: createAppRepository(stores),
  fans: createFanRepository(stores),
  oauth: createOAuthRepository(stores),
  keys: () => createKeyStore(stores),
  pendingGrantEvents: async () => (await stores.grants.pendingOutbox(100)).flatMap((p) => p.events),
  pendingFanEvents: async () => (await stores.fans.pendingOutbox(100)).flatMap((p) => p.events),
});

export const anApp = (overrides: Partial<DeveloperApp> = {}): DeveloperApp => ({
  id: `app-${unique()}`,
  name: 'Example app',
  clientId: `client-${unique()}`,
  clientSecretHash: '$argon2id$fake',
  apiKeyFingerprint: `fp-${unique()}`,
  redirectUris: ['https://app.example/callback'],
  status: 'active',
  quota: { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 20 },
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  ...overrides,
});

export const aFan = (overrides: Partial<Fan> = {}): Fan => ({
  id: `fan-${unique()}`,
  email: `fan-${unique()}@example.com`,
  passwordHash: '$argon2id$fake',
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  ...overrides,
});

export interface RepositoryFixture {
  apps: AppRepository;
  fans: FanRepository;
  oauth: OAuthRepository;
  /** A key store over the same database (a second one models a restart). */
  keys(): KeyStore;
  /** Events waiting in the grants outbox. */
  pendingGrantEvents(): Promise<Array<{ topic: string; key: string }>>;
  /** Events waiting in the fans outbox. */
  pendingFanEvents(): Promise<Array<{ topic: string; key: string; value: Uint8Array | null }>>;
}

const aCode = (overrides: Partial<AuthorizationCode> = {}): AuthorizationCode => ({
  id: `code-${unique()}`,
  appId: 'app-1',
  clientId: 'client-1',
  fanId: 'fan-1',
  grantId: 'app-1:fan-1',
  redirectUri: 'https://app.example/callback',
  scope: 'all',
  codeChallenge: 'x'.repeat(43),
  codeChallengeMethod: 'S256',
  expiresAt: new Date(Date.now() + 300_000),
  ...overrides,
});

const aToken = (overrides: Partial<IssuedToken> = {}): IssuedToken => ({
  id: `tok-${unique()}`,
  kind: 'access',
  appId: 'app-1',
  clientId: 'client-1',
  fanId: 'fan-1',
  grantId: 'app-1:fan-1',
  codeId: 'code-1',
  scope: 'all',
  expiresAt: new Date(Date.now() + 3_600_000),
  ...overrides,
});

/** One suite, run on the memory stores (unit) and on the Mongo-wire server (integration). */
export function repositoriesContract(name: string, make: () => Promise<RepositoryFixture>): void {
  describe(`${name}: apps`, () => {
    it('finds a stored app by id, client id and API-key fingerprint, exactly as stored', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      expect(await sut.byId(app.id)).toEqual(app);
      expect(await sut.byClientId(app.clientId)).toEqual(app);
      expect(await sut.byApiKeyFingerprint(app.apiKeyFingerprint)).toEqual(app);
    });

    it('finds an app by its tracking id; several apps stored without one coexist', async () => {
      const sut = (await make()).apps;
      const tracked = anApp({ trackingId: `mqt_${unique()}` });
      await sut.insert(anApp());
      await sut.insert(anApp());
      await sut.insert(tracked);
      expect(await sut.byTrackingId(tracked.trackingId!)).toEqual(tracked);
      expect(await sut.byTrackingId('mqt_unknown')).toBeUndefined();
    });

    it('gives every app stored without a tracking id one, once, with two replicas backfilling at once', async () => {
      const fixture = await make();
      const older = [anApp(), anApp(), anApp()];
      const tracked = anApp({ trackingId: `mqt_${unique()}` });
      for (const app of [...older, tracked]) await fixture.apps.insert(app);
      const replica = () =>
        new DeveloperAccess({
          apps: fixture.apps,
          fans: fixture.fans,
          counter: { add: async () => 1 },
          hasher: { hash: async () => '', verify: async () => false },
          clock: systemClock,
        });
      const assigned = await Promise.all([
        replica().backfillTrackingIds(),
        replica().backfillTrackingIds(),
      ]);
      expect(assigned[0] + assigned[1]).toBe(older.length);
      const ids = new Set<string>();
      for (const app of older) {
        const stored = await fixture.apps.byId(app.id);
        expect(stored?.trackingId).toMatch(/^mqt_[A-Za-z0-9_-]{22}$/);
        expect(await fixture.apps.byTrackingId(stored!.trackingId!)).toEqual(stored);
        // Only the tracking id was added.
        expect(stored).toEqual({ ...app, trackingId: stored!.trackingId });
        ids.add(stored!.trackingId!);
      }
      expect(ids.size).toBe(older.length);
      expect(await fixture.apps.byId(tracked.id)).toEqual(tracked);
      // Nothing left: a later start assigns nothing and changes no id.
      expect(await replica().backfillTrackingIds()).toBe(0);
      expect(await fixture.apps.withoutTrackingId(10)).toEqual([]);
      expect(await fixture.apps.assignTrackingId(tracked.id, 'mqt_other')).toBe(false);
      expect(await fixture.apps.assignTrackingId('nope', 'mqt_other')).toBe(false);
      expect((await fixture.apps.byId(tracked.id))?.trackingId).toBe(tracked.trackingId);
    });

    it('answers undefined for unknown ids, client ids and keys', async () => {
      const sut = (await make()).apps;
      expect(await sut.byId('nope')).toBeUndefined();
      expect(await sut.byClientId('nope')).toBeUndefined();
      expect(await sut.byApiKeyFingerprint('nope')).toBeUndefined();
    });

    it('sets access flags with a compare-and-set write, keeping the flags not given', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      const approved = await sut.setAccess(app.id, { commerceShopping: true });
      expect(approved).toEqual({
        ...app,
        access: { commerceShopping: true, partnerDistribution: false },
      });
      expect(await sut.byApiKeyFingerprint(app.apiKeyFingerprint)).toEqual(approved);
      await sut.setAccess(app.id, { commerceShopping: false });
      // Concurrent writes of one app all land (each re-reads on a version conflict).
      const results = await Promise.all(
        Array.from({ length: 5 }, () => sut.setAccess(app.id, { commerceShopping: true })),
      );
      expect(results.map((r) => r?.access)).toEqual(
        Array.from({ length: 5 }, () => ({ commerceShopping: true, partnerDistribution: false })),
      );
      expect(await sut.setAccess(app.id, {})).toMatchObject({
        access: { commerceShopping: true, partnerDistribution: false },
      });
      expect(await sut.setAccess('nope', { commerceShopping: true })).toBeUndefined();
    });

    it('sets OAuth settings with a compare-and-set write, keeping the settings not given', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      expect(await sut.setOAuth(app.id, { requirePkce: true })).toEqual({
        ...app,
        oauth: { requirePkce: true, rotateRefreshTokens: false },
      });
      // Concurrent changes of different settings all land (each re-reads on a version conflict).
      await Promise.all([
        sut.setOAuth(app.id, { rotateRefreshTokens: true }),
        sut.setAccess(app.id, { commerceShopping: true }),
        sut.setOAuth(app.id, { requirePkce: true }),
      ]);
      expect(await sut.byClientId(app.clientId)).toMatchObject({
        oauth: { requirePkce: true, rotateRefreshTokens: true },
        access: { commerceShopping: true, partnerDistribution: false },
      });
      expect(await sut.setOAuth('nope', { requirePkce: true })).toBeUndefined();
    });

    it('refuses a second app with the same client id or API key', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      await expect(sut.insert(anApp({ clientId: app.clientId }))).rejects.toMatchObject({
        kind: 'already_exists',
      });
      await expect(
        sut.insert(anApp({ apiKeyFingerprint: app.apiKeyFingerprint })),
      ).rejects.toMatchObject({ kind: 'already_exists' });
    });
  });

  describe(`${name}: fans`, () => {
    it('finds a fan by id and e-mail', async () => {
      const sut = (await make()).fans;
      const fan = aFan();
      await sut.insert(fan);
      expect(await sut.byId(fan.id)).toEqual(fan);
      expect(await sut.byEmail(fan.email)).toEqual(fan);
      expect(await sut.byEmail('other@example.com')).toBeUndefined();
    });

    it('refuses a second fan with the same e-mail', async () => {
      const sut = (await make()).fans;
      const fan = aFan();
      await sut.insert(fan);
      await expect(sut.insert(aFan({ email: fan.email }))).rejects.toMatchObject({
        kind: 'already_exists',
      });
    });
  });

  describe(`${name}: fan deletion`, () => {
    it('erases a fan: gone by id and e-mail, fan-deleted with the id alone in the outbox, once', async () => {
      const fixture = await make();
      const fan = aFan();
      const other = aFan();
      await fixture.fans.insert(fan);
      await fixture.fans.insert(other);
      const at = new Date('2026-03-04T05:06:07.000Z');
      expect(await fixture.fans.erase(fan.id, at)).toBe(true);
      expect(await fixture.fans.byId(fan.id)).toBeUndefined();
      expect(await fixture.fans.byEmail(fan.email)).toBeUndefined();
      expect(await fixture.fans.erase(fan.id, at)).toBe(false);
      expect(await fixture.fans.byId(other.id)).toEqual(other);
      const events = (await fixture.pendingFanEvents()).filter((e) => e.key === fan.id);
      expect(events.map((e) => e.topic)).toEqual(['fan-deleted']);
      expect(fanDeletedTopic.codec.decode(events[0]!.value!)).toEqual({
        fanId: fan.id,
        deletedAt: at,
      });
      // The address is free again: a new account may use it.
      await fixture.fans.insert(aFan({ email: fan.email }));
    });

    it("deletes every interaction, code, token and grant of the fan, and nothing of another fan's", async () => {
      const sut = (await make()).oauth;
      const fanId = `fan-${unique()}`;
      const otherFan = `fan-${unique()}`;
      const grantOf = (fan: string) => ({
        id: `app-${unique()}:${fan}`,
        appId: 'app-x',
        clientId: `client-${unique()}`,
        fanId: fan,
        scope: 'all',
        approvedAt: new Date('2026-01-01T00:00:00.000Z'),
      });
      const grants = [grantOf(fanId), grantOf(fanId), grantOf(otherFan)];
      for (const grant of grants)
        await sut.approveGrant(grant, { ...grant, userId: 'u', authorizedAt: grant.approvedAt });
      const codes = [aCode({ fanId }), aCode({ fanId: otherFan })];
      const tokens = [
        aToken({ fanId }),
        aToken({ fanId, kind: 'refresh' }),
        aToken({ fanId: otherFan }),
      ];
      for (const code of codes) await sut.saveCode(code);
      for (const token of tokens) await sut.saveToken(token);
      const interaction = (fan: string) => ({
        id: `i-${unique()}`,
        clientId: 'c',
        redirectUri: 'https://app.example/cb',
        scope: 'all',
        csrfHash: 'h',
        fanId: fan,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const interactions = [interaction(fanId), interaction(otherFan)];
      for (const i of interactions) await sut.saveInteraction(i);

      expect(await sut.deleteFanRecords(fanId)).toEqual({ grants: 2 });
      expect(await sut.getGrant(grants[0]!.id)).toBeUndefined();
      expect(await sut.getGrant(grants[1]!.id)).toBeUndefined();
      expect(await sut.getCode(codes[0]!.id)).toBeUndefined();
      expect(await sut.getToken(tokens[0]!.id)).toBeUndefined();
      expect(await sut.getToken(tokens[1]!.id)).toBeUndefined();
      expect(await sut.getInteraction(interactions[0]!.id)).toBeUndefined();
      // The other fan's records are untouched, and a repeat deletes nothing more.
      expect(await sut.getGrant(grants[2]!.id)).toEqual(grants[2]);
      expect(await sut.getCode(codes[1]!.id)).toEqual(codes[1]);
      expect(await sut.getToken(tokens[2]!.id)).toEqual(tokens[2]);
      expect(await sut.getInteraction(interactions[1]!.id)).toEqual(interactions[1]);
      expect(await sut.deleteFanRecords(fanId)).toEqual({ grants: 0 });
    });
  });

  describe(`${name}: oauth records`, () => {
    it('lets exactly one caller mark a code used, even concurrently', async () => {
      const sut = (await make()).oauth;
      const code = aCode();
      await sut.saveCode(code);
      expect(await sut.getCode(code.id)).toEqual(code);
      const results = await Promise.all([1, 2, 3].map(() => sut.markCodeUsed(code.id, new Date())));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await sut.getCode(code.id))?.usedAt).toBeInstanceOf(Date);
      expect(await sut.markCodeUsed('missing', new Date())).toBe(false);
    });

    it('lets exactly one caller mark a refresh token rotated, even concurrently, and never a revoked one', async () => {
      const sut = (await make()).oauth;
      const token = aToken({ kind: 'refresh' });
      await sut.saveToken(token);
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => sut.markTokenRotated(token.id, new Date())),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await sut.getToken(token.id))?.rotatedAt).toBeInstanceOf(Date);
      expect(await sut.markTokenRotated(token.id, new Date())).toBe(false);
      expect(await sut.markTokenRotated('missing', new Date())).toBe(false);
      const revoked = aToken({ kind: 'refresh', codeId: `code-${unique()}` });
      await sut.saveToken(revoked);
      await sut.revokeTokens({ codeId: revoked.codeId }, new Date());
      expect(await sut.markTokenRotated(revoked.id, new Date())).toBe(false);
      expect((await sut.getToken(revoked.id))?.rotatedAt).toBeUndefined();
    });

    it('revokes a code family or a grant, leaving other tokens alive', async () => {
      const sut = (await make()).oauth;
      const codeId = `code-${unique()}`;
      const grantId = `grant-${unique()}`;
      const family = [aToken({ codeId }), aToken({ codeId, kind: 'refresh' })];
      const other = aToken({ grantId });
      for (const token of [...family, other]) await sut.saveToken(token);
      expect(await sut.revokeTokens({ codeId }, new Date())).toBe(2);
      expect(await sut.revokeTokens({ codeId }, new Date())).toBe(0);
      for (const token of family)
        expect((await sut.getToken(token.id))?.revokedAt).toBeInstanceOf(Date);
      expect((await sut.getToken(other.id))?.revokedAt).toBeUndefined();
      expect(await sut.revokeTokens({ grantId }, new Date())).toBe(1);
    });

    it('stores an approval with its app-authorized event, also when the fan approves again', async () => {
      const fixture = await make();
      const sut = fixture.oauth;
      const grant = {
        id: `app-${unique()}:fan-1`,
        appId: 'app-x',
        clientId: `client-${unique()}`,
        fanId: 'fan-1',
        scope: 'all',
        approvedAt: new Date('2026-01-01T00:00:00.000Z'),
      };
      const fact = { ...grant, userId: 'u', authorizedAt: grant.approvedAt };
      await sut.approveGrant(grant, fact);
      await sut.revokeGrant(grant.id, new Date());
      expect((await sut.getGrant(grant.id))?.revokedAt).toBeInstanceOf(Date);
      await sut.approveGrant(grant, fact);
      expect(await sut.getGrant(grant.id)).toEqual(grant);
      const events = (await fixture.pendingGrantEvents()).filter((e) => e.key === grant.clientId);
      expect(events.map((e) => e.topic)).toEqual(['app-authorized', 'app-authorized']);
    });

    it('keeps interactions until they expire, then purges them', async () => {
      const sut = (await make()).oauth;
      const interaction = {
        id: `i-${unique()}`,
        clientId: 'c',
        redirectUri: 'https://app.example/cb',
        scope: 'all',
        csrfHash: 'h',
        expiresAt: new Date(Date.now() + 1_000),
      };
      await sut.saveInteraction(interaction);
      expect(await sut.getInteraction(interaction.id)).toEqual(interaction);
      expect(await sut.purgeInteractions(new Date(Date.now() + 2_000))).toBeGreaterThanOrEqual(1);
      expect(await sut.getInteraction(interaction.id)).toBeUndefined();
    });

    it('purges codes and tokens that expired before their own cutoff, and nothing else', async () => {
      const sut = (await make()).oauth;
      const now = Date.now();
      const day = 86_400_000;
      const oldCode = aCode({ expiresAt: new Date(now - 40 * day) });
      const keptCode = aCode({ expiresAt: new Date(now - 2 * day) });
      const liveCode = aCode();
      const oldToken = aToken({ expiresAt: new Date(now - 2 * day) });
      const liveToken = aToken();
      for (const code of [oldCode, keptCode, liveCode]) await sut.saveCode(code);
      for (const token of [oldToken, liveToken]) await sut.saveToken(token);
      expect(
        await sut.purgeExpired({ codes: new Date(now - 31 * day), tokens: new Date(now - day) }),
      ).toBeGreaterThanOrEqual(2);
      expect(await sut.getCode(oldCode.id)).toBeUndefined();
      expect(await sut.getToken(oldToken.id)).toBeUndefined();
      expect(await sut.getCode(keptCode.id)).toEqual(keptCode);
      expect(await sut.getCode(liveCode.id)).toEqual(liveCode);
      expect(await sut.getToken(liveToken.id)).toEqual(liveToken);
    });

    it('creates the user-id key once and finds the same one after a restart', async () => {
      const fixture = await make();
      const key = await fixture.keys().userIdKey();
      expect(key.length).toBeGreaterThanOrEqual(43);
      expect(await fixture.keys().userIdKey()).toBe(key);
    });
  });
}
