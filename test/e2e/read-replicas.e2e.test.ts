import { randomBytes } from 'node:crypto';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { waitFor } from '@marquee/platform/testing';
import {
  CatalogServiceClient,
  EventSort,
  SearchEventsRequest,
  type Event,
} from '@marquee/proto/catalog/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller, pacedPartnerCaller } from '../support/calls.js';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

interface HalEvents {
  _embedded: { events: Array<{ id: string; name: string }> };
  page: { totalElements: number };
}

/**
 * Read replicas: two catalog-indexer processes behind the edge (its GRPC_ADDR_CATALOG_INDEXER lists
 * both), each reading `event-changed` whole. After the same publishes, both hold the same catalog
 * (asked directly over gRPC) and the edge's answers do not depend on which one serves them: with
 * either replica stopped, in turn, discovery keeps answering the same thing (a rolling restart).
 */
describe.skipIf(!infra)('catalog-indexer read replicas behind the edge (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  const marker = `rr${randomBytes(4).toString('hex')}`;
  const replicaNames = ['catalog-indexer', 'catalog-indexer#2'];

  const admin = adminCaller(() => sut);
  // Publishing and discovery read the key from the `apikey` query (the caller's header is unused).
  const call = pacedPartnerCaller(
    () => sut,
    () => apiKey,
  );
  const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}apikey=${apiKey}`;
  const publish = async (method: string, path: string, body?: unknown) => {
    const response = await call(method, withKey(`/publish/v2/${path}`), { body });
    expect(response.status, await response.clone().text()).toBe(method === 'DELETE' ? 204 : 200);
    return response;
  };
  /** The edge's Discovery v2 answer, reduced to what must not depend on the replica. */
  const v2 = async (query: string) => {
    const response = await call('GET', withKey(`/discovery/v2/events.json?${query}`));
    expect(response.status).toBe(200);
    const body = (await response.json()) as HalEvents;
    return {
      total: body.page.totalElements,
      events: body._embedded.events.map((event) => `${event.id} ${event.name}`),
    };
  };
  /** The queries compared: keyword, sorts, a radius, a page, a date range. */
  const queries = [
    `keyword=${marker}`,
    `keyword=${marker}&sort=name,date.asc`,
    `keyword=${marker}&sort=eventDate,date.desc&size=2&page=1`,
    `keyword=${marker}&latlong=52.52,13.40&radius=25&unit=km`,
    `keyword=${marker}&startDateTime=2031-02-01T00:00:00Z&endDateTime=2031-05-01T00:00:00Z`,
  ];
  const edgeAnswers = async () => {
    const answers: Record<string, unknown> = {};
    for (const query of queries) answers[query] = await v2(query);
    return answers;
  };

  /** What one replica holds, asked directly over gRPC: the matching events, whole. */
  const replicaCatalog = async (name: string) => {
    const client = createGrpcClient(
      CatalogServiceClient,
      `127.0.0.1:${sut.services.get(name)!.grpcPort}`,
      { deadlineMs: 5_000, caller: 'edge-gateway' },
    );
    try {
      const answer = await callUnary(
        client,
        'searchEvents',
        SearchEventsRequest.fromPartial({
          keyword: marker,
          sort: EventSort.EVENT_SORT_NAME_ASC,
          page: { offset: 0, limit: 50 },
        }),
      );
      return { total: answer.page?.total, events: answer.events.map(comparable) };
    } finally {
      client.close();
    }
  };
  const comparable = (event: Event) => ({ ...event, availability: event.availability ?? null });

  const anEvent = (n: number, overrides: Record<string, unknown> = {}) => ({
    source: { id: 'rr-publisher', name: 'E2E_Publisher' },
    version: 1,
    active: true,
    url: `https://publisher.example/${marker}/${n}`,
    names: { 'en-us': `Replica ${marker} Show ${String.fromCharCode(64 + n)}` },
    classifications: [
      { primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', names: { 'en-us': 'Music' } } },
    ],
    dates: {
      start: { localDate: `2031-0${n}-10`, dateTime: `2031-0${n}-10T18:00:00Z` },
      timezone: 'Europe/Berlin',
    },
    place: {
      names: { 'en-us': `Hall ${marker} ${n % 2}` },
      city: { names: { 'en-us': n % 2 ? 'Berlin' : 'Munich' } },
      country: { countryCode: 'DE', names: { 'en-us': 'Germany' } },
      location: n % 2 ? { latitude: 52.5, longitude: 13.4 } : { latitude: 48.14, longitude: 11.58 },
      postalCode: n % 2 ? '10965' : '80331',
    },
    priceRanges: { type: 'standard', currency: 'EUR', min: 10 * n, max: 20 * n },
    ...overrides,
  });

  beforeAll(async () => {
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      replicas: { 'catalog-indexer': 2 },
    });
    const response = await admin('POST', 'apps', {
      name: 'read replicas e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(response.status).toBe(201);
    apiKey = ((await response.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('answers every query identically from either replica, through a rolling restart', async () => {
    expect([...sut.services.keys()]).toEqual(expect.arrayContaining(replicaNames));
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) {
      const response = await publish('POST', 'events', anEvent(n));
      ids.push(((await response.json()) as { id: string }).id);
    }
    // An update and a deletion: both replicas must apply them alike.
    await publish(
      'PUT',
      `events/${ids[0]}`,
      anEvent(1, { version: 2, names: { 'en-us': `Replica ${marker} Renamed` } }),
    );
    await publish('DELETE', `events/${ids[5]}`);

    // Both replicas, asked directly: the same five events, whole, once each has applied everything.
    const expectedNames = [
      `Replica ${marker} Renamed`,
      ...[2, 3, 4, 5].map((n) => `Replica ${marker} Show ${String.fromCharCode(64 + n)}`),
    ].sort();
    const held = [];
    for (const name of replicaNames) {
      held.push(
        await waitFor(
          async () => {
            const catalog = await replicaCatalog(name);
            const names = catalog.events.map((event) => event.names?.values['en-us']).sort();
            return JSON.stringify(names) === JSON.stringify(expectedNames) ? catalog : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 250, description: `every publish applied by ${name}` },
        ),
      );
    }
    expect(held[0]!.total).toBe(5);
    expect(held[1]).toEqual(held[0]);

    // Through the edge, which spreads calls over both: the answers it gives.
    const both = await edgeAnswers();
    expect(both[queries[0]!]).toMatchObject({ total: 5 });
    expect((both[queries[3]!] as { total: number }).total).toBe(3); // the Berlin ones
    expect((both[queries[4]!] as { total: number }).total).toBe(3); // February to April

    // Rolling restart: one replica down at a time, the other answers the same.
    for (const name of replicaNames) {
      await sut.stopService(name);
      expect(await edgeAnswers()).toEqual(both);
      await sut.startService(name); // back once it has read the topic whole (/readyz)
      expect(await replicaCatalog(name)).toEqual(held[0]);
    }
    expect(await edgeAnswers()).toEqual(both);
  }, 180_000);
});
