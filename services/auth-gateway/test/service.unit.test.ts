import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { createMemoryBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { hostService, type HostedService } from '@marquee/platform/service';
import { authV1 } from '@marquee/proto';
import { appAuthorizedTopic, fanDeletedTopic } from '@marquee/proto/topics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authGatewayService } from '../src/index.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

/** The composed service as the embedded default hosts it: gRPC API, /oauth routes, outbox relay. */
describe('auth-gateway composed (memory mode)', () => {
  let bus: EventBus;
  let sut: HostedService;
  let grpc: InstanceType<typeof authV1.AuthServiceClient>;
  let base: string;
  const authorized: authV1.AppAuthorized[] = [];
  const deleted: Array<{ key: string; value: authV1.FanDeleted | null }> = [];

  beforeAll(async () => {
    bus = createMemoryBus({ source: 'test' });
    await bus.subscribe(appAuthorizedTopic, { group: 'test' }, async (event) => {
      if (event.value) authorized.push(event.value);
    });
    await bus.subscribe(fanDeletedTopic, { group: 'test' }, async (event) => {
      deleted.push({ key: event.key, value: event.value });
    });
    await bus.start();
    const infra = { name: 'auth-gateway', logger, bus, mongo: undefined };
    const config = authGatewayService.loadConfig({ HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    sut = await hostService(infra, await authGatewayService.compose(infra, config), {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: authGatewayService.callers!,
    });
    base = `http://127.0.0.1:${sut.httpPort}`;
    // Every RPC answers the edge only.
    grpc = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${sut.grpcPort}`, {
      deadlineMs: 5_000,
      logger,
      caller: 'edge-gateway',
    });
  });

  /** Signs the fan in on the pages, approves the app and exchanges the code for tokens. */
  async function authorize(
    app: { clientId: string; clientSecret: string },
    redirectUri: string,
    fan: { email: string; password: string },
  ): Promise<{ access_token: string; refresh_token: string }> {
    const cookieOf = (r: Response) =>
      /marquee_oauth=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
    });
    const page = await fetch(`${base}/oauth/authorize?${query}`);
    const post = (cookie: string, form: Record<string, string>) =>
      fetch(`${base}/oauth/authorize`, {
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
      ...fan,
    });
    const approved = await post(cookieOf(consent)!, {
      action: 'approve',
      csrf: csrfOf(await consent.text())!,
    });
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    return (await (
      await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
      })
    ).json()) as { access_token: string; refresh_token: string };
  }

  afterAll(async () => {
    grpc?.close();
    await sut?.stop();
    await bus?.close();
  });

  it('maps CreateApp, ValidateApiKey and CheckRateLimit over gRPC', async () => {
    const app = await callUnary(grpc, 'createApp', {
      name: 'gRPC app',
      redirectUris: ['https://grpc.example/cb'],
    });
    const check = await callUnary(grpc, 'validateApiKey', { apiKey: app.apiKey });
    expect(check).toEqual({
      valid: true,
      appId: app.appId,
      clientId: app.clientId,
      status: authV1.AppStatus.APP_STATUS_ACTIVE,
      quota: { limit: 5000, windowMs: 86_400_000 },
      access: { commerceShopping: false, partnerDistribution: false },
      heldTicketsPerEvent: 20,
    });
    const unknown = await callUnary(grpc, 'validateApiKey', { apiKey: 'nope' });
    expect(unknown).toMatchObject({
      valid: false,
      appId: '',
      status: authV1.AppStatus.APP_STATUS_UNSPECIFIED,
    });
    const rate = await callUnary(grpc, 'checkRateLimit', { appId: app.appId, cost: 0, lease: 0 });
    expect(rate).toMatchObject({ limit: 5000, available: 4999, over: false });
  });

  it('refuses its RPCs to a caller without a service token (UNAUTHENTICATED) and to any service but the edge', async () => {
    const address = `127.0.0.1:${sut.grpcPort}`;
    const outsider = new authV1.AuthServiceClient(address, credentials.createInsecure());
    const codeOf = (call: (done: (error: ServiceError | null) => void) => void) =>
      new Promise<number | undefined>((resolve) => call((error) => resolve(error?.code)));
    const request = { name: 'Intruder app', redirectUris: ['https://evil.example/cb'] };
    expect(await codeOf((done) => outsider.createApp(request, done))).toBe(status.UNAUTHENTICATED);
    expect(
      await codeOf((done) => outsider.createFan({ email: 'x@example.com', password: 'p' }, done)),
    ).toBe(status.UNAUTHENTICATED);
    expect(await codeOf((done) => outsider.revokeGrant({ fanId: 'f', clientId: 'c' }, done))).toBe(
      status.UNAUTHENTICATED,
    );
    // Reads too: nothing answers a caller that is no Marquee service.
    expect(await codeOf((done) => outsider.validateApiKey({ apiKey: 'k' }, done))).toBe(
      status.UNAUTHENTICATED,
    );
    outsider.close();
    const cart = createGrpcClient(authV1.AuthServiceClient, address, { caller: 'cart' });
    await expect(callUnary(cart, 'createApp', request)).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    // Reads too: which keys are valid is the edge's question only.
    await expect(callUnary(cart, 'validateApiKey', { apiKey: 'k' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    cart.close();
  });

  it('gives an app the quota it was created with', async () => {
    const app = await callUnary(grpc, 'createApp', {
      name: 'Quota app',
      redirectUris: ['https://quota.example/cb'],
      quotaPerDay: 2,
    });
    const check = await callUnary(grpc, 'validateApiKey', { apiKey: app.apiKey });
    expect(check.quota).toEqual({ limit: 2, windowMs: 86_400_000 });
    const over = [];
    for (let i = 0; i < 3; i++) {
      over.push(
        (await callUnary(grpc, 'checkRateLimit', { appId: app.appId, cost: 1, lease: 0 })).over,
      );
    }
    expect(over).toEqual([false, false, true]);
  });

  it('sets and reads an app approval over gRPC; ValidateApiKey answers it at once', async () => {
    const app = await callUnary(grpc, 'createApp', {
      name: 'Shop app',
      redirectUris: ['https://shop.example/cb'],
    });
    expect(await callUnary(grpc, 'getAppAccess', { appId: app.appId })).toEqual({
      appId: app.appId,
      access: { commerceShopping: false, partnerDistribution: false },
    });
    expect(
      await callUnary(grpc, 'setAppAccess', { appId: app.appId, commerceShopping: true }),
    ).toEqual({ appId: app.appId, access: { commerceShopping: true, partnerDistribution: false } });
    const check = await callUnary(grpc, 'validateApiKey', { apiKey: app.apiKey });
    expect(check.access).toEqual({ commerceShopping: true, partnerDistribution: false });
    // No flag given: nothing changes.
    expect(await callUnary(grpc, 'setAppAccess', { appId: app.appId })).toEqual({
      appId: app.appId,
      access: { commerceShopping: true, partnerDistribution: false },
    });
    await callUnary(grpc, 'setAppAccess', { appId: app.appId, commerceShopping: false });
    expect(
      (await callUnary(grpc, 'validateApiKey', { apiKey: app.apiKey })).access?.commerceShopping,
    ).toBe(false);
    await expect(
      callUnary(grpc, 'setAppAccess', { appId: 'missing', commerceShopping: true }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(callUnary(grpc, 'getAppAccess', { appId: '' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('reads an app for operators over gRPC, its tracking id included and no secret', async () => {
    const app = await callUnary(grpc, 'createApp', {
      name: 'Read app',
      redirectUris: ['https://read.example/cb'],
    });
    const read = await callUnary(grpc, 'getApp', { appId: app.appId });
    expect(read).toMatchObject({
      appId: app.appId,
      name: 'Read app',
      clientId: app.clientId,
      trackingId: app.trackingId,
      redirectUris: ['https://read.example/cb'],
      status: authV1.AppStatus.APP_STATUS_ACTIVE,
      access: { commerceShopping: false, partnerDistribution: false },
      oauth: { requirePkce: false, rotateRefreshTokens: false },
    });
    expect(read.perSecond).toBeGreaterThan(0);
    expect(read.createdAt).toBeInstanceOf(Date);
    expect(JSON.stringify(read)).not.toContain(app.apiKey);
    expect(JSON.stringify(read)).not.toContain(app.clientSecret);
    await expect(callUnary(grpc, 'getApp', { appId: 'missing' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('creates an app with OAuth settings and changes them over gRPC (SetAppOAuth: the edge only)', async () => {
    const app = await callUnary(grpc, 'createApp', {
      name: 'PKCE app',
      redirectUris: ['https://pkce.example/cb'],
      requirePkce: true,
    });
    expect(await callUnary(grpc, 'setAppOAuth', { appId: app.appId })).toEqual({
      appId: app.appId,
      oauth: { requirePkce: true, rotateRefreshTokens: false },
    });
    expect(
      await callUnary(grpc, 'setAppOAuth', {
        appId: app.appId,
        requirePkce: false,
        rotateRefreshTokens: true,
      }),
    ).toEqual({ appId: app.appId, oauth: { requirePkce: false, rotateRefreshTokens: true } });
    await expect(
      callUnary(grpc, 'setAppOAuth', { appId: 'missing', requirePkce: true }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    const cart = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${sut.grpcPort}`, {
      caller: 'cart',
    });
    await expect(
      callUnary(cart, 'setAppOAuth', { appId: app.appId, requirePkce: false }),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    cart.close();
  });

  it('answers domain errors with their gRPC status kinds, never INTERNAL', async () => {
    await expect(
      callUnary(grpc, 'createApp', { name: 'x', redirectUris: ['ftp://x.example/cb'] }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    const fan = { email: `dup-${Date.now()}@example.com`, password: 'long enough' };
    await callUnary(grpc, 'createFan', fan);
    await expect(callUnary(grpc, 'createFan', fan)).rejects.toMatchObject({
      kind: 'already_exists',
    });
    await expect(
      callUnary(grpc, 'checkRateLimit', { appId: 'missing', cost: 1, lease: 0 }),
    ).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('serves the OAuth flow on its HTTP port, introspects the token and relays app-authorized to the bus', async () => {
    const redirectUri = 'https://flow.example/cb';
    const app = await callUnary(grpc, 'createApp', {
      name: 'Flow app',
      redirectUris: [redirectUri],
    });
    const fan = { email: `flow-${Date.now()}@example.com`, password: 'long enough' };
    await callUnary(grpc, 'createFan', fan);
    const tokens = await authorize(app, redirectUri, fan);

    const active = await callUnary(grpc, 'introspectToken', { accessToken: tokens.access_token });
    expect(active).toMatchObject({
      active: true,
      clientId: app.clientId,
      appId: app.appId,
      scope: 'all',
      email: fan.email,
    });
    expect(active.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    const inactive = await callUnary(grpc, 'introspectToken', { accessToken: 'guess' });
    expect(inactive).toMatchObject({ active: false, clientId: '', email: '' });

    // Relayed from the outbox through the bus: a loaded machine may need more than the default second.
    await expect
      .poll(() => authorized.filter((a) => a.clientId === app.clientId).length, {
        timeout: 10_000,
      })
      .toBe(1);
    expect(authorized.find((a) => a.clientId === app.clientId)).toMatchObject({
      appId: app.appId,
      userId: active.userId,
      scope: 'all',
    });

    // RevokeGrant (admin): the fan withdraws the app; both tokens stop working everywhere.
    await expect(
      callUnary(grpc, 'revokeGrant', { fanId: 'missing', clientId: app.clientId }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(
      callUnary(grpc, 'revokeGrant', { fanId: active.fanId, clientId: 'missing' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect((await fetch(`${base}/oauth/info/${tokens.access_token}`)).status).toBe(200);
    const revoked = await callUnary(grpc, 'revokeGrant', {
      fanId: active.fanId,
      clientId: app.clientId,
    });
    expect(revoked).toEqual({ revokedTokens: 2 });
    const info = await fetch(`${base}/oauth/info/${tokens.access_token}`);
    expect(info.status).toBe(401);
    expect(await info.json()).toMatchObject({ error: 'invalid_token' });
    expect(
      await callUnary(grpc, 'introspectToken', { accessToken: tokens.access_token }),
    ).toMatchObject({ active: false, clientId: '', fanId: '' });
    const refresh = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    // Idempotent: nothing left to revoke.
    expect(
      await callUnary(grpc, 'revokeGrant', { fanId: active.fanId, clientId: app.clientId }),
    ).toEqual({ revokedTokens: 0 });
  });

  it("DeleteFan deletes the fan with their grants and tokens and relays fan-deleted, the fan's id alone", async () => {
    const redirectUri = 'https://erase.example/cb';
    const app = await callUnary(grpc, 'createApp', {
      name: 'Erase app',
      redirectUris: [redirectUri],
    });
    const fan = { email: `erase-${Date.now()}@example.com`, password: 'long enough' };
    const { id: fanId } = await callUnary(grpc, 'createFan', fan);
    const tokens = await authorize(app, redirectUri, fan);
    expect((await fetch(`${base}/oauth/info/${tokens.access_token}`)).status).toBe(200);

    expect(await callUnary(grpc, 'deleteFan', { fanId })).toEqual({ deletedGrants: 1 });

    // The tokens stop at once, the account cannot sign in, the e-mail is free again.
    expect((await fetch(`${base}/oauth/info/${tokens.access_token}`)).status).toBe(401);
    expect(
      await callUnary(grpc, 'introspectToken', { accessToken: tokens.access_token }),
    ).toMatchObject({ active: false, fanId: '' });
    await expect(
      callUnary(grpc, 'revokeGrant', { fanId, clientId: app.clientId }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    // A second deletion, or one of a fan that never was: NOT_FOUND, nothing more recorded.
    await expect(callUnary(grpc, 'deleteFan', { fanId })).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(callUnary(grpc, 'deleteFan', { fanId: 'missing' })).rejects.toMatchObject({
      kind: 'not_found',
    });
    expect(await callUnary(grpc, 'createFan', fan)).toMatchObject({ id: expect.any(String) });

    await expect
      .poll(() => deleted.filter((d) => d.key === fanId).length, { timeout: 10_000 })
      .toBe(1);
    const record = deleted.find((d) => d.key === fanId)!;
    expect(record.value).toEqual({ fanId, deletedAt: expect.any(Date) });
    expect(JSON.stringify(record.value)).not.toContain(fan.email);
  });
});
