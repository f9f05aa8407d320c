import { randomBytes } from 'node:crypto';
import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { catalogV1, eventChangedTopic } from '@marquee/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * Issue 5: a published event plus a deal created through the admin API is found by deals search
 * within seconds, through real Kafka and a real Mongo-wire server; ending the deal removes it.
 * The event enters as the publisher emits it: an `event-changed` record on Kafka.
 */
describe.skipIf(!infra)('deals search through the edge (distributed mode)', () => {
  let sut: Stack;
  let bus: EventBus;
  let apiKey: string;
  const eventId = `E2E${randomBytes(6).toString('hex')}`;
  // A unique position far from any other test's events, so radius searches see only this one.
  const venue = { latitude: 10 + Math.random() * 50, longitude: -120 + Math.random() * 40 };

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    bus = createKafkaBus({
      brokers: infra!.kafkaBrokers.split(','),
      clientId: 'e2e-deals',
      source: 'marquee/publisher',
      logger: createLogger({ service: 'e2e', level: 'warn' }),
    });
    const app = await admin('POST', 'apps', {
      name: 'deals e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    apiKey = ((await app.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    await bus?.close();
    await sut?.stop();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut.adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  // An app's default quota allows 5 requests a second (auth-gateway): keep calls 220 ms apart.
  let lastCall = 0;
  const paced = async (url: string, init?: RequestInit) => {
    const wait = lastCall + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastCall = Date.now();
    return fetch(url, init);
  };
  const deals = (path: string, query: Record<string, string>) =>
    paced(
      `${sut.baseUrl}/dc/content/v1/${path}?${new URLSearchParams({ apikey: apiKey, ...query })}`,
    );
  const near = {
    latitude: String(venue.latitude),
    longitude: String(venue.longitude + 0.05),
    radius: '10',
    radiusUnit: 'kilometers',
  };

  it('finds a published event with a deal created through the admin API, and loses it when the deal ends', async () => {
    const event = catalogV1.Event.fromPartial({
      id: eventId,
      version: 1,
      active: true,
      url: `https://tickets.example.com/${eventId}`,
      names: { values: { 'en-us': 'E2E Deals Night' } },
      classifications: [
        { primary: true, genre: { id: 'KnvZfZ7vAeA', names: { values: { 'en-us': 'Rock' } } } },
      ],
      dates: { start: { dateTime: new Date('2031-07-04T23:00:00Z') } },
      location: {
        $case: 'place',
        value: {
          names: { values: { 'en-us': 'E2E Hall' } },
          cityNames: { values: { 'en-us': 'Springfield' } },
          country: { countryCode: 'US' },
          location: venue,
        },
      },
      priceRanges: [
        {
          type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
          min: { amountMinor: 2550, currency: 'USD' },
          max: { amountMinor: 9900, currency: 'USD' },
        },
      ],
      sales: { publicSale: { startDateTime: new Date('2031-01-10T15:00:00Z') } },
      marketIds: [53],
    });
    await bus.publish(eventChangedTopic, [
      { key: eventId, value: { event, changedAt: new Date() } },
    ]);

    // The admin API answers 404 until deals has projected the event.
    const created = await waitFor(
      async () => {
        const response = await admin('POST', 'deals', {
          eventId,
          dealName: 'Two for one',
          dealDescription: 'Buy one ticket, get one free',
          dealOfferCode: 'TWOFORONE',
          exclusivity: 'EXCLUSIVE',
        });
        return response.status === 201 ? ((await response.json()) as { id: string }) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const found = await waitFor(
      async () => {
        const response = await deals('deals/events', near);
        return response.status === 200
          ? ((await response.json()) as {
              hits: number;
              totalHits: number;
              events: Array<{ eventId: string }>;
            })
          : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 0 },
    );
    expect(found).toEqual({
      hits: 1,
      totalHits: 1,
      events: [
        {
          eventId,
          eventName: 'E2E Deals Night',
          eventDate: '2031-07-04T23:00:00.000Z',
          onsaleOnDate: '2031-01-10T15:00:00.000Z',
          eventDetailsLink: `https://tickets.example.com/${eventId}`,
          minPrice: 25.5,
          maxPrice: 99,
          currency: 'USD',
          deals: [
            {
              dealName: 'Two for one',
              dealDescription: 'Buy one ticket, get one free',
              dealOfferCode: 'TWOFORONE',
            },
          ],
          attractions: [],
          venue: {
            venueId: expect.any(Number),
            venueName: 'E2E Hall',
            venueLatitude: venue.latitude,
            venueLongitude: venue.longitude,
          },
          categorization: {
            majorGenres: [{ name: 'Rock', id: expect.any(Number) }],
            minorGenres: [],
          },
        },
      ],
    });

    const byDeal = await deals(`deals/${created.id}/events`, {});
    expect(byDeal.status).toBe(200);
    expect(
      ((await byDeal.json()) as { events: Array<{ eventId: string }> }).events.map(
        (e) => e.eventId,
      ),
    ).toEqual([eventId]);
    // Not exclusive-only searches, not the QA data set, not outside the radius.
    expect((await deals('deals/events', { ...near, exclusivities: 'NONEXCLUSIVE' })).status).toBe(
      204,
    );
    expect(
      (await paced(`${sut.baseUrl}/dc/content-qa/v1/deals/${created.id}/events?apikey=${apiKey}`))
        .status,
    ).toBe(204);
    expect(
      (await deals('deals/events', { ...near, longitude: String(venue.longitude + 0.5) })).status,
    ).toBe(204);

    expect((await admin('DELETE', `deals/${created.id}`)).status).toBe(204);
    expect((await deals('deals/events', near)).status).toBe(204);
    expect((await deals(`deals/${created.id}/events`, {})).status).toBe(204);
    const ended = await admin('GET', `deals/${created.id}`);
    expect(await ended.json()).toMatchObject({ id: created.id, state: 'ENDED', version: 2 });
  });

  it('answers bad input in the deals error body: 401, 406 (edge and deals service), 405', async () => {
    const noKey = await fetch(`${sut.baseUrl}/dc/content/v1/deals/events`);
    expect([noKey.status, await noKey.json()]).toEqual([
      401,
      { message: expect.any(String), statusCode: 401 },
    ]);
    const rows = await deals('deals/events', { rows: '501' });
    expect([rows.status, await rows.json()]).toEqual([
      406,
      { message: expect.stringContaining('rows'), statusCode: 406 },
    ]);
    const market = await deals('deals/events', { marketIds: '999' });
    expect([market.status, await market.json()]).toEqual([
      406,
      { message: expect.stringContaining('999'), statusCode: 406 },
    ]);
    const post = await paced(`${sut.baseUrl}/dc/content/v1/deals/events?apikey=${apiKey}`, {
      method: 'POST',
    });
    expect(post.status).toBe(405);
  });
});
