import { createHttpServer } from '@marquee/platform/http';
import { silentLogger } from '@marquee/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEdgeGatewayConfig } from '../src/config.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const CURRENT = 'current-admin-token-0123456789abcdef';
const PREVIOUS = 'previous-admin-token-0123456789abcde';
const fanId = '3f2a6c1e-8d7b-4b5a-9c1d-2e3f4a5b6c7d';
const clientId = 'Zm9vYmFyYmF6cXV4cXV1eA';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function edge(previousAdminToken?: string): Promise<FastifyInstance> {
  app = createHttpServer({ logger: silentLogger('edge-test') });
  await registerEdgeRoutes(app, {
    adminToken: CURRENT,
    ...(previousAdminToken ? { previousAdminToken } : {}),
    version: 'test',
    backends: fakeBackends({
      developerAccess: { revokeGrant: async () => ({ revokedTokens: 0 }) },
    }),
  });
  await app.ready();
  return app;
}

const status = async (sut: FastifyInstance, token: string) =>
  (
    await sut.inject({
      method: 'DELETE',
      url: `/admin/v1/fans/${fanId}/grants/${clientId}`,
      headers: { authorization: `Bearer ${token}` },
    })
  ).statusCode;

describe('rotating ADMIN_TOKEN', () => {
  it('accepts the previous token beside the current one while it is set', async () => {
    const sut = await edge(PREVIOUS);
    expect(await status(sut, CURRENT)).toBe(204);
    expect(await status(sut, PREVIOUS)).toBe(204);
    expect(await status(sut, 'another-token-0123456789abcdefgh')).toBe(401);
  });

  it('accepts only the current token without a previous one', async () => {
    const sut = await edge();
    expect(await status(sut, CURRENT)).toBe(204);
    expect(await status(sut, PREVIOUS)).toBe(401);
  });

  it('reads ADMIN_TOKEN_PREVIOUS, held to the strength of a secret', () => {
    const previous = 'a3f9c2e17b5d4c8e9f0a1b2c3d4e5f60';
    expect(
      loadEdgeGatewayConfig({
        ADMIN_TOKEN: 'c4e8a1b9d2f7e3a6b5c0d9e8f7a6b5c4',
        ADMIN_TOKEN_PREVIOUS: previous,
      }).ADMIN_TOKEN_PREVIOUS,
    ).toBe(previous);
    expect(() => loadEdgeGatewayConfig({ ADMIN_TOKEN_PREVIOUS: 'password' })).toThrow(
      /ADMIN_TOKEN_PREVIOUS/,
    );
  });
});
