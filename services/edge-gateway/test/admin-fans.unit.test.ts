import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN as adminToken, useEdge, expectAdmin401 } from './edge-harness.js';

const fanId = '3f2a6c1e-8d7b-4b5a-9c1d-2e3f4a5b6c7d';
const startEdge = useEdge();

const kinded = (kind: string, message: string) => Object.assign(new Error(message), { kind });

/** An edge whose auth-gateway knows one fan, deleted by the first call. */
async function edge(received: string[]): Promise<FastifyInstance> {
  const fans = new Set([fanId]);
  return startEdge({
    developerAccess: {
      async deleteFan(fan) {
        received.push(fan);
        if (!fans.delete(fan)) throw kinded('not_found', 'unknown fan');
      },
    },
  });
}

const remove = (app: FastifyInstance, fan: string, token?: string) =>
  app.inject({
    method: 'DELETE',
    url: `/admin/v1/fans/${fan}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe('DELETE /admin/v1/fans/{fanId}', () => {
  it('deletes the fan through auth-gateway: 204, no body; a second deletion is the admin 404', async () => {
    const received: string[] = [];
    const app = await edge(received);
    const response = await remove(app, fanId, adminToken);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const again = await remove(app, fanId, adminToken);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: { code: 'not_found', message: 'unknown fan' } });
    expect(received).toEqual([fanId, fanId]);
  });

  it('maps an unknown fan to the admin 404 body', async () => {
    const app = await edge([]);
    const response = await remove(app, 'no-such-fan', adminToken);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'unknown fan' } });
  });

  it('needs the admin token: 401 admin body without it or with a wrong one, backend untouched', async () => {
    const received: string[] = [];
    const app = await edge(received);
    await expectAdmin401((token) => remove(app, fanId, token));
    expect(received).toEqual([]);
  });

  it('refuses a malformed fan id with the admin 400 body before calling auth-gateway', async () => {
    const received: string[] = [];
    const app = await edge(received);
    for (const bad of ['bad%20id', 'x'.repeat(65)]) {
      const response = await remove(app, bad, adminToken);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect(received).toEqual([]);
  });
});
