import { systemClock } from '@marquee/platform/kernel';
import { ServiceKeyring, serviceKeyring, serviceTokenFor } from '@marquee/platform/grpc';
import { authV1 } from '@marquee/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createFanRepository } from '../src/adapters/store-repositories.js';
import { FanDeletion } from '../src/app/fan-deletion.js';
import { APP_URI, OTHER_URI, PASSWORD, oauthHarness, pkcePair } from './oauth-harness.js';

type Harness = Awaited<ReturnType<typeof oauthHarness>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.sut.close();
  h = undefined;
});
const harness = async (options?: Parameters<typeof oauthHarness>[0]) =>
  (h = await oauthHarness(options));

describe("authorization-code flow (the fans' OAuth API)", () => {
  it('signs a fan in, asks consent naming the app, and redirects with a code and the state', async () => {
    const t = await harness();
    const login = await t.open({ state: 'xyz-123' });
    expect(login.status).toBe(200);
    expect(login.html).toContain('<label for="email">Email</label>');
    expect(login.html).toContain('<label for="password">Password</label>');
    expect(login.html).toContain('>Sign in</button>');
    expect(login.html).toContain('Concert &#60;Finder&#62;'); // the app's name, escaped
    const consent = await t.login(login);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('Concert &#60;Finder&#62;');
    expect(consent.html).toContain('>Approve</button>');
    expect(consent.html).toContain('>Decline</button>');
    const done = await t.post(consent.cookie, { action: 'approve', csrf: consent.csrf });
    expect(done.status).toBe(302);
    const redirect = new URL(done.location!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(APP_URI);
    expect(redirect.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect(redirect.searchParams.get('state')).toBe('xyz-123');
  });

  it('adds state to the redirect only when the app sent one', async () => {
    const t = await harness();
    const redirect = await t.authorize({ state: undefined });
    expect(redirect.searchParams.has('code')).toBe(true);
    expect(redirect.searchParams.has('state')).toBe(false);
  });

  it('accepts the authorize request with a Content-Type header, and without', async () => {
    const t = await harness();
    const withHeader = await t.open({}, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(withHeader.status).toBe(200);
    expect((await t.open()).status).toBe(200);
  });

  it('redirects a decline with error=access_denied and the state', async () => {
    const t = await harness();
    const consent = await t.login(await t.open({ state: 's1' }));
    const done = await t.post(consent.cookie, { action: 'decline', csrf: consent.csrf });
    expect(done.status).toBe(302);
    const redirect = new URL(done.location!);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('s1');
    expect(redirect.searchParams.has('code')).toBe(false);
  });

  it('exchanges the code for tokens, serves user info, and refreshes without a new refresh token', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const tokens = await t.exchange(code);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'bearer',
    });
    expect(tokens.headers['cache-control']).toBe('no-store');

    const info = await t.info(tokens.body.access_token as string);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      user_id: expect.any(String),
      email: t.fan.email,
      email_verified: false,
    });

    const refreshed = await t.refresh(tokens.body.refresh_token as string);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      expires_in: 3600,
      token_type: 'bearer',
      scope: 'all',
    });
    expect(refreshed.body.access_token).not.toBe(tokens.body.access_token);
    expect((await t.info(refreshed.body.access_token as string)).body).toEqual(info.body);
    // The refresh token keeps working (it is not rotated).
    expect((await t.refresh(tokens.body.refresh_token as string)).status).toBe(200);
  });

  it('gives a fan a user_id that is stable per app and different across apps', async () => {
    const t = await harness();
    const first = await t.exchange((await t.authorize()).searchParams.get('code')!);
    const second = await t.exchange((await t.authorize()).searchParams.get('code')!);
    const a = (await t.info(first.body.access_token as string)).body.user_id;
    expect((await t.info(second.body.access_token as string)).body.user_id).toBe(a);
    const other = await t.access.createApp({ name: 'Other', redirectUris: [APP_URI] });
    const otherId = await t.flows.userIdFor(other.clientId, t.fan.id);
    expect(otherId).not.toBe(a);
    expect(a).not.toContain(t.fan.id);
  });

  it('records app-authorized in the outbox when the fan approves', async () => {
    const t = await harness();
    await t.authorize();
    const pending = await t.stores.grants.pendingOutbox(10);
    const events = pending.flatMap((p) => p.events);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ topic: 'app-authorized', key: t.app.clientId });
    const fact = authV1.AppAuthorized.decode(events[0]!.value!);
    expect(fact).toMatchObject({
      clientId: t.app.clientId,
      appId: t.app.appId,
      fanId: t.fan.id,
      userId: await t.flows.userIdFor(t.app.clientId, t.fan.id),
      scope: 'all',
    });
    expect(JSON.stringify(fact)).not.toContain(t.fan.email);
  });

  it('a fan deleted while on the consent page approves nothing, and can no longer sign in', async () => {
    const t = await harness();
    const consent = await t.login(await t.open());
    expect(consent.status).toBe(200);
    const fans = createFanRepository(t.stores);
    await new FanDeletion({
      fans,
      oauth: createOAuthRepository(t.stores),
      clock: systemClock,
    }).deleteFan(t.fan.id);
    const approved = await t.post(consent.cookie, { action: 'approve', csrf: consent.csrf });
    expect(approved.status).toBe(403);
    expect(approved.location).toBeUndefined();
    expect(await t.stores.grants.find({ fanId: t.fan.id })).toEqual([]);
    expect((await t.login(await t.open())).status).toBe(401);
    // The deletion removed the page's interaction; one read just before it still grants nothing.
    const raced = {
      id: 'i-raced',
      clientId: t.app.clientId,
      redirectUri: APP_URI,
      scope: 'all',
      csrfHash: 'h',
      fanId: t.fan.id,
      expiresAt: new Date(Date.now() + 60_000),
    };
    await expect(t.flows.approve(raced)).rejects.toMatchObject({ kind: 'permission_denied' });
    expect(await t.stores.grants.find({ fanId: t.fan.id })).toEqual([]);
  });
});

describe('authorize request validation', () => {
  it('shows an error page and never redirects for an unknown client', async () => {
    const t = await harness();
    const page = await t.open({ client_id: 'nobody' });
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain('Unknown application');
  });

  it('shows an error page and never redirects for an unregistered or missing redirect URI (no open redirector)', async () => {
    const t = await harness();
    for (const uri of [
      'https://evil.example/callback',
      `${APP_URI}/extra`,
      `${APP_URI}?x=1`,
      undefined,
    ]) {
      const page = await t.open({ redirect_uri: uri });
      expect(page.status, String(uri)).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.html).toContain('Invalid redirect URI');
    }
  });

  it('redirects other bad requests back to the app with the RFC 6749 error and the state', async () => {
    const t = await harness();
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ response_type: undefined }, 'invalid_request'],
      [{ scope: 'read write' }, 'invalid_scope'],
      [{ code_challenge: pkcePair().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge_method: 'S256' }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const page = await t.open({ ...params, state: 'st' });
      expect(page.status, JSON.stringify(params)).toBe(302);
      const redirect = new URL(page.location!);
      expect(redirect.searchParams.get('error'), JSON.stringify(params)).toBe(error);
      expect(redirect.searchParams.get('state')).toBe('st');
    }
  });

  it('sends security headers and a no-script CSP with every page', async () => {
    const t = await harness();
    const page = await t.open();
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
  });
});

describe('security rules and the attacks they stop', () => {
  it('code replay: a second exchange is refused and every token from the code is revoked', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const first = await t.exchange(code);
    expect(first.status).toBe(200);
    const replay = await t.exchange(code);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant' });
    expect((await t.info(first.body.access_token as string)).status).toBe(401);
    expect((await t.refresh(first.body.refresh_token as string)).body).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('code replay race: of two concurrent exchanges at most one succeeds, and its tokens die', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const [a, b] = await Promise.all([t.exchange(code), t.exchange(code)]);
    const winners = [a, b].filter((r) => r.status === 200);
    expect(winners.length).toBeLessThanOrEqual(1);
    for (const winner of winners) {
      expect((await t.info(winner.body.access_token as string)).status).toBe(401);
    }
  });

  it('redirect-URI swap: a code issued for one URI cannot be exchanged with another registered one', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const swapped = await t.exchange(code, { redirect_uri: OTHER_URI });
    expect(swapped.status).toBe(400);
    expect(swapped.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('stolen code: another client cannot exchange it, even with its own valid credentials', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const thief = await t.access.createApp({ name: 'Thief', redirectUris: [APP_URI] });
    const stolen = await t.exchange(code, {
      client_id: thief.clientId,
      client_secret: thief.clientSecret,
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('expired code: refused after its lifetime (at most 10 minutes)', async () => {
    const t = await harness();
    t.shiftClock(-301_000); // the code is issued 301 s in the past
    const code = (await t.authorize()).searchParams.get('code')!;
    t.shiftClock(301_000);
    const late = await t.exchange(code);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('PKCE: the right verifier works; none or a wrong one is refused (no downgrade)', async () => {
    const t = await harness();
    const { verifier, challenge } = pkcePair();
    const code1 = (
      await t.authorize({ code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    expect((await t.exchange(code1)).body).toMatchObject({ error: 'invalid_grant' });
    const withMethod = { code_challenge: challenge, code_challenge_method: 'S256' };
    const code2 = (await t.authorize(withMethod)).searchParams.get('code')!;
    expect((await t.exchange(code2, { code_verifier: pkcePair().verifier })).body).toMatchObject({
      error: 'invalid_grant',
    });
    const code3 = (await t.authorize(withMethod)).searchParams.get('code')!;
    const ok = await t.exchange(code3, { code_verifier: verifier });
    expect(ok.status).toBe(200);
  });

  it('PKCE: a code_challenge without code_challenge_method (which means plain) is refused, not taken as S256', async () => {
    const t = await harness();
    const page = await t.open({ code_challenge: pkcePair().challenge });
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toBe('code_challenge_method must be S256');
  });

  it('require PKCE: an app that requires it gets invalid_request, with the state, for an authorize request without an S256 code_challenge (error page if the redirect is untrusted)', async () => {
    const t = await harness({ oauth: { requirePkce: true } });
    const page = await t.open({ state: 'st' });
    expect(page.status).toBe(302);
    expect(page.setCookie).toBeUndefined(); // no interaction was opened
    const back = new URL(page.location!);
    expect(`${back.origin}${back.pathname}`).toBe(APP_URI);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/requires PKCE/);
    expect(back.searchParams.get('state')).toBe('st');
    // A challenge without method (plain) or with plain is no PKCE it accepts either.
    for (const params of [
      { code_challenge: pkcePair().challenge },
      { code_challenge: pkcePair().challenge, code_challenge_method: 'plain' },
    ]) {
      const refused = new URL((await t.open(params)).location!);
      expect(refused.searchParams.get('error'), JSON.stringify(params)).toBe('invalid_request');
    }
    // With S256 the flow runs, and the code needs the verifier.
    const { verifier, challenge } = pkcePair();
    const code = (
      await t.authorize({ code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    expect((await t.exchange(code, { code_verifier: verifier })).status).toBe(200);
    // A redirect URI it cannot trust still gets the error page, never a redirect.
    const untrusted = await t.open({ redirect_uri: 'https://evil.example/callback' });
    expect(untrusted.status).toBe(400);
    expect(untrusted.location).toBeUndefined();
    expect(untrusted.html).toContain('Invalid redirect URI');
  });

  it('require PKCE: an operator turning it on applies to the next authorize request', async () => {
    const t = await harness();
    expect((await t.open()).status).toBe(200);
    await t.access.setAppOAuth(t.app.appId, { requirePkce: true });
    const refused = await t.open();
    expect(refused.status).toBe(302);
    expect(new URL(refused.location!).searchParams.get('error')).toBe('invalid_request');
    await t.access.setAppOAuth(t.app.appId, { requirePkce: false });
    expect((await t.open()).status).toBe(200);
  });

  it('PKCE is no substitute for the client secret: a stolen code and verifier without it get 401', async () => {
    const t = await harness();
    const { verifier, challenge } = pkcePair();
    const code = (
      await t.authorize({ code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    const response = await t.exchange(code, { client_secret: undefined, code_verifier: verifier });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: 'invalid_client' });
  });

  it('PKCE: a verifier for a code issued without a challenge is refused (RFC 9700 section 2.1.1)', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const response = await t.exchange(code, { code_verifier: pkcePair().verifier });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('brute-force login: after 5 failures from one address that address waits, progressively, even with the right password', async () => {
    const t = await harness();
    const from = { 'x-forwarded-for': '198.51.100.7' };
    const attempt = async (password: string) =>
      t.login(await t.open({}, from), t.fan.email, password, from);
    for (let i = 0; i < 5; i++) {
      const failed = await attempt(`wrong-${i}`);
      expect(failed.status).toBe(401);
      expect(failed.html).toContain('Incorrect email or password');
    }
    const before = t.verifications();
    const waiting = await attempt(PASSWORD);
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(waiting.html).toContain('Too many sign-in attempts');
    expect(t.verifications()).toBe(before); // the password was not even checked
    // The first delay is the minute; after five more failures, the quarter hour.
    t.shiftClock(60_000);
    for (let i = 0; i < 5; i++) expect((await attempt(`again-${i}`)).status).toBe(401);
    t.shiftClock(60_000);
    const longer = await attempt(PASSWORD);
    expect(longer.status).toBe(429);
    expect(Number(longer.headers['retry-after'])).toBeGreaterThan(60);
    t.shiftClock(15 * 60_000);
    expect((await attempt(PASSWORD)).status).toBe(200);
  });

  it("no lock-out: a stranger who fails at a fan's account does not keep the fan from signing in elsewhere", async () => {
    const t = await harness();
    const attacker = { 'x-forwarded-for': '203.0.113.66' };
    for (let i = 0; i < 12; i++)
      await t.login(await t.open({}, attacker), t.fan.email, `guess-${i}`, attacker);
    expect(
      (await t.login(await t.open({}, attacker), t.fan.email, PASSWORD, attacker)).status,
    ).toBe(429);
    const fan = { 'x-forwarded-for': '192.0.2.10' };
    expect((await t.login(await t.open({}, fan), t.fan.email, PASSWORD, fan)).status).toBe(200);
  });

  it('parallel guesses: 40 wrong passwords at once on one page run at most 5 argon2 verifications', async () => {
    const t = await harness();
    const page = await t.open();
    const before = t.verifications();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.login(page, t.fan.email, `parallel-${i}`)),
    );
    expect(t.verifications() - before).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(5);
    // The rest were refused before the password was checked: throttled or the page used up.
    expect(answers.every((a) => [401, 403, 429].includes(a.status))).toBe(true);
    // The page is void now: its cookie and CSRF token give no more attempts.
    const after = await t.login(page, t.fan.email, PASSWORD);
    expect(after.status).toBe(403);
    expect(after.html).toContain('Session expired');
  });

  it('parallel guesses over many pages: 40 wrong passwords at once run at most 5 argon2 verifications', async () => {
    const t = await harness();
    const pages = await Promise.all(Array.from({ length: 40 }, () => t.open()));
    const before = t.verifications();
    const answers = await Promise.all(
      pages.map((page, i) => t.login(page, t.fan.email, `parallel-${i}`)),
    );
    expect(t.verifications() - before).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(35);
  });

  it('one sign-in page allows 5 attempts, then starts over', async () => {
    const t = await harness();
    const page = await t.open();
    // Different e-mails: no account tier is reached, only the page's own cap.
    for (let i = 0; i < 5; i++)
      expect((await t.login(page, `nobody${i}@example.com`, 'password1')).status).toBe(401);
    expect((await t.login(page, t.fan.email, PASSWORD)).status).toBe(403);
    expect((await t.login(await t.open(), t.fan.email, PASSWORD)).status).toBe(200);
  });

  it('brute-force login across accounts: one address is throttled after its budget', async () => {
    const t = await harness({
      throttle: {
        accountPerAddress: [{ limit: 5, windowMs: 60_000 }],
        account: [{ limit: 30, windowMs: 60_000 }],
        address: [{ limit: 3, windowMs: 60_000 }],
        attemptsPerPage: 5,
        pagesPerIpPerMinute: 60,
        clientFailuresPerIpPerMinute: 20,
      },
    });
    for (let i = 0; i < 3; i++) {
      expect((await t.login(await t.open(), `guess${i}@example.com`, 'password1')).status).toBe(
        401,
      );
    }
    expect((await t.login(await t.open(), t.fan.email, PASSWORD)).status).toBe(429);
  });

  it('refuses over-long e-mails and passwords without hashing or counting them', async () => {
    const t = await harness();
    const before = t.verifications();
    const page = await t.open();
    expect((await t.login(page, `${'a'.repeat(300)}@example.com`, PASSWORD)).status).toBe(401);
    expect((await t.login(page, t.fan.email, 'p'.repeat(257))).status).toBe(401);
    expect(t.verifications()).toBe(before);
  });

  it('counts the client address, not a spoofed X-Forwarded-For: only trusted proxies are believed', async () => {
    const t = await harness({ trustedProxies: ['10.0.0.0/8'] });
    const failFrom = async (remoteAddress: string, forwardedFor: string) => {
      const headers = { 'x-forwarded-for': forwardedFor };
      const page = await t.sut.inject({
        method: 'GET',
        url: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: t.app.clientId, redirect_uri: APP_URI })}`,
        remoteAddress,
        headers,
      });
      const cookie = /marquee_oauth=([^;]+)/.exec(String(page.headers['set-cookie']))![1]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
      const answer = await t.sut.inject({
        method: 'POST',
        url: '/oauth/authorize',
        remoteAddress,
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `marquee_oauth=${cookie}`,
        },
        payload: new URLSearchParams({
          action: 'login',
          csrf,
          email: t.fan.email,
          password: 'wrong-password',
        }).toString(),
      });
      return answer.statusCode;
    };
    // An untrusted peer rotating X-Forwarded-For is still one address: throttled after 5.
    const untrusted = [];
    for (let i = 0; i < 6; i++) untrusted.push(await failFrom('198.51.100.1', `192.0.2.${i}`));
    expect(untrusted).toEqual([401, 401, 401, 401, 401, 429]);
    // Through a trusted proxy (the edge), each client counts on its own; entries the client wrote
    // left of the proxy's are not read.
    const proxied = [];
    for (let i = 0; i < 6; i++)
      proxied.push(await failFrom('10.1.2.3', `6.6.6.6, 192.0.2.${50 + i}`));
    expect(proxied).toEqual([401, 401, 401, 401, 401, 401]);
    // The same client behind the proxy is counted under its own address.
    const same = [];
    for (let i = 0; i < 6; i++) same.push(await failFrom('10.1.2.3', `${i}.0.0.1, 192.0.2.99`));
    expect(same).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('believes the X-Forwarded-For of a request the edge vouched for with its service token, and only then', async () => {
    // No trusted proxy at all: only the edge's token makes the header count.
    const t = await harness({ trustedProxies: [] });
    const edgeToken = serviceTokenFor(serviceKeyring(), 'edge-gateway', 'marquee.auth.http');
    const otherToken = serviceTokenFor(serviceKeyring(), 'deals', 'marquee.auth.http');
    const forged = serviceTokenFor(ServiceKeyring.generate(), 'edge-gateway', 'marquee.auth.http');
    const failures = async (client: string, token: string) => {
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        const headers = { 'x-forwarded-for': client, 'x-marquee-forwarded-by': token };
        statuses.push(
          (await t.login(await t.open({}, headers), t.fan.email, 'wrong-pass', headers)).status,
        );
      }
      return statuses;
    };
    // Vouched for: each client counted under its own address (the harness peer is 127.0.0.1).
    expect(await failures('192.0.2.1', edgeToken)).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await failures('192.0.2.2', edgeToken))[0]).toBe(401);
    // Another service's token, or a forged one: the header is ignored and the peer (127.0.0.1) is
    // counted: five failures, then it waits, whatever address the header names.
    const ignored = [
      ...(await failures('192.0.2.3', otherToken)),
      ...(await failures('192.0.2.4', forged)),
    ];
    expect(ignored.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(ignored.slice(5)).toEqual([429, 429, 429, 429, 429, 429, 429]);
  });

  it('interaction flooding: one IP opening sign-in pages en masse gets 429 instead of new records', async () => {
    const t = await harness({
      throttle: {
        accountPerAddress: [{ limit: 5, windowMs: 60_000 }],
        account: [{ limit: 30, windowMs: 60_000 }],
        address: [{ limit: 50, windowMs: 60_000 }],
        attemptsPerPage: 5,
        pagesPerIpPerMinute: 3,
        clientFailuresPerIpPerMinute: 20,
      },
    });
    for (let i = 0; i < 3; i++) expect((await t.open()).status).toBe(200);
    const flooded = await t.open();
    expect(flooded.status).toBe(429);
    expect(flooded.headers['retry-after']).toBeDefined();
    expect(flooded.setCookie).toBeUndefined();
    expect(await t.stores.interactions.count()).toBe(3);
  });

  it('unknown e-mail and wrong password answer the same way (no account enumeration)', async () => {
    const t = await harness();
    const page = await t.open();
    const unknown = await t.login(page, 'nobody@example.com', 'whatever1');
    const wrong = await t.login(page, t.fan.email, 'whatever1');
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.html.replace(/value="[^"]*"/g, '')).toBe(
      wrong.html.replace(/value="[^"]*"/g, ''),
    );
  });

  it('token guessing: made-up, truncated or refresh tokens are refused at /oauth/info', async () => {
    const t = await harness();
    const tokens = await t.exchange((await t.authorize()).searchParams.get('code')!);
    const access = tokens.body.access_token as string;
    for (const guess of [
      'abc',
      access.slice(0, -1),
      `${access}x`,
      tokens.body.refresh_token as string,
    ]) {
      const response = await t.info(guess);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: 'invalid_token',
        error_description: 'The access token is unknown, expired or revoked',
      });
    }
  });

  it('tokens are stored only as fingerprints, never in clear', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const tokens = await t.exchange(code);
    const stored = JSON.stringify([
      await t.stores.tokens.find(),
      await t.stores.codes.find(),
      await t.stores.apps.find(),
      await t.stores.fans.find(),
    ]);
    for (const secret of [
      code,
      tokens.body.access_token,
      tokens.body.refresh_token,
      t.app.clientSecret,
      PASSWORD,
    ]) {
      expect(stored).not.toContain(secret as string);
    }
  });

  it('expired access tokens are refused', async () => {
    const t = await harness();
    const tokens = await t.exchange((await t.authorize()).searchParams.get('code')!);
    t.shiftClock(3601_000);
    expect((await t.info(tokens.body.access_token as string)).status).toBe(401);
  });

  it('CSRF: form posts without the page token, with a wrong one, or without the cookie are refused', async () => {
    const t = await harness();
    const page = await t.open();
    const noToken = await t.post(page.cookie, {
      action: 'login',
      email: t.fan.email,
      password: PASSWORD,
    });
    const wrongToken = await t.post(page.cookie, {
      action: 'login',
      csrf: 'forged',
      email: t.fan.email,
      password: PASSWORD,
    });
    const noCookie = await t.post(undefined, {
      action: 'login',
      csrf: page.csrf,
      email: t.fan.email,
      password: PASSWORD,
    });
    for (const refused of [noToken, wrongToken, noCookie]) {
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('Session expired');
    }
  });

  it('session fixation: signing in issues a new cookie; the old one cannot approve', async () => {
    const t = await harness();
    const page = await t.open();
    const consent = await t.login(page);
    expect(consent.cookie).toBeDefined();
    expect(consent.cookie).not.toBe(page.cookie);
    const withOld = await t.post(page.cookie, { action: 'approve', csrf: consent.csrf });
    expect(withOld.status).toBe(403);
  });

  it('approving without signing in is refused', async () => {
    const t = await harness();
    const page = await t.open();
    const response = await t.post(page.cookie, { action: 'approve', csrf: page.csrf });
    expect(response.status).toBe(403);
    expect(response.location).toBeUndefined();
  });

  it('sets the interaction cookie HttpOnly, SameSite=Strict, host-only, on /oauth, and Secure off loopback', async () => {
    const t = await harness();
    const local = await t.open({}, { host: '127.0.0.1:8081' });
    expect(local.setCookie).toMatch(/HttpOnly/);
    expect(local.setCookie).toMatch(/SameSite=Strict/);
    expect(local.setCookie).toMatch(/Path=\/oauth/);
    // Host-only: no Domain attribute, so no sibling host of the domain receives it.
    expect(local.setCookie).not.toMatch(/Domain=/i);
    const remote = await t.open({}, { host: 'auth.marquee.example' });
    expect(remote.setCookie).toMatch(/; Secure/);
  });
});

describe('token endpoint errors (RFC 6749 section 5.2)', () => {
  it('refuses a wrong client secret with 401 invalid_client, in the body or with Basic', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const wrong = await t.exchange(code, { client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
    const basic = Buffer.from(`${t.app.clientId}:wrong`).toString('base64');
    const wrongBasic = await t.token(
      { grant_type: 'authorization_code', code, redirect_uri: APP_URI },
      { authorization: `Basic ${basic}` },
    );
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it('client-secret flooding: after 20 failures a minute an IP gets 429 before argon2 runs', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    for (let i = 0; i < 20; i++) {
      expect((await t.exchange(code, { client_secret: `guess-${i}` })).status).toBe(401);
    }
    const before = t.verifications();
    const refused = await t.exchange(code);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    expect(refused.headers['retry-after']).toBeDefined();
    expect(t.verifications()).toBe(before);
    t.shiftClock(60_000);
    expect((await t.exchange(code)).status).toBe(200);
  });

  it('client-secret flooding in parallel: 60 bad secrets at once run at most 20 argon2 verifications', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const before = t.verifications();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => t.exchange(code, { client_secret: `parallel-${i}` })),
    );
    expect(t.verifications() - before).toBeLessThanOrEqual(20);
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(20);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(40);
    for (const answer of answers) expect(answer.body.error).toBe('invalid_client');
  });

  it('a malformed Basic header on /oauth/revoke is 401 invalid_client, never a 500', async () => {
    const t = await harness();
    for (const authorization of [
      `Basic ${Buffer.from(`${t.app.clientId}:%E0%A4%A`).toString('base64')}`,
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Basic !!!',
      'Bearer abc',
      'Basic',
    ]) {
      const answer = await t.sut.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        payload: 'token=x',
      });
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toMatchObject({ error: 'invalid_client' });
    }
    const good = Buffer.from(
      `${encodeURIComponent(t.app.clientId)}:${encodeURIComponent(t.app.clientSecret)}`,
    ).toString('base64');
    const ok = await t.sut.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${good}`,
      },
      payload: 'token=x',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses oversized form posts unread (413 family error, never a 500) and an over-long state', async () => {
    const t = await harness();
    const before = t.verifications();
    const big = await t.token({
      grant_type: 'authorization_code',
      code: 'x',
      client_id: t.app.clientId,
      client_secret: 's'.repeat(20_000),
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'invalid_request' });
    expect(t.verifications()).toBe(before);
    const page = await t.open();
    const huge = await t.post(page.cookie, {
      action: 'login',
      csrf: page.csrf,
      email: `${'a'.repeat(20_000)}@example.com`,
      password: PASSWORD,
    });
    expect(huge.status).toBe(413);
    const longState = await t.open({ state: 's'.repeat(513) });
    expect(longState.status).toBe(302);
    expect(new URL(longState.location!).searchParams.get('error')).toBe('invalid_request');
  });

  it('suspending an app stops its access tokens at once (introspection and /oauth/info)', async () => {
    const t = await harness();
    const tokens = await t.exchange((await t.authorize()).searchParams.get('code')!);
    const accessToken = tokens.body.access_token as string;
    expect(await t.flows.introspect(accessToken)).toBeDefined();
    const stored = (await t.stores.apps.find()).find((app) => app.clientId === t.app.clientId)!;
    await t.stores.apps.update(stored.id, stored.version, { ...stored, status: 'suspended' });
    expect(await t.flows.introspect(accessToken)).toBeUndefined();
    expect((await t.info(accessToken)).status).toBe(401);
  });

  it('accepts HTTP Basic client authentication', async () => {
    const t = await harness();
    const code = (await t.authorize()).searchParams.get('code')!;
    const basic = Buffer.from(`${t.app.clientId}:${t.app.clientSecret}`).toString('base64');
    const ok = await t.token(
      { grant_type: 'authorization_code', code, redirect_uri: APP_URI },
      { authorization: `Basic ${basic}` },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('bearer');
  });

  it('answers invalid_request, unsupported_grant_type and invalid_grant as JSON, never a 500', async () => {
    const t = await harness();
    const creds = { client_id: t.app.clientId, client_secret: t.app.clientSecret };
    expect((await t.token({ ...creds })).body).toMatchObject({ error: 'invalid_request' });
    expect((await t.token({ ...creds, grant_type: 'password' })).body).toMatchObject({
      error: 'unsupported_grant_type',
    });
    expect(
      (
        await t.token({
          ...creds,
          grant_type: 'authorization_code',
          code: 'nope',
          redirect_uri: APP_URI,
        })
      ).body,
    ).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await t.refresh('made-up')).body).toMatchObject({ error: 'invalid_grant' });
    const json = await t.sut.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ grant_type: 'authorization_code' }),
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ error: 'invalid_request' });
    const text = await t.sut.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'text/plain' },
      payload: 'grant_type=x',
    });
    expect(text.statusCode).toBeLessThan(500);
    expect(text.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('revocation', () => {
  it('revoking a fan grant for an app kills its access and refresh tokens', async () => {
    const t = await harness();
    const tokens = await t.exchange((await t.authorize()).searchParams.get('code')!);
    await t.flows.revokeGrant(t.app.appId, t.fan.id);
    expect((await t.info(tokens.body.access_token as string)).status).toBe(401);
    expect((await t.refresh(tokens.body.refresh_token as string)).body).toMatchObject({
      error: 'invalid_grant',
    });
    // Approving again starts a new grant that works.
    const again = await t.exchange((await t.authorize()).searchParams.get('code')!);
    expect((await t.info(again.body.access_token as string)).status).toBe(200);
  });

  it('POST /oauth/revoke (RFC 7009) ends the grant; another client cannot revoke it', async () => {
    const t = await harness();
    const tokens = await t.exchange((await t.authorize()).searchParams.get('code')!);
    const other = await t.access.createApp({ name: 'Other', redirectUris: [APP_URI] });
    const revoke = (creds: { clientId: string; clientSecret: string }, token: string) =>
      t.sut.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          token,
          client_id: creds.clientId,
          client_secret: creds.clientSecret,
        }).toString(),
      });
    expect((await revoke(other, tokens.body.refresh_token as string)).statusCode).toBe(200);
    expect((await t.info(tokens.body.access_token as string)).status).toBe(200);
    expect(
      (await revoke({ ...t.app, clientSecret: 'wrong' }, tokens.body.refresh_token as string))
        .statusCode,
    ).toBe(401);
    expect((await revoke(t.app, tokens.body.refresh_token as string)).statusCode).toBe(200);
    expect((await t.info(tokens.body.access_token as string)).status).toBe(401);
  });
});

describe('client authentication cost', () => {
  it('verifies a correct secret with argon2 once per few minutes, and every wrong one every time', async () => {
    const t = await harness();
    const app = await t.flows.client(t.app.clientId);
    const before = t.verifications();
    const verifications = () => t.verifications() - before;
    for (let i = 0; i < 3; i++) {
      expect(
        await t.flows.authenticateClient(t.app.clientId, t.app.clientSecret, '192.0.2.1'),
      ).toEqual(app);
    }
    expect(verifications()).toBe(1);
    for (let i = 0; i < 3; i++) {
      expect(
        await t.flows.authenticateClient(t.app.clientId, 'guess', '192.0.2.1'),
      ).toBeUndefined();
    }
    expect(verifications()).toBe(4);
    t.shiftClock(5 * 60_000 + 1);
    await t.flows.authenticateClient(t.app.clientId, t.app.clientSecret, '192.0.2.1');
    expect(verifications()).toBe(5);
  });
});
