import { afterEach, describe, expect, it } from 'vitest';
import type { AuthStores } from '../src/adapters/auth-stores.js';
import { fingerprint } from '../src/app/secrets.js';
import { oauthHarness } from './oauth-harness.js';

type Harness = Awaited<ReturnType<typeof oauthHarness>>;

const DAY_MS = 86_400_000;

/**
 * Refresh-token rotation with reuse detection, through the HTTP routes: run on the memory stores
 * (unit) and on the Mongo-wire server (integration), whose compare-and-set the races depend on.
 */
export function refreshRotationContract(name: string, stores: () => Promise<AuthStores>): void {
  describe(`${name}: refresh-token rotation (apps with rotateRefreshTokens)`, () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.sut.close();
      h = undefined;
    });
    const rotating = async () =>
      (h = await oauthHarness({ oauth: { rotateRefreshTokens: true }, stores: await stores() }));
    const tokensOf = async (t: Harness) =>
      (await t.exchange((await t.authorize()).searchParams.get('code')!)).body as {
        access_token: string;
        refresh_token: string;
      };

    it('each refresh answers a new refresh token and retires the one used', async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      const refreshed = await t.refresh(first.refresh_token);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body).toEqual({
        access_token: expect.stringMatching(/^[\w-]{43}$/),
        expires_in: 3600,
        refresh_token: expect.stringMatching(/^[\w-]{43}$/),
        token_type: 'bearer',
        scope: 'all',
      });
      expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
      expect((await t.info(refreshed.body.access_token as string)).status).toBe(200);
      const again = await t.refresh(refreshed.body.refresh_token as string);
      expect(again.status).toBe(200);
      expect(again.body.refresh_token).not.toBe(refreshed.body.refresh_token);
    });

    it('replay: a retired refresh token presented again is invalid_grant and revokes every token of its authorization', async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      const second = (await t.refresh(first.refresh_token)).body;
      const third = (await t.refresh(second.refresh_token as string)).body;
      // Another authorization of the same fan and app: another family, untouched by the replay.
      const other = await tokensOf(t);

      const replay = await t.refresh(first.refresh_token);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ error: 'invalid_grant' });
      for (const accessToken of [first.access_token, second.access_token, third.access_token]) {
        expect((await t.info(accessToken as string)).status).toBe(401);
      }
      // The live refresh token of the family (the thief's or the client's) is dead too.
      expect((await t.refresh(third.refresh_token as string)).body).toMatchObject({
        error: 'invalid_grant',
      });
      expect((await t.info(other.access_token)).status).toBe(200);
      expect((await t.refresh(other.refresh_token)).status).toBe(200);
    });

    it('replay race: of parallel refreshes with one refresh token at most one succeeds, and its tokens die', async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      const answers = await Promise.all([1, 2, 3].map(() => t.refresh(first.refresh_token)));
      const winners = answers.filter((r) => r.status === 200);
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const loser of answers.filter((r) => r.status !== 200)) {
        expect(loser.body).toMatchObject({ error: 'invalid_grant' });
      }
      for (const winner of winners) {
        expect((await t.info(winner.body.access_token as string)).status).toBe(401);
        expect((await t.refresh(winner.body.refresh_token as string)).status).toBe(400);
      }
      expect((await t.info(first.access_token)).status).toBe(401);
    });

    it("replay race, step by step: tokens the winner saves after the loser's replay die too, also weeks into the authorization", async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      // Weeks later, after the housekeeping: the family's code (its replay mark) must still exist.
      t.shiftClock(20 * DAY_MS);
      await t.flows.purgeExpired();
      const app = (await t.flows.client(t.app.clientId))!;
      // Both read the token before either retires it...
      const winner = (await t.flows.refreshTokenForGrant(first.refresh_token))!;
      const loser = (await t.flows.refreshTokenForGrant(first.refresh_token))!;
      // ...one retires it; the other's compare-and-set fails: a replay, the family is revoked...
      expect(await t.flows.rotateRefreshToken(winner.token)).toBe(true);
      expect(await t.flows.rotateRefreshToken(loser.token)).toBe(false);
      // ...and only then the winner stores its new tokens.
      const late = { access: t.flows.newCredential(), refresh: t.flows.newCredential() };
      await t.flows.saveTokens({
        accessToken: late.access,
        refreshToken: late.refresh,
        app,
        fanId: winner.token.fanId,
        codeId: winner.token.codeId,
        scope: winner.token.scope,
        refreshTokenExpiresAt: winner.token.expiresAt,
      });
      expect((await t.info(late.access)).status).toBe(401);
      expect((await t.refresh(late.refresh)).body).toMatchObject({ error: 'invalid_grant' });
    });

    it('a new refresh token keeps the expiry of the one it replaces (30 days from the authorization)', async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      t.shiftClock(DAY_MS);
      const second = (await t.refresh(first.refresh_token)).body;
      const stored = async (value: string) =>
        (await t.stores.tokens.get(fingerprint(value)))?.expiresAt.getTime();
      expect(await stored(second.refresh_token as string)).toBe(await stored(first.refresh_token));
    });

    it('turning rotation off later keeps the last refresh token working (no new one answered)', async () => {
      const t = await rotating();
      const first = await tokensOf(t);
      const last = (await t.refresh(first.refresh_token)).body.refresh_token as string;
      await t.access.setAppOAuth(t.app.appId, { rotateRefreshTokens: false });
      for (let i = 0; i < 2; i++) {
        const refreshed = await t.refresh(last);
        expect(refreshed.status).toBe(200);
        expect(refreshed.body.refresh_token).toBeUndefined();
      }
    });
  });
}
