import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

describe.skipIf(!infra)('distributed mode: every service as its own process', () => {
  let sut: Stack;

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('starts all ten services, each healthy and ready with its real dependencies', async () => {
    expect([...sut.services.keys()].sort()).toEqual(
      [
        '3p-connector',
        'auth-gateway',
        'cart',
        'catalog-indexer',
        'deals',
        'edge-gateway',
        'partner-reference',
        'publisher',
        'reconciler',
        'secure-entry',
      ].sort(),
    );
    for (const service of sut.services.values()) {
      const health = await fetch(`http://127.0.0.1:${service.httpPort}/healthz`);
      expect(health.status, service.name).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${service.httpPort}/readyz`);
      expect(ready.status, service.name).toBe(200);
      const body = (await ready.json()) as { checks?: Record<string, boolean> };
      expect(JSON.stringify(body), service.name).toContain('event-bus');
      if (service.name !== 'edge-gateway')
        expect(JSON.stringify(body), service.name).toContain('mongo');
    }
  });

  it('refuses the admin API without the admin token, in the admin error body', async () => {
    const response = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', redirectUris: ['https://app.example/cb'] }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toEqual({
      error: { code: 'unauthenticated', message: expect.any(String) },
    });
  });

  it('carries X-Correlation-Id through the edge', async () => {
    const response = await fetch(`${sut.baseUrl}/healthz`, {
      headers: { 'x-correlation-id': 'e2e-abc-123' },
    });
    expect(response.headers.get('x-correlation-id')).toBe('e2e-abc-123');
  });

  it('stops every process cleanly on SIGTERM', async () => {
    await sut.stop();
    for (const service of sut.services.values()) {
      expect(service.child.exitCode, `${service.name}:\n${service.output.join('')}`).toBe(0);
    }
  });
});
