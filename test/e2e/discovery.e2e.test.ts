import { randomBytes } from 'node:crypto';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

interface HalEvents {
  _embedded: { events: Array<Record<string, unknown> & { _embedded: { venues: unknown[] } }> };
  page: { totalElements: number };
}
interface IntlEvents {
  events: Array<Record<string, unknown>>;
  pagination: { start: number; rows: number; total: number };
}

/**
 * An event published through the edge (publisher → event-changed on real Kafka → catalog-indexer's
 * in-memory read model and search index) is found by Discovery v2 and by
 * international discovery; an update and a deletion propagate to both. Every service is its own process.
 */
describe.skipIf(!infra)('discovery through the edge (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  const marker = `e2e${randomBytes(4).toString('hex')}`;

  // An app's default quota allows 5 requests a second (auth-gateway), counted in fixed one-second
  // windows when auth-gateway sees a call: keep 220 ms between one call's answer and the next call,
  // so that a call held up on its way (a loaded machine) cannot bunch up with the ones after it.
  let lastAnswer = 0;
  const call = async (path: string, init: RequestInit = {}) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await fetch(`${sut.baseUrl}${path}`, init);
    } finally {
      lastAnswer = Date.now();
    }
  };
  const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}apikey=${apiKey}`;
  const publish = (method: string, path: string, body?: unknown) =>
    call(withKey(`/publish/v2/${path}`), {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  const v2 = async (query: string) =>
    (await (await call(withKey(`/discovery/v2/events.json?${query}`))).json()) as HalEvents;
  const intl = async (query: string) =>
    (await (await call(withKey(`/mfxapi/v2/events?${query}`))).json()) as IntlEvents;

  const anEvent = (overrides: Record<string, unknown> = {}) => ({
    source: { id: 'e2e-publisher', name: 'E2E_Publisher' },
    version: 1,
    active: true,
    url: `https://publisher.example/${marker}`,
    names: { 'en-us': `Discovery ${marker} Night`, 'de-de': `Entdeckung ${marker} Nacht` },
    attractions: [{ source: { id: `band-${marker}`, name: 'E2E_Publisher' } }],
    classifications: [
      { primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', names: { 'en-us': 'Music' } } },
    ],
    dates: {
      start: { localDate: '2031-07-04', localTime: '20:00:00', dateTime: '2031-07-04T18:00:00Z' },
      timezone: 'Europe/Berlin',
    },
    place: {
      names: { 'en-us': `Hall ${marker}` },
      address: { line1s: { 'en-us': 'Columbiadamm 13-21' } },
      city: { names: { 'en-us': 'Berlin' } },
      country: { countryCode: 'DE', names: { 'en-us': 'Germany' } },
      location: { latitude: 52.4848, longitude: 13.3907 },
      postalCode: '10965',
    },
    priceRanges: { type: 'standard', currency: 'EUR', min: 30, max: 80 },
    ...overrides,
  });

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const response = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'discovery e2e', redirectUris: ['https://e2e.example/cb'] }),
    });
    expect(response.status).toBe(201);
    apiKey = ((await response.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('finds a published event in both discovery APIs, then sees its update and its deletion', async () => {
    const published = await publish('POST', 'events', anEvent());
    expect(published.status).toBe(200);
    const { id } = (await published.json()) as { id: string };

    // Discovery v2: whole-word keyword, HAL event with the place resolved to an embedded venue.
    const found = await waitFor(
      async () => {
        const body = await v2(`keyword=${marker}`);
        return body._embedded.events.length === 1 ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the event in discovery v2' },
    );
    const event = found._embedded.events[0]!;
    expect(event).toMatchObject({
      id,
      type: 'event',
      name: `Discovery ${marker} Night`,
      test: false,
      dates: {
        start: { dateTime: '2031-07-04T18:00:00.000Z', localDate: '2031-07-04' },
        timezone: 'Europe/Berlin',
      },
      priceRanges: [{ type: 'standard', currency: 'EUR', min: 30, max: 80 }],
      classifications: [{ primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', name: 'Music' } }],
    });
    expect(event._embedded.venues[0]).toMatchObject({
      type: 'venue',
      name: `Hall ${marker}`,
      city: { name: 'Berlin' },
      country: { countryCode: 'DE' },
      postalCode: '10965',
      location: { latitude: '52.4848', longitude: '13.3907' },
    });
    expect(found.page.totalElements).toBe(1);
    expect((await v2(`keyword=${marker.slice(0, -1)}`))._embedded.events).toHaveLength(0);
    expect(
      (await v2(`keyword=${marker}&latlong=52.52,13.40&radius=10&unit=km`))._embedded.events,
    ).toHaveLength(1);
    expect(
      (await v2(`keyword=${marker}&latlong=48.13,11.58&radius=10&unit=km`))._embedded.events,
    ).toHaveLength(0);
    const details = await call(withKey(`/discovery/v2/events/${id}?locale=de-de`));
    expect(details.status).toBe(200);
    expect(await details.json()).toMatchObject({
      id,
      name: `Entdeckung ${marker} Nacht`,
      locale: 'de-de',
    });

    // International discovery: domain germany, event_name, the v1/v2 event shape.
    const intlFound = await intl(`domain=germany&event_name=${marker}`);
    expect(intlFound.pagination.total).toBe(1);
    expect(intlFound.events[0]).toMatchObject({
      id,
      domain_id: 276,
      name: `Discovery ${marker} Night`,
      eventdate: { format: 'datetime', value: '2031-07-04T18:00:00Z' },
      venue: { name: `Hall ${marker}`, location: { address: { city: 'Berlin', country: 'DE' } } },
    });
    expect((await intl(`domain=spain&event_name=${marker}`)).pagination.total).toBe(0);

    // An update propagates to both APIs.
    const updated = await publish(
      'PUT',
      `events/${id}`,
      anEvent({ version: 2, names: { 'en-us': `Renamed ${marker} Gala` } }),
    );
    expect(updated.status).toBe(200);
    await waitFor(
      async () => (await v2(`keyword=gala%20${marker}`))._embedded.events.length === 1,
      { timeoutMs: 30_000, intervalMs: 250, description: 'the update in discovery v2' },
    );
    expect((await v2(`keyword=night%20${marker}`))._embedded.events).toHaveLength(0);
    expect((await intl(`domain=germany&event_name=gala`)).events.map((e) => e.id)).toContain(id);

    // A deletion removes it from both.
    const deleted = await publish('DELETE', `events/${id}?version=2`);
    expect(deleted.status).toBe(204);
    await waitFor(async () => (await v2(`keyword=${marker}`))._embedded.events.length === 0, {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the deletion in discovery v2',
    });
    expect((await call(withKey(`/discovery/v2/events/${id}`))).status).toBe(404);
    expect((await intl(`domain=germany&event_name=${marker}`)).pagination.total).toBe(0);
  });

  it('answers discovery v2 without a key with 401 and the fault body', async () => {
    const response = await call('/discovery/v2/events.json');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } },
    });
  });
});
