import { createLogger } from '@marquee/platform/logger';
import { startEmbedded, type EmbeddedMarquee } from '@marquee/embedded';
import * as oidc from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireChromium } from './chromium.js';

const canRun = requireChromium();

/**
 * A fan signs in and approves in a real browser, and a real OAuth client
 * library (openid-client) exchanges the code and refreshes the token against the running service,
 * here the embedded default reached through the edge's base URL.
 */
describe.skipIf(!canRun)('OAuth sign-in in headless Chromium', () => {
  let marquee: EmbeddedMarquee;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let app: { clientId: string; clientSecret: string };
  let config: oidc.Configuration;
  // A loopback redirect URI nobody listens on: the browser's request to it is intercepted.
  const redirectUri = 'http://127.0.0.1:9/callback';
  const fan = { email: `browser-fan-${Date.now()}@example.com`, password: 'a long passphrase' };

  beforeAll(async () => {
    marquee = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      logger: createLogger({ service: 'browser-test', level: 'silent' }),
      env: { LOG_LEVEL: 'silent' },
    });
    const admin = async (path: string, body: unknown): Promise<never> => {
      const response = await fetch(`${marquee.baseUrl}/admin/v1/${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${marquee.adminToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as never;
    };
    app = await admin('apps', { name: 'Browser Test App', redirectUris: [redirectUri] });
    await admin('fans', fan);
    // openid-client with the fans' OAuth endpoints on the edge's base URL (no discovery document).
    config = new oidc.Configuration(
      {
        issuer: marquee.baseUrl,
        authorization_endpoint: `${marquee.baseUrl}/oauth/authorize`,
        token_endpoint: `${marquee.baseUrl}/oauth/token`,
      },
      app.clientId,
      app.clientSecret,
    );
    oidc.allowInsecureRequests(config); // plain http on loopback in this test only
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await marquee?.stop();
  });

  /** Opens the authorization URL, signs in, and clicks the consent button; resolves with the redirect. */
  async function signInAndAnswer(
    page: Page,
    url: URL,
    button: 'Approve' | 'Decline',
  ): Promise<URL> {
    let captured: string | undefined;
    await page.route(`${redirectUri}**`, async (route) => {
      captured = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the app' });
    });
    await page.goto(url.href);
    await page.getByLabel('Email').fill(fan.email);
    await page.getByLabel('Password').fill(fan.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // After a real argon2 verification of the password: seconds on a loaded machine, not one.
    await expect
      .poll(() => page.getByText('Browser Test App wants to access').count(), { timeout: 30_000 })
      .toBe(1);
    await page.getByRole('button', { name: button }).click();
    await expect.poll(() => captured, { timeout: 10_000 }).toBeDefined();
    return new URL(captured!);
  }

  it('signs in, approves, and openid-client exchanges the code (PKCE) and refreshes the token', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'all',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const page = await browser.context.newPage();
    const callback = await signInAndAnswer(page, url, 'Approve');
    expect(callback.searchParams.get('state')).toBe(state);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeTruthy();

    const info = await fetch(`${marquee.baseUrl}/oauth/info/${tokens.access_token}`);
    expect(info.status).toBe(200);
    const user = (await info.json()) as { user_id: string; email: string; email_verified: boolean };
    expect(user).toEqual({ user_id: expect.any(String), email: fan.email, email_verified: false });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.scope).toBe('all');
    expect(refreshed.refresh_token).toBeUndefined();
    const again = await fetch(`${marquee.baseUrl}/oauth/info/${refreshed.access_token}`);
    expect(((await again.json()) as { user_id: string }).user_id).toBe(user.user_id);

    // A second exchange of the same code is a replay: refused, and the tokens die.
    await expect(
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await fetch(`${marquee.baseUrl}/oauth/info/${tokens.access_token}`)).status).toBe(401);
    await page.close();
  });

  it('redirects a decline with access_denied, which openid-client reports as such', async () => {
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'all',
      state,
    });
    const page = await browser.context.newPage();
    const callback = await signInAndAnswer(page, url, 'Decline');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    await expect(
      oidc.authorizationCodeGrant(config, callback, { expectedState: state }),
    ).rejects.toMatchObject({ error: 'access_denied' });
    await page.close();
  });

  it('shows the error on a wrong password and an error page (no redirect) for a foreign redirect URI', async () => {
    const page = await browser.context.newPage();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'all' });
    await page.goto(url.href);
    await page.getByLabel('Email').fill(fan.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 })
      .toContain('Incorrect email or password');

    const foreign = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://evil.example/callback',
      scope: 'all',
    });
    const response = await page.goto(foreign.href);
    expect(response?.status()).toBe(400);
    expect(page.url()).toContain('/oauth/authorize');
    expect(await page.getByRole('heading').textContent()).toBe('Invalid redirect URI');
    await page.close();
  });
});
