import { randomBytes } from 'node:crypto';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * A published event plus a deal created through the admin API is found by deals search
 * within seconds, through real Kafka and a real Mongo-wire server; ending the deal removes it.
 * The event is published through `POST /publish/v2/events` (publisher → event-changed on Kafka).
 */
describe.skipIf(!infra)('deals search through the edge (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  const marker = `e2e${randomBytes(4).toString('hex')}`;
  // A unique position far from any other test's events, so radius searches see only this one.
  const venue = { latitude: 10 + Math.random() * 50, longitude: -120 + Math.random() * 40 };

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const app = await admin('POST', 'apps', {
      name: 'deals e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    apiKey = ((await app.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
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
  // An app's default quota allows 5 requests a second (auth-gateway), counted in fixed one-second
  // windows when auth-gateway sees a call: keep 220 ms between one call's answer and the next call,
  // so that a call held up on its way (a loaded machine) cannot bunch up with the ones after it.
  let lastAnswer = 0;
  const paced = async (url: string, init?: RequestInit) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await fetch(url, init);
    } finally {
      lastAnswer = Date.now();
    }
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
    const published = await paced(`${sut.baseUrl}/publish/v2/events?apikey=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        source: { id: 'e2e-deals', name: 'E2E_Deals' },
        version: 1,
        active: true,
        test: false,
        url: `https://tickets.example.com/${marker}`,
        names: { 'en-us': `E2E Deals Night ${marker}` },
        classifications: [
          { primary: true, genre: { id: 'KnvZfZ7vAeA', names: { 'en-us': 'Rock' } } },
        ],
        dates: {
          start: {
            localDate: '2031-07-04',
            localTime: '19:00:00',
            dateTime: '2031-07-04T23:00:00Z',
          },
          timezone: 'America/New_York',
        },
        place: {
          names: { 'en-us': 'E2E Hall' },
          city: { names: { 'en-us': 'Springfield' } },
          country: { countryCode: 'US', names: { 'en-us': 'United States' } },
          location: venue,
        },
        priceRanges: { type: 'standard', currency: 'USD', min: 25.5, max: 99 },
        sales: { public: { startDateTime: '2031-01-10T15:00:00Z' } },
      }),
    });
    expect(published.status).toBe(200);
    const eventId = ((await published.json()) as { id: string }).id;

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
        if (response.status !== 201)
          throw new Error(`admin POST deals: ${response.status} ${await response.text()}`);
        return (await response.json()) as { id: string };
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the deal created' },
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
          eventName: `E2E Deals Night ${marker}`,
          eventDate: '2031-07-04T23:00:00.000Z',
          onsaleOnDate: '2031-01-10T15:00:00.000Z',
          eventDetailsLink: `https://tickets.example.com/${marker}`,
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

  it('resolves a venue referenced by discovery id through catalog-indexer: coordinates and radius search', async () => {
    const hall = { latitude: venue.latitude - 2, longitude: venue.longitude - 2 };
    const publish = (body: Record<string, unknown>) =>
      paced(`${sut.baseUrl}/publish/v2/events?apikey=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          source: { id: 'e2e-deals', name: 'E2E_Deals' },
          version: 1,
          active: true,
          test: false,
          dates: { start: { localDate: '2031-09-01', dateTime: '2031-09-01T23:00:00Z' } },
          ...body,
        }),
      });
    // 1. An inline place: catalog-indexer creates the venue (with coordinates) from it.
    const first = await publish({
      url: `https://tickets.example.com/place-${marker}`,
      names: { 'en-us': `E2E Place Night ${marker}` },
      place: {
        names: { 'en-us': `E2E Ref Hall ${marker}` },
        country: { countryCode: 'US' },
        location: hall,
      },
    });
    expect(first.status).toBe(200);
    const firstId = ((await first.json()) as { id: string }).id;
    // 2. Its discovery venue id, through Discovery v2.
    const venueId = await waitFor(
      async () => {
        const response = await paced(
          `${sut.baseUrl}/discovery/v2/events/${firstId}?apikey=${apiKey}`,
        );
        if (response.status !== 200) return undefined;
        const body = (await response.json()) as { _embedded?: { venues?: Array<{ id: string }> } };
        return body._embedded?.venues?.[0]?.id;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    // 3. A second event that references the venue by id only (no coordinates on event-changed).
    const second = await publish({
      url: `https://tickets.example.com/ref-${marker}`,
      names: { 'en-us': `E2E Reference Night ${marker}` },
      venue: { id: venueId },
    });
    expect(second.status).toBe(200);
    const eventId = ((await second.json()) as { id: string }).id;
    const created = await waitFor(
      async () => {
        const response = await admin('POST', 'deals', {
          eventId,
          dealName: 'Referenced venue deal',
          dealDescription: 'At a venue known by id',
          exclusivity: 'EXCLUSIVE',
        });
        if (response.status !== 201)
          throw new Error(`admin POST deals: ${response.status} ${await response.text()}`);
        return (await response.json()) as { id: string };
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the deal created' },
    );
    expect(created.id).toBeTruthy();
    // 4. A radius search around the hall finds it, with the venue's coordinates.
    const around = {
      latitude: String(hall.latitude),
      longitude: String(hall.longitude + 0.05),
      radius: '10',
      radiusUnit: 'kilometers',
    };
    const found = await waitFor(
      async () => {
        const response = await deals('deals/events', around);
        return response.status === 200
          ? ((await response.json()) as {
              events: Array<{ eventId: string; venue: Record<string, unknown> }>;
            })
          : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 0 },
    );
    expect(found.events.map((e) => e.eventId)).toEqual([eventId]);
    expect(found.events[0]!.venue).toMatchObject({
      venueName: expect.any(String),
      venueLatitude: hall.latitude,
      venueLongitude: hall.longitude,
    });
  });

  it('serves a test event in the QA data set only; deleting the event ends its deal', async () => {
    const qaVenue = { latitude: venue.latitude + 1, longitude: venue.longitude + 1 };
    const published = await paced(`${sut.baseUrl}/publish/v2/events?apikey=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        source: { id: 'e2e-deals', name: 'E2E_Deals' },
        version: 1,
        active: true,
        test: true,
        url: `https://tickets.example.com/qa-${marker}`,
        names: { 'en-us': `E2E QA Night ${marker}` },
        dates: { start: { localDate: '2031-08-01', dateTime: '2031-08-01T23:00:00Z' } },
        place: {
          names: { 'en-us': 'E2E QA Hall' },
          country: { countryCode: 'US' },
          location: qaVenue,
        },
      }),
    });
    expect(published.status).toBe(200);
    const eventId = ((await published.json()) as { id: string }).id;
    const created = await waitFor(
      async () => {
        const response = await admin('POST', 'deals', {
          eventId,
          dealName: 'QA deal',
          dealDescription: 'Only in QA',
          exclusivity: 'NONEXCLUSIVE',
        });
        if (response.status !== 201)
          throw new Error(`admin POST deals: ${response.status} ${await response.text()}`);
        return (await response.json()) as { id: string };
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the deal created' },
    );
    const around = new URLSearchParams({
      apikey: apiKey,
      latitude: String(qaVenue.latitude),
      longitude: String(qaVenue.longitude),
    });
    const qa = await paced(`${sut.baseUrl}/dc/content-qa/v1/deals/events?${around}`);
    expect(qa.status).toBe(200);
    expect(
      ((await qa.json()) as { events: Array<{ eventId: string }> }).events.map((e) => e.eventId),
    ).toEqual([eventId]);
    expect((await paced(`${sut.baseUrl}/dc/content/v1/deals/events?${around}`)).status).toBe(204);

    const deleted = await paced(`${sut.baseUrl}/publish/v2/events/${eventId}?apikey=${apiKey}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    const ended = await waitFor(
      async () => {
        const deal = (await (await admin('GET', `deals/${created.id}`)).json()) as {
          state: string;
        };
        return deal.state === 'ENDED' ? deal : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(ended).toMatchObject({ id: created.id, eventId, state: 'ENDED' });
    expect((await paced(`${sut.baseUrl}/dc/content-qa/v1/deals/events?${around}`)).status).toBe(
      204,
    );
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
