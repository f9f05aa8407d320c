import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { grantPartnerDistribution } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * Client-side gRPC balancing: with two replicas each of catalog-indexer and cart, the one edge
 * spreads its calls over both of each (GRPC_ADDR_* lists both replicas; cart's client balances
 * round-robin over them, catalog-indexer's rotates over one client per replica). Each replica's
 * own Prometheus endpoint says how many calls it served.
 */
describe.skipIf(!infra)('one edge spreads gRPC calls over every replica (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;

  /** Calls of `rpcService` a replica has served, from its own `/metrics`. */
  const served = async (replica: string, rpcService: string): Promise<number> => {
    const { metricsPort } = sut.services.get(replica)!;
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    let total = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith('rpc_server_call_duration_seconds_count{')) continue;
      if (!line.includes(`rpc_service="${rpcService}"`)) continue;
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return total;
  };

  beforeAll(async () => {
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      replicas: { 'catalog-indexer': 2, cart: 2 },
    });
    const response = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'grpc balancing e2e',
        redirectUris: ['https://e2e.example/cb'],
      }),
    });
    expect(response.status).toBe(201);
    const app = (await response.json()) as { appId: string; apiKey: string };
    apiKey = app.apiKey;
    await grantPartnerDistribution(sut, app.appId);
  }, 180_000);

  afterAll(async () => {
    await sut?.stop();
  });

  it('both catalog-indexer replicas and both cart replicas serve calls from one edge', async () => {
    const catalog = 'marquee.catalog.v1.CatalogService';
    const cart = 'marquee.cart.v1.CartService';
    const replicaSets = {
      [catalog]: ['catalog-indexer', 'catalog-indexer#2'],
      [cart]: ['cart', 'cart#2'],
    };
    const before: Record<string, number> = {};
    for (const [service, names] of Object.entries(replicaSets))
      for (const name of names) before[`${name} ${service}`] = await served(name, service);

    const marker = randomBytes(4).toString('hex');
    const eventId = `Eb${marker}00000`; // 15 letters and digits, unknown to the partner
    for (let n = 0; n < 8; n++) {
      // An app's default quota is 5 requests a second.
      await new Promise((resolve) => setTimeout(resolve, 220));
      const search = await fetch(
        `${sut.baseUrl}/discovery/v2/events.json?keyword=bal${marker}${n}&apikey=${apiKey}`,
      );
      expect(search.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 220));
      // An unknown cart: cart itself answers it (404 code 90003), so the call reaches a replica.
      const read = await fetch(
        `${sut.baseUrl}/partners/v1/events/${eventId}/cart?cart_id=c${marker}${n}&apikey=${apiKey}`,
      );
      expect(read.status, await read.text()).toBe(404);
    }

    for (const [service, names] of Object.entries(replicaSets)) {
      for (const name of names) {
        const after = await served(name, service);
        expect(after, `${name} served ${service} calls`).toBeGreaterThan(
          before[`${name} ${service}`]!,
        );
      }
    }
  }, 120_000);
});
