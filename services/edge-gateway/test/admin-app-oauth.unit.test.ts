import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AppOAuth, AppQuota, NewApp } from '../src/app/backends.js';
import { useEdge, adminInject } from './edge-harness.js';

const startEdge = useEdge();

/** auth-gateway's side: apps created, and the OAuth settings of `app-1`. */
function authGateway() {
  const created: NewApp[] = [];
  let settings: AppOAuth = { requirePkce: false, rotateRefreshTokens: false };
  let quota: AppQuota = { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 20 };
  return {
    created,
    developerAccess: {
      async createApp(input: NewApp) {
        created.push(input);
        return { appId: 'app-1', apiKey: 'k', clientId: 'c', clientSecret: 's' };
      },
    },
    appOAuth: {
      async setAppOAuth(appId: string, change: Partial<AppOAuth>) {
        if (appId !== 'app-1') throw new AppError('not_found', 'unknown app');
        settings = { ...settings, ...change };
        return settings;
      },
    },
    appQuota: {
      async setAppQuota(appId: string, change: Partial<AppQuota>) {
        if (appId !== 'app-1') throw new AppError('not_found', 'unknown app');
        quota = { ...quota, ...change };
        return quota;
      },
    },
  };
}

async function edge(gateway: ReturnType<typeof authGateway>): Promise<FastifyInstance> {
  return startEdge({
    developerAccess: gateway.developerAccess,
    appOAuth: gateway.appOAuth,
    appQuota: gateway.appQuota,
  });
}

const admin = (app: FastifyInstance, method: 'POST' | 'PATCH', url: string, body?: unknown) =>
  adminInject(app, method, `/admin/v1${url}`, body);

describe('OAuth settings of an app in the admin API', () => {
  it('passes the settings given at creation to auth-gateway, and none when absent', async () => {
    const gateway = authGateway();
    const app = await edge(gateway);
    const app1 = { name: 'Strict app', redirectUris: ['https://strict.example/cb'] };
    const strict = await admin(app, 'POST', '/apps', {
      ...app1,
      oauth: { requirePkce: true, rotateRefreshTokens: true },
    });
    expect(strict.statusCode).toBe(201);
    expect((await admin(app, 'POST', '/apps', app1)).statusCode).toBe(201);
    expect(gateway.created).toEqual([
      { ...app1, oauth: { requirePkce: true, rotateRefreshTokens: true } },
      app1,
    ]);
  });

  it('changes the settings given with PATCH /admin/v1/apps/{appId}/oauth and answers them all', async () => {
    const app = await edge(authGateway());
    const on = await admin(app, 'PATCH', '/apps/app-1/oauth', { requirePkce: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toEqual({
      appId: 'app-1',
      oauth: { requirePkce: true, rotateRefreshTokens: false },
    });
    const both = await admin(app, 'PATCH', '/apps/app-1/oauth', {
      requirePkce: false,
      rotateRefreshTokens: true,
    });
    expect(both.json()).toEqual({
      appId: 'app-1',
      oauth: { requirePkce: false, rotateRefreshTokens: true },
    });
  });

  it('answers 404 for an unknown app, 400 for a bad id or body, 401 without the admin token', async () => {
    const gateway = authGateway();
    const app = await edge(gateway);
    const unknown = await admin(app, 'PATCH', '/apps/nope/oauth', { requirePkce: true });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    for (const body of [{}, { requirePkce: 'yes' }, { pkce: true }, [], null]) {
      const response = await admin(app, 'PATCH', '/apps/app-1/oauth', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: expect.any(String) } });
    }
    expect(
      (await admin(app, 'PATCH', '/apps/bad%20id/oauth', { requirePkce: true })).statusCode,
    ).toBe(400);
    const badCreate = await admin(app, 'POST', '/apps', {
      name: 'x',
      redirectUris: ['https://x.example/cb'],
      oauth: { requirePkce: 'yes' },
    });
    expect(badCreate.statusCode).toBe(400);
    expect(gateway.created).toEqual([]);
    const anonymous = await app.inject({
      method: 'PATCH',
      url: '/admin/v1/apps/app-1/oauth',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ requirePkce: true }),
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('quotas of an app in the admin API', () => {
  it('passes the held-ticket quota given at creation, and changes quotas by PATCH', async () => {
    const gateway = authGateway();
    const app = await edge(gateway);
    const created = await admin(app, 'POST', '/apps', {
      name: 'quota app',
      redirectUris: ['https://app.example/cb'],
      quota: { heldTicketsPerEvent: 100 },
    });
    expect(created.statusCode).toBe(201);
    expect(gateway.created[0]?.quota).toEqual({ heldTicketsPerEvent: 100 });
    const changed = await admin(app, 'PATCH', '/apps/app-1/quota', { heldTicketsPerEvent: 4 });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({
      appId: 'app-1',
      quota: { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 4 },
    });
  });

  it('answers 404 for an unknown app and 400 for a bad quota, changing nothing', async () => {
    const gateway = authGateway();
    const app = await edge(gateway);
    expect((await admin(app, 'PATCH', '/apps/nope/quota', { perDay: 10 })).statusCode).toBe(404);
    for (const body of [
      {},
      { heldTicketsPerEvent: -1 },
      { heldTicketsPerEvent: 'many' },
      { other: 1 },
    ])
      expect(
        (await admin(app, 'PATCH', '/apps/app-1/quota', body)).statusCode,
        JSON.stringify(body),
      ).toBe(400);
    const bad = await admin(app, 'POST', '/apps', {
      name: 'x',
      redirectUris: ['https://app.example/cb'],
      quota: { heldTicketsPerEvent: 1.5 },
    });
    expect(bad.statusCode).toBe(400);
    expect(gateway.created).toEqual([]);
  });
});
