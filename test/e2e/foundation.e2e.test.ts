import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@marquee/platform/testing';
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
    // /readyz is the replica's own state (started, read models caught up), never the shared
    // infrastructure; that is probed for exactly what a service uses (its `uses`) and reported in
    // marquee_dependency_up on its metrics port: the edge neither bus nor Mongo, partner-reference
    // no bus, catalog-indexer no Mongo (its read model is the topics, read whole).
    const withoutBus = new Set(['edge-gateway', 'partner-reference']);
    const withoutMongo = new Set(['edge-gateway', 'catalog-indexer']);
    for (const service of sut.services.values()) {
      const health = await fetch(`http://127.0.0.1:${service.httpPort}/healthz`);
      expect(health.status, service.name).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${service.httpPort}/readyz`);
      expect(ready.status, service.name).toBe(200);
      const checks = ((await ready.json()) as { checks: Record<string, boolean> }).checks;
      expect(checks.serving, service.name).toBe(true);
      expect(Object.keys(checks), service.name).not.toContain('event-bus');
      expect(Object.keys(checks), service.name).not.toContain('mongo');
      if (service.name === 'catalog-indexer')
        expect(Object.keys(checks), service.name).toEqual(
          expect.arrayContaining(['event-changed']),
        );
      expect((await fetch(`http://127.0.0.1:${service.httpPort}/metrics`)).status).toBe(404);
      const up = (text: string, dependency: string) =>
        new RegExp(
          `^marquee_dependency_up\\{service="${service.name}",dependency="${dependency}"\\} 1$`,
          'm',
        ).test(text);
      // Probed as the service starts; the gauge shows the first result once it is in.
      const metrics = await waitFor(async () => {
        const text = await (await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`)).text();
        return withoutBus.has(service.name) || up(text, 'event-bus') ? text : undefined;
      });
      expect(up(metrics, 'event-bus'), service.name).toBe(!withoutBus.has(service.name));
      if (!withoutMongo.has(service.name))
        await waitFor(async () =>
          up(
            await (await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`)).text(),
            'mongo',
          ),
        );
      else
        expect(metrics, service.name).not.toMatch(
          new RegExp(`service="${service.name}",dependency="mongo"`),
        );
      expect(metrics).toMatch(/^v8js_memory_heap_used_bytes \d/m);
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
