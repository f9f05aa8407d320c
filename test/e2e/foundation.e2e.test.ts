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
    // /readyz checks exactly the infrastructure a service uses (its `uses`): the edge neither bus
    // nor Mongo, partner-reference no bus, catalog-indexer no Mongo (its read model is the topics,
    // read whole: it is ready once caught up).
    const withoutBus = new Set(['edge-gateway', 'partner-reference']);
    const withoutMongo = new Set(['edge-gateway', 'catalog-indexer']);
    for (const service of sut.services.values()) {
      const health = await fetch(`http://127.0.0.1:${service.httpPort}/healthz`);
      expect(health.status, service.name).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${service.httpPort}/readyz`);
      expect(ready.status, service.name).toBe(200);
      const checks = Object.keys(((await ready.json()) as { checks?: object }).checks ?? {});
      expect(checks.includes('event-bus'), service.name).toBe(!withoutBus.has(service.name));
      expect(checks.includes('mongo'), service.name).toBe(!withoutMongo.has(service.name));
      if (service.name === 'catalog-indexer')
        expect(checks, service.name).toEqual(expect.arrayContaining(['event-changed']));
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
