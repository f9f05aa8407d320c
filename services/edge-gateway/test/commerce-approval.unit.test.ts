import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { cachingDeveloperAccess } from '../src/adapters/caching-developer-access.js';
import type { ApiKeyCheck, DeveloperAccess } from '../src/app/backends.js';
import type { AppAccess, AppAccessAdmin } from '../src/app/commerce.js';
import { useEdge, adminInject } from './edge-harness.js';

const startEdge = useEdge();

/** An auth-gateway stand-in holding one app's approval. */
function authGateway() {
  const apps = new Map<string, AppAccess>([
    ['app-1', { commerceShopping: false, partnerDistribution: false }],
  ]);
  const admin: AppAccessAdmin = {
    async setAppAccess(appId, change) {
      const current = apps.get(appId);
      if (!current) throw new AppError('not_found', 'unknown app');
      const next = { ...current, ...change };
      apps.set(appId, next);
      return next;
    },
    async getAppAccess(appId) {
      const current = apps.get(appId);
      if (!current) throw new AppError('not_found', 'unknown app');
      return current;
    },
    async getApp(appId) {
      const current = apps.get(appId);
      if (!current) throw new AppError('not_found', 'unknown app');
      return {
        appId,
        name: 'Shop',
        clientId: 'client-1',
        trackingId: 'mqt_0123456789abcdefghijkl',
        redirectUris: ['https://shop.example/cb'],
        status: 'ACTIVE',
        quota: { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 20 },
        access: current,
        oauth: { requirePkce: false, rotateRefreshTokens: false },
        createdAt: new Date('2030-01-01T00:00:00Z'),
      };
    },
  };
  let validations = 0;
  const access: DeveloperAccess = {
    createApp: async () => ({ apiKey: 'k', clientId: 'c', clientSecret: 's' }),
    createFan: async () => ({ id: 'f' }),
    revokeGrant: async () => ({ revokedTokens: 0 }),
    deleteFan: async () => undefined,
    resolveTrackingId: async () => ({ valid: false, appId: '' }),
    checkRateLimit: async () => ({ limit: 1, available: 1, resetEpochMs: 0, over: false }),
    async validateApiKey(key): Promise<ApiKeyCheck> {
      validations++;
      return key === 'key-1'
        ? { valid: true, appId: 'app-1', access: { ...apps.get('app-1')! } }
        : { valid: false, appId: '' };
    },
  };
  return { admin, access, validations: () => validations };
}

async function edge(appAccess: AppAccessAdmin): Promise<FastifyInstance> {
  return startEdge({ appAccess });
}

const admin = (app: FastifyInstance, method: 'GET' | 'PATCH', url: string, body?: unknown) =>
  adminInject(app, method, `/admin/v1${url}`, body);

describe('GET /admin/v1/apps/{appId}', () => {
  it('answers the app with its tracking id and access, never a secret; 404 unknown; 401 without token', async () => {
    const gateway = authGateway();
    const app = await edge(gateway.admin);
    await admin(app, 'PATCH', '/apps/app-1/access', { partnerDistribution: true });
    const read = await admin(app, 'GET', '/apps/app-1');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({
      appId: 'app-1',
      name: 'Shop',
      clientId: 'client-1',
      trackingId: 'mqt_0123456789abcdefghijkl',
      redirectUris: ['https://shop.example/cb'],
      status: 'ACTIVE',
      quota: { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 20 },
      access: { commerceShopping: false, partnerDistribution: true },
      oauth: { requirePkce: false, rotateRefreshTokens: false },
      createdAt: '2030-01-01T00:00:00.000Z',
    });
    const unknown = await admin(app, 'GET', '/apps/app-9');
    expect(unknown.statusCode).toBe(404);
    const anonymous = await app.inject({ url: '/admin/v1/apps/app-1' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('admin approval of apps for restricted services', () => {
  it('approves, reads and withdraws commerce shopping', async () => {
    const gateway = authGateway();
    const app = await edge(gateway.admin);
    expect((await admin(app, 'GET', '/apps/app-1/access')).json()).toEqual({
      appId: 'app-1',
      access: { commerceShopping: false, partnerDistribution: false },
    });
    const approved = await admin(app, 'PATCH', '/apps/app-1/access', { commerceShopping: true });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toEqual({
      appId: 'app-1',
      access: { commerceShopping: true, partnerDistribution: false },
    });
    const withdrawn = await admin(app, 'PATCH', '/apps/app-1/access', { commerceShopping: false });
    expect(withdrawn.json()).toEqual({
      appId: 'app-1',
      access: { commerceShopping: false, partnerDistribution: false },
    });
  });

  it('grants and withdraws partner distribution, leaving commerce shopping as it was', async () => {
    const gateway = authGateway();
    const app = await edge(gateway.admin);
    const granted = await admin(app, 'PATCH', '/apps/app-1/access', { partnerDistribution: true });
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toEqual({
      appId: 'app-1',
      access: { commerceShopping: false, partnerDistribution: true },
    });
    const withdrawn = await admin(app, 'PATCH', '/apps/app-1/access', {
      partnerDistribution: false,
    });
    expect(withdrawn.json()).toEqual({
      appId: 'app-1',
      access: { commerceShopping: false, partnerDistribution: false },
    });
    const bad = await admin(app, 'PATCH', '/apps/app-1/access', { partnerDistribution: 'yes' });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 404 for an unknown app, 400 for a bad id or body, 401 without the admin token', async () => {
    const app = await edge(authGateway().admin);
    const unknown = await admin(app, 'PATCH', '/apps/nope/access', { commerceShopping: true });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    for (const body of [{}, { commerceShopping: 'yes' }, { commerce: true }, [], null]) {
      const response = await admin(app, 'PATCH', '/apps/app-1/access', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: expect.any(String) } });
    }
    expect((await admin(app, 'GET', '/apps/bad%20id/access')).statusCode).toBe(400);
    const anonymous = await app.inject({ method: 'GET', url: '/admin/v1/apps/app-1/access' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('an approval reaches the edge key cache within its time-to-live (30 s)', async () => {
    const gateway = authGateway();
    let now = 1_000_000;
    const cached = cachingDeveloperAccess(gateway.access, { now: () => now });
    const before = { commerceShopping: false, partnerDistribution: false };
    const after = { commerceShopping: true, partnerDistribution: false };
    expect((await cached.validateApiKey('key-1')).access).toEqual(before);
    await gateway.admin.setAppAccess('app-1', { commerceShopping: true });
    now += 29_999;
    // Still the cached answer: the approval is not seen yet...
    expect((await cached.validateApiKey('key-1')).access).toEqual(before);
    now += 2;
    // ...and it is once the 30 s are over.
    expect((await cached.validateApiKey('key-1')).access).toEqual(after);
    expect(gateway.validations()).toBe(2);
  });
});
