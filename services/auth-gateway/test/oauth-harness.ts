import { createHash, randomBytes } from 'node:crypto';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { onTestFinished, vi } from 'vitest';
import { createArgon2Hasher } from '../src/adapters/argon2-hasher.js';
import { createServiceStores } from '@marquee/platform/store';
import { createAuthStores, type AuthStores } from '../src/adapters/auth-stores.js';
import { createKeyStore, createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createMemoryRateCounter } from '../src/adapters/rate-counters.js';
import { createAppRepository, createFanRepository } from '../src/adapters/store-repositories.js';
import { DeveloperAccess } from '../src/app/developer-access.js';
import { OAuthFlows, type ThrottlePolicy } from '../src/app/oauth-flows.js';
import type { AppOAuth } from '../src/domain/app.js';
import { TrustedProxies } from '@marquee/platform/http';
import { oauthRoutes } from '../src/ports/http/oauth-routes.js';

export const APP_URI = 'https://app.example/callback';
export const OTHER_URI = 'https://app.example/other';
export const PASSWORD = 'correct horse battery';
const WINDOW_ALIGNMENT_MS = 15 * 60_000;

/** A browser's view of one response: status, page, cookie, CSRF token, redirect. */
export interface Page {
  status: number;
  html: string;
  cookie: string | undefined;
  setCookie: string | undefined;
  csrf: string | undefined;
  location: string | undefined;
  headers: Record<string, unknown>;
}

export async function oauthHarness(
  options: {
    throttle?: ThrottlePolicy;
    trustedProxies?: string[];
    /** OAuth settings of the harness's app (all off by default). */
    oauth?: Partial<AppOAuth>;
    /** The stores (default: fresh memory stores); the integration tier passes Mongo ones. */
    stores?: AuthStores;
  } = {},
) {
  const stores = options.stores ?? createAuthStores(createServiceStores(undefined));
  // The throttles count in fixed windows (a second, a minute, 15 minutes, a day, all aligned to
  // the epoch): a window boundary falling in the middle of a test would reset a count the test
  // relies on. So the test's Date starts at the beginning of a 15-minute window and runs at the
  // real pace from there; no test lasts long enough to reach the next boundary. Date itself, not
  // just the harness clock: the OAuth library checks code and token expiry against `new Date()`.
  if (!vi.isFakeTimers()) {
    vi.useFakeTimers({
      toFake: ['Date'],
      now: Math.floor(Date.now() / WINDOW_ALIGNMENT_MS) * WINDOW_ALIGNMENT_MS,
      shouldAdvanceTime: true,
    });
    onTestFinished(() => {
      vi.useRealTimers();
    });
  }
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  // Real argon2id at a test-sized cost: the code under test is the production path.
  const argon2 = createArgon2Hasher({ memoryCost: 1024, timeCost: 1 });
  let verifications = 0;
  const hasher = {
    hash: (secret: string) => argon2.hash(secret),
    verify: (hash: string, secret: string) => {
      verifications++;
      return argon2.verify(hash, secret);
    },
  };
  const apps = createAppRepository(stores);
  const fans = createFanRepository(stores);
  const counter = createMemoryRateCounter(() => clock.now().getTime());
  const access = new DeveloperAccess({ apps, fans, counter, hasher, clock });
  const flows = new OAuthFlows({
    apps,
    fans,
    oauth: createOAuthRepository(stores),
    keys: createKeyStore(stores),
    hasher,
    counter,
    clock,
    ...(options.throttle ? { throttle: options.throttle } : {}),
  });
  const sut: FastifyInstance = createHttpServer({
    logger: createLogger({ service: 'oauth-test', level: 'silent' }),
  });
  // Loopback peers (fastify's inject comes from 127.0.0.1) are trusted proxies, as in production
  // defaults: a test names the client's address with X-Forwarded-For.
  await oauthRoutes({
    flows,
    trustedProxies: new TrustedProxies(options.trustedProxies ?? ['127.0.0.0/8', '::1/128']),
  })(sut);
  await sut.ready();

  const app = await access.createApp({
    name: 'Concert <Finder>',
    redirectUris: [APP_URI, OTHER_URI],
    ...(options.oauth ? { oauth: options.oauth } : {}),
  });
  const fanEmail = `fan-${randomBytes(4).toString('hex')}@example.com`;
  const fan = await access.createFan({ email: fanEmail, password: PASSWORD });

  const toPage = (response: Awaited<ReturnType<FastifyInstance['inject']>>): Page => {
    const raw = response.headers['set-cookie'];
    const setCookie = Array.isArray(raw) ? raw[0] : raw;
    const cookie = setCookie?.match(/^marquee_oauth=([^;]*)/)?.[1];
    return {
      status: response.statusCode,
      html: response.body,
      setCookie,
      cookie: cookie || undefined,
      csrf: response.body.match(/name="csrf" value="([^"]+)"/)?.[1],
      location: response.headers.location as string | undefined,
      headers: response.headers,
    };
  };

  const authorizeUrl = (params: Record<string, string | undefined>) => {
    const query = new URLSearchParams();
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: APP_URI,
      scope: 'all',
      ...params,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined) query.set(key, value);
    return `/oauth/authorize?${query}`;
  };

  const open = async (params: Record<string, string | undefined> = {}, headers = {}) =>
    toPage(await sut.inject({ method: 'GET', url: authorizeUrl(params), headers }));

  const post = async (
    cookie: string | undefined,
    form: Record<string, string | undefined>,
    headers = {},
  ) =>
    toPage(
      await sut.inject({
        method: 'POST',
        url: '/oauth/authorize',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie: `marquee_oauth=${cookie}` } : {}),
          ...headers,
        },
        payload: new URLSearchParams(
          Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined),
        ).toString(),
      }),
    );

  const login = (page: Page, email = fanEmail, password = PASSWORD, headers = {}) =>
    post(page.cookie, { action: 'login', csrf: page.csrf, email, password }, headers);

  /** The whole browser part: open, sign in, approve; resolves with the redirect. */
  const authorize = async (params: Record<string, string | undefined> = {}) => {
    const consent = await login(await open(params));
    if (consent.status !== 200) throw new Error(`login failed: ${consent.status}`);
    const done = await post(consent.cookie, { action: 'approve', csrf: consent.csrf });
    if (done.status !== 302 || !done.location) throw new Error(`approve failed: ${done.status}`);
    return new URL(done.location);
  };

  const token = async (form: Record<string, string | undefined>, headers = {}) => {
    const response = await sut.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(
        Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined),
      ).toString(),
    });
    return {
      status: response.statusCode,
      body: response.json() as Record<string, unknown>,
      headers: response.headers,
    };
  };

  const exchange = (code: string, extra: Record<string, string | undefined> = {}) =>
    token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: APP_URI,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      ...extra,
    });

  const refresh = (refreshToken: string, extra: Record<string, string | undefined> = {}) =>
    token({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      ...extra,
    });

  const info = async (accessToken: string) => {
    const response = await sut.inject({
      method: 'GET',
      url: `/oauth/info/${encodeURIComponent(accessToken)}`,
    });
    return {
      status: response.statusCode,
      body: response.json() as Record<string, unknown>,
      headers: response.headers,
    };
  };

  return {
    sut,
    stores,
    access,
    flows,
    app,
    fan: { id: fan.id, email: fanEmail },
    /** argon2 verifications so far. */
    verifications: () => verifications,
    shiftClock: (ms: number) => {
      offsetMs += ms;
    },
    open,
    post,
    login,
    authorize,
    token,
    exchange,
    refresh,
    info,
  };
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}
