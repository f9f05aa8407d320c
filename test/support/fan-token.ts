import { randomBytes } from 'node:crypto';
import type { Stack } from './stack.js';

/**
 * A signed-in fan's access token for an app, as a fan's browser gets it: the fan is created through
 * the admin API (`createFan`), then the OAuth authorization-code flow runs through the edge (`/oauth/authorize`:
 * login form, consent, redirect with the code; `/oauth/token`: the code for a token). For the APIs
 * that act for a fan (commerce shopping). Outside `expect`: a step that fails throws with what the
 * platform answered. The flow itself, step by step, is tested in `developer-access.e2e.test.ts`.
 */

/** An app as `POST /admin/v1/apps` created it, with one of its redirect URIs. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const cookieOf = (response: Response): string => {
  const cookie = /marquee_oauth=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error(`no marquee_oauth cookie in an answer ${response.status}`);
  return cookie;
};

const csrfOf = (html: string): string => {
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error('no csrf field in the OAuth page');
  return csrf;
};

/** A fan account (`POST /admin/v1/fans`); answers its id. */
export async function createFan(
  sut: Pick<Stack, 'baseUrl' | 'adminToken'>,
  fan: { email: string; password: string },
): Promise<string> {
  const created = await fetch(`${sut.baseUrl}/admin/v1/fans`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(fan),
  });
  if (created.status !== 201)
    throw new Error(`creating a fan answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { id: string }).id;
}

/** The access token of an existing fan (`createFan`) for `app`, through the OAuth flow. */
export async function fanAccessToken(
  sut: Pick<Stack, 'baseUrl'>,
  app: OAuthApp,
  fan: { email: string; password: string },
): Promise<string> {
  const { email, password } = fan;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope: 'all',
    state: randomBytes(8).toString('hex'),
  });
  const page = await fetch(`${sut.baseUrl}/oauth/authorize?${query}`);
  if (page.status !== 200) throw new Error(`/oauth/authorize answered ${page.status}`);
  const post = (cookie: string, form: Record<string, string>) =>
    fetch(`${sut.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `marquee_oauth=${cookie}`,
      },
      body: new URLSearchParams(form),
    });
  const consent = await post(cookieOf(page), {
    action: 'login',
    csrf: csrfOf(await page.text()),
    email,
    password,
  });
  if (consent.status !== 200) throw new Error(`the OAuth login answered ${consent.status}`);
  const approved = await post(cookieOf(consent), {
    action: 'approve',
    csrf: csrfOf(await consent.text()),
  });
  const location = approved.headers.get('location');
  if (approved.status !== 302 || !location)
    throw new Error(`the OAuth consent answered ${approved.status}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error('the OAuth redirect carries no code');

  const token = await fetch(`${sut.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }),
  });
  if (token.status !== 200)
    throw new Error(`/oauth/token answered ${token.status}: ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
