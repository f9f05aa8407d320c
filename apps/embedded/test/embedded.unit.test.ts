import { createLogger } from '@marquee/platform/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedMarquee } from '../src/embedded.js';

describe('embedded default', () => {
  let sut: EmbeddedMarquee;

  // Starting ten services takes seconds, more on a loaded machine: a generous hook timeout. How
  // fast it starts is a benchmark's question (bench/), not this test's; the time is printed only.
  beforeAll(async () => {
    const startedAt = Date.now();
    sut = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      logger: createLogger({ service: 'embedded-test', level: 'silent' }),
      // The caller's infrastructure variables must not leak into the embedded default.
      env: {
        KAFKA_BROKERS: '127.0.0.1:1',
        MONGO_URL: 'mongodb://127.0.0.1:1',
        LOG_LEVEL: 'silent',
      },
      metricsPort: 0,
    });
    console.info(`embedded default started in ${Date.now() - startedAt} ms`);
  }, 120_000);

  afterAll(async () => {
    await sut?.stop();
  });

  it('hosts every service in one process, each with its own gRPC server', async () => {
    expect(sut.services.map((s) => s.name).sort()).toEqual(
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
    const grpcPorts = new Set(sut.services.map((s) => s.grpcPort));
    expect(grpcPorts.size).toBe(10);
    // Started means answering, whatever it took.
    expect((await fetch(`${sut.baseUrl}/healthz`)).status).toBe(200);
  });

  it('answers /healthz and /readyz, each service reporting whether it can serve', async () => {
    expect((await fetch(`${sut.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${sut.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    const checksOf = async (name: string) => {
      const service = sut.services.find((s) => s.name === name)!;
      const answer = await service.http.inject({ method: 'GET', url: '/readyz' });
      expect(answer.statusCode).toBe(200);
      return answer.json<{ checks: Record<string, boolean> }>().checks;
    };
    // Readiness is this replica's own state: started, read models caught up. The shared bus and
    // database are never in it (they go to marquee_dependency_up).
    expect(await ready.json()).toEqual({ status: 'ready', checks: { serving: true } });
    expect(await checksOf('publisher')).toEqual({ serving: true });
    expect(await checksOf('catalog-indexer')).toEqual({
      serving: true,
      'event-changed': true,
      'availability-changed': true,
    });
  });

  it('serves the metrics of the whole process on its own loopback port, not the public one', async () => {
    expect(sut.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    // A discovery search: the edge's HTTP route and its gRPC call to catalog-indexer.
    const search = await fetch(`${sut.baseUrl}/discovery/v2/events.json?apikey=${sut.demo.apiKey}`);
    expect(search.status).toBe(200);
    const text = await (await fetch(sut.metricsUrl!)).text();
    expect(text).toMatch(
      /^http_server_request_duration_seconds_count\{service="edge-gateway",http_request_method="GET",http_response_status_code="200",http_route="\/discovery\/v2\/events\.json"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^rpc_server_call_duration_seconds_count\{rpc_system="grpc",rpc_service="marquee\.catalog\.v1\.[A-Za-z]+",rpc_method="[A-Za-z]+",rpc_grpc_status_code="0"\} [1-9]/m,
    );
    expect(text).toMatch(/^rpc_client_call_duration_seconds_count\{rpc_system="grpc",.*\} [1-9]/m);
    expect(text).toMatch(/^v8js_memory_heap_used_bytes \d/m);
    expect((await fetch(`${sut.baseUrl}/metrics`)).status).toBe(404);
  });

  it('generates an admin token when none is given and enforces it on the admin API', async () => {
    expect(sut.adminTokenGenerated).toBe(true);
    expect(sut.adminToken.length).toBeGreaterThanOrEqual(32);
    const body = JSON.stringify({ name: 'demo', redirectUris: ['https://app.example/cb'] });
    const headers = { 'content-type': 'application/json' };
    const missing = await fetch(`${sut.baseUrl}/admin/v1/apps`, { method: 'POST', headers, body });
    expect(missing.status).toBe(401);
    const wrong = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${sut.adminToken}x` },
      body,
    });
    expect(wrong.status).toBe(401);
    const invalid = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${sut.adminToken}` },
      body: JSON.stringify({ name: '', redirectUris: [] }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('creates a demo app and a demo fan through the running AuthService at start', async () => {
    expect(sut.demo).toMatchObject({
      apiKey: expect.stringMatching(/^[\w-]{32,}$/),
      clientId: expect.stringMatching(/^[\w-]{16,}$/),
      clientSecret: expect.stringMatching(/^[\w-]{43,}$/),
      redirectUri: 'http://localhost:3000/callback',
      fanEmail: 'fan@example.com',
    });
    // The fan exists: creating it again is refused by auth-gateway (409 through the edge).
    const again = await fetch(`${sut.baseUrl}/admin/v1/fans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: sut.demo.fanEmail, password: 'whatever-long' }),
    });
    expect(again.status).toBe(409);
  });

  it('serves the partner system on its own port, its back office behind its own token', async () => {
    expect(sut.partnerUrl).not.toBe(sut.baseUrl);
    expect((await fetch(`${sut.partnerUrl}/healthz`)).status).toBe(200);
    const venues = (token: string) =>
      fetch(`${sut.partnerUrl}/admin/v1/venues`, { headers: { authorization: `Bearer ${token}` } });
    expect(sut.partner.adminToken).not.toBe(sut.adminToken);
    expect((await venues(sut.adminToken)).status).toBe(401);
    expect((await venues(sut.partner.adminToken)).status).toBe(200);
  });

  it('refuses through the admin API a partner on an address not allowed, with a clear 400', async () => {
    // The run allows its own partner on 127.0.0.1 only; loopback elsewhere stays refused (only
    // loopback here, so nothing could leave the machine were the rule ever broken).
    const response = await fetch(`${sut.baseUrl}/admin/v1/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Inward',
        baseUrl: 'http://127.0.0.2:9/v1',
        authUrl: 'http://127.0.0.2:9/oauth/token',
        clientId: 'x',
        clientSecret: 'y',
        venues: ['V1'],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 'invalid_argument',
        message: expect.stringMatching(
          /^base_url must name a public host: it is a loopback address/,
        ),
      },
    });
  });

  it('shows the demo partner inventory in discovery, with areas and their prices', async () => {
    expect(sut.partner.importedEvents).toBeGreaterThan(0);
    // No PARTNER_CLIENT_ID or PARTNER_CLIENT_SECRET given: both made for this run.
    expect(sut.partner).toMatchObject({ clientIdGenerated: true, clientSecretGenerated: true });
    const key = sut.demo.apiKey;
    const found = await fetch(`${sut.baseUrl}/discovery/v2/events.json?apikey=${key}&size=50`);
    expect(found.status).toBe(200);
    const events = ((await found.json()) as { _embedded?: { events: Array<{ id: string }> } })
      ._embedded?.events;
    expect(events?.length).toBe(sut.partner.importedEvents);
    // The demo venues are in Germany and the Netherlands: international discovery's markets.
    let withAreas = 0;
    for (const event of events ?? []) {
      await new Promise((resolve) => setTimeout(resolve, 220)); // the demo app's 5 requests/s
      const answer = await fetch(
        `${sut.baseUrl}/mfxapi/v2/events/${event.id}/areas?apikey=${key}&domain=germany&domain=netherlands`,
      );
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as {
        event: { areas: Array<{ price_ranges: { excluding_ticket_fees: { min: number } } }> };
      };
      expect(body.event.areas.length).toBeGreaterThan(0);
      for (const area of body.event.areas) {
        expect(area.price_ranges.excluding_ticket_fees.min).toBeGreaterThan(0);
      }
      withAreas += 1;
    }
    expect(withAreas).toBe(events?.length);
  });
});
