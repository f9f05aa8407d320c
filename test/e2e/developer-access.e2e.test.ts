import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { authV1 } from '@marquee/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/** Issue 3: developer apps, API keys and quotas, every service as its own process. */
describe.skipIf(!infra)('developer access through the edge (distributed mode)', () => {
  let sut: Stack;
  let auth: InstanceType<typeof authV1.AuthServiceClient>;

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const authGateway = sut.services.get('auth-gateway')!;
    auth = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${authGateway.grpcPort}`, {
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
      clientId: string;
      clientSecret: string;
    };
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'clientId', 'clientSecret']);

    const check = await callUnary(auth, 'validateApiKey', { apiKey: created.apiKey });
    expect(check).toMatchObject({
      valid: true,
      clientId: created.clientId,
      status: authV1.AppStatus.APP_STATUS_ACTIVE,
      quota: { limit: 5000, windowMs: 86_400_000 },
    });
    const unknown = await callUnary(auth, 'validateApiKey', { apiKey: `${created.apiKey}x` });
    expect(unknown.valid).toBe(false);

    const first = await callUnary(auth, 'checkRateLimit', { appId: check.appId, cost: 1 });
    const second = await callUnary(auth, 'checkRateLimit', { appId: check.appId, cost: 1 });
    expect([first.limit, first.available, second.available]).toEqual([5000, 4999, 4998]);
    expect(first.over).toBe(false);
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
});
