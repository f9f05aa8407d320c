import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN as adminToken, useEdge, expectAdmin401 } from './edge-harness.js';

const fanId = '3f2a6c1e-8d7b-4b5a-9c1d-2e3f4a5b6c7d';
const clientId = 'Zm9vYmFyYmF6cXV4cXV1eA';
const startEdge = useEdge();

const kinded = (kind: string, message: string) => Object.assign(new Error(message), { kind });

async function edge(received: Array<[string, string]>): Promise<FastifyInstance> {
  return startEdge({
    developerAccess: {
      async revokeGrant(fan, client) {
        received.push([fan, client]);
        if (fan !== fanId) throw kinded('not_found', 'unknown fan');
        if (client !== clientId) throw kinded('not_found', 'unknown app');
        return { revokedTokens: 2 };
      },
    },
  });
}

const revoke = (app: FastifyInstance, fan: string, client: string, token?: string) =>
  app.inject({
    method: 'DELETE',
    url: `/admin/v1/fans/${fan}/grants/${client}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe('DELETE /admin/v1/fans/{fanId}/grants/{clientId}', () => {
  it("revokes the fan's grant for the app through auth-gateway: 204, no body", async () => {
    const received: Array<[string, string]> = [];
    const app = await edge(received);
    const response = await revoke(app, fanId, clientId, adminToken);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(received).toEqual([[fanId, clientId]]);
  });

  it('needs the admin token: 401 admin body without it or with a wrong one, backend untouched', async () => {
    const received: Array<[string, string]> = [];
    const app = await edge(received);
    await expectAdmin401((token) => revoke(app, fanId, clientId, token));
    expect(received).toEqual([]);
  });

  it('maps an unknown fan or app to the admin 404 body', async () => {
    const received: Array<[string, string]> = [];
    const app = await edge(received);
    const unknownFan = await revoke(app, 'no-such-fan', clientId, adminToken);
    expect(unknownFan.statusCode).toBe(404);
    expect(unknownFan.json()).toEqual({ error: { code: 'not_found', message: 'unknown fan' } });
    const unknownApp = await revoke(app, fanId, 'no-such-client', adminToken);
    expect(unknownApp.statusCode).toBe(404);
    expect(unknownApp.json()).toEqual({ error: { code: 'not_found', message: 'unknown app' } });
  });

  it('refuses malformed ids with the admin 400 body before calling auth-gateway', async () => {
    const received: Array<[string, string]> = [];
    const app = await edge(received);
    const response = await revoke(app, 'bad%20id', clientId, adminToken);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect(received).toEqual([]);
  });
});
