import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { authV1 } from '@marquee/proto';
import { appAuthorizedTopic } from '@marquee/proto/topics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/** Developer apps, API keys and quotas, every service as its own process. */
describe.skipIf(!infra)('developer access through the edge (distributed mode)', () => {
  let sut: Stack;
  let auth: InstanceType<typeof authV1.AuthServiceClient>;

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const authGateway = sut.services.get('auth-gateway')!;
    // As the edge: auth-gateway answers no other service.
    auth = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${authGateway.grpcPort}`, {
      caller: 'edge-gateway',
      deadlineMs: 5_000,
      logger: createLogger({ service: 'e2e', level: 'silent' }),
    });
  });

  afterAll(async () => {
    auth?.close();
    await sut?.stop();
  });

  const admin = (path: string, body: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('creates an app through the admin API (201) whose key auth-gateway accepts and counts', async () => {
    const response = await admin('apps', {
      name: 'e2e app',
      redirectUris: ['https://e2e.example/callback'],
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as {
      apiKey: string;
      appId: string;
      clientId: string;
      clientSecret: string;
    };
    // appId is what the approval of restricted services (PATCH .../apps/{appId}/access) takes.
    expect(Object.keys(created).sort()).toEqual([
      'apiKey',
      'appId',
      'clientId',
      'clientSecret',
      'trackingId',
    ]);

    const check = await callUnary(auth, 'validateApiKey', { apiKey: created.apiKey });
    expect(check).toMatchObject({
      valid: true,
      clientId: created.clientId,
      status: authV1.AppStatus.APP_STATUS_ACTIVE,
      quota: { limit: 5000, windowMs: 86_400_000 },
    });
    const unknown = await callUnary(auth, 'validateApiKey', { apiKey: `${created.apiKey}x` });
    expect(unknown.valid).toBe(false);

    const first = await callUnary(auth, 'checkRateLimit', {
      appId: check.appId,
      cost: 1,
      lease: 0,
    });
    const second = await callUnary(auth, 'checkRateLimit', {
      appId: check.appId,
      cost: 1,
      lease: 0,
    });
    expect([first.limit, first.available, second.available]).toEqual([5000, 4999, 4998]);
    expect(first.over).toBe(false);
  });

  it('lets a new key through the edge guard with Rate-Limit headers, refuses unknown keys, and 429s a burst', async () => {
    const created = (await (
      await admin('apps', { name: 'guard app', redirectUris: ['https://guard.example/cb'] })
    ).json()) as { apiKey: string };
    const call = (key: string) =>
      fetch(`${sut.baseUrl}/discovery/v2/events.json?size=1&apikey=${encodeURIComponent(key)}`);
    const accepted = await call(created.apiKey);
    expect(accepted.status).not.toBe(401);
    expect(accepted.headers.get('rate-limit')).toBe('5000');
    expect(accepted.headers.get('rate-limit-available')).toBe('4999');
    expect(Number(accepted.headers.get('rate-limit-reset'))).toBeGreaterThan(Date.now());
    expect(accepted.headers.get('rate-limit-over')).toBe('0');

    const unknown = await call(`${created.apiKey}-guessed`);
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({
      fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } },
    });

    // 30 calls at once: even if a loaded machine spreads their arrival over five one-second
    // windows, one of them sees more than 5.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const burst = await Promise.all(Array.from({ length: 30 }, () => call(created.apiKey)));
    const refused = burst.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.headers.get('rate-limit-over')).toBe('1');
  });

  it('creates a fan once (201, then 409 in the admin error body)', async () => {
    const fan = { email: `fan-${Date.now()}@example.com`, password: 'a long passphrase' };
    const created = await admin('fans', fan);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: expect.any(String) });
    const again = await admin('fans', { ...fan, email: fan.email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: { code: 'already_exists', message: expect.any(String) },
    });
  });

  it('answers a bad app in the admin error body, never a 500', async () => {
    const response = await admin('apps', {
      name: 'bad',
      redirectUris: ['http://not-loopback.example/cb'],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: expect.any(String) } });
  });

  it('runs the OAuth flow through the edge base URL and publishes app-authorized to Kafka', async () => {
    const redirectUri = 'https://e2e.example/oauth-callback';
    const app = (await (
      await admin('apps', { name: 'e2e oauth app', redirectUris: [redirectUri] })
    ).json()) as { clientId: string; clientSecret: string };
    const fan = { email: `oauth-${Date.now()}@example.com`, password: 'a long passphrase' };
    const createdFan = await admin('fans', fan);
    expect(createdFan.status).toBe(201);
    const { id: fanId } = (await createdFan.json()) as { id: string };

    const seen: authV1.AppAuthorized[] = [];
    const bus: EventBus = createKafkaBus({
      brokers: infra!.kafkaBrokers.split(','),
      clientId: 'e2e-app-authorized',
      source: '//marquee/e2e',
    });
    await bus.subscribe(
      appAuthorizedTopic,
      { group: `e2e-app-authorized-${Date.now()}`, fromBeginning: true },
      async (event) => {
        if (event.value && event.key === app.clientId) seen.push(event.value);
      },
    );
    await bus.start();
    try {
      const cookieOf = (response: Response) =>
        /marquee_oauth=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: 'all',
        state: 'e2e-state',
      });
      const page = await fetch(`${sut.baseUrl}/oauth/authorize?${query}`);
      expect(page.status).toBe(200);
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
      const consent = await post(cookieOf(page)!, {
        action: 'login',
        csrf: csrfOf(await page.text())!,
        email: fan.email,
        password: fan.password,
      });
      expect(consent.status).toBe(200);
      const approved = await post(cookieOf(consent)!, {
        action: 'approve',
        csrf: csrfOf(await consent.text())!,
      });
      expect(approved.status).toBe(302);
      const callback = new URL(approved.headers.get('location')!);
      expect(callback.searchParams.get('state')).toBe('e2e-state');

      const token = await fetch(`${sut.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: redirectUri,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
      });
      expect(token.status).toBe(200);
      const tokens = (await token.json()) as { access_token: string };
      const info = await fetch(`${sut.baseUrl}/oauth/info/${tokens.access_token}`);
      expect(await info.json()).toMatchObject({ email: fan.email, email_verified: false });

      const introspected = await callUnary(auth, 'introspectToken', {
        accessToken: tokens.access_token,
      });
      expect(introspected).toMatchObject({ active: true, clientId: app.clientId, scope: 'all' });

      await expect.poll(() => seen.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      expect(seen[0]).toMatchObject({ clientId: app.clientId, scope: 'all' });

      // The operator withdraws the app for the fan through the admin API: the token stops working.
      const revoke = (path: string, token = sut.adminToken) =>
        fetch(`${sut.baseUrl}/admin/v1/${path}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
        });
      expect((await revoke(`fans/${fanId}/grants/${app.clientId}`, 'not-the-token')).status).toBe(
        401,
      );
      const unknownFan = await revoke(`fans/no-such-fan/grants/${app.clientId}`);
      expect(unknownFan.status).toBe(404);
      expect(await unknownFan.json()).toMatchObject({ error: { code: 'not_found' } });
      const revoked = await revoke(`fans/${fanId}/grants/${app.clientId}`);
      expect(revoked.status).toBe(204);
      const refused = await fetch(`${sut.baseUrl}/oauth/info/${tokens.access_token}`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'invalid_token' });
      expect(
        await callUnary(auth, 'introspectToken', { accessToken: tokens.access_token }),
      ).toMatchObject({ active: false });
    } finally {
      await bus.close();
    }
  });
});
