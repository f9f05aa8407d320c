import { randomBytes, randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { type catalogV1, eventChangedTopic } from '@marquee/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * Publishing: a publisher posts an event through the edge with its API key; publisher
 * validates it, stores it and emits `event-changed` (whole state, key = event id) through its outbox
 * to real Kafka; an update emits the new state, a deletion a tombstone. Rejections answer the
 * publishing error body. Every service runs as its own process against real Kafka and FerretDB.
 */
describe.skipIf(!infra)('publishing through the edge (distributed mode)', () => {
  let sut: Stack;
  let bus: EventBus;
  let apiKey: string;
  let otherApiKey: string;
  const received: IncomingEvent<catalogV1.EventChanged>[] = [];
  const marker = `e2e-${randomBytes(4).toString('hex')}`;

  const admin = (path: string, body: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const newApp = async (name: string) => {
    const response = await admin('apps', { name, redirectUris: ['https://e2e.example/cb'] });
    expect(response.status).toBe(201);
    return ((await response.json()) as { apiKey: string }).apiKey;
  };

  // An app's default quota allows 5 requests a second (auth-gateway), counted in fixed one-second
  // windows when auth-gateway sees a call: keep 220 ms between one call's answer and the next call,
  // so that a call held up on its way (a loaded machine) cannot bunch up with the ones after it.
  let lastAnswer = 0;
  const publishApi = async (
    method: string,
    path: string,
    options: {
      key?: string;
      body?: unknown;
      raw?: string;
      query?: Record<string, string>;
      headers?: Record<string, string>;
    } = {},
  ) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const query = new URLSearchParams({
      ...(options.key === undefined ? {} : { apikey: options.key }),
      ...options.query,
    });
    const hasBody = options.body !== undefined || options.raw !== undefined;
    try {
      return await fetch(`${sut.baseUrl}/publish/v2/${path}?${query}`, {
        method,
        headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
        ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
      });
    } finally {
      lastAnswer = Date.now();
    }
  };

  const anEvent = (overrides: Record<string, unknown> = {}) => ({
    source: { id: 'e2e-publisher', name: 'E2E_Publisher' },
    version: 1,
    url: `https://publisher.example/${marker}`,
    names: { 'en-us': `Published ${marker}`, 'fr-ca': `Publié ${marker}` },
    attractions: [{ source: { id: 'band-1', name: 'E2E_Publisher' } }],
    classifications: [{ primary: true, genre: { names: { 'en-us': 'Rock' } } }],
    dates: {
      start: { localDate: '2031-07-04', localTime: '19:00:00', dateTime: '2031-07-04T23:00:00Z' },
      timezone: 'America/New_York',
    },
    venue: { id: 'KovZpZAEdFtJ' },
    priceRanges: { type: 'standard', currency: 'USD', min: 25.5, max: 99 },
    ...overrides,
  });

  const recordsOf = (id: string) => received.filter((record) => record.key === id);

  interface EventList {
    events: { id: string; createdAt: string; updatedAt: string; event: Record<string, unknown> }[];
    nextCursor?: string;
  }
  /** Every event the app of `key` lists, following the cursor page by page. */
  const listAll = async (key: string, size = 50) => {
    const pages: EventList[] = [];
    let cursor: string | undefined;
    do {
      const response = await publishApi('GET', 'events', {
        key,
        query: { size: String(size), ...(cursor ? { cursor } : {}) },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as EventList;
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor);
    return pages.flatMap((page) => page.events);
  };

  /**
   * A client whose answer is lost: it sends the whole request on a raw connection and never reads
   * what comes back; `hangUp()` then drops the connection (a timeout, a dropped link, a crash).
   */
  const postWithoutReading = async (
    path: string,
    headers: Record<string, string>,
    body: unknown,
  ) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const url = new URL(`${sut.baseUrl}/publish/v2/${path}`);
    const payload = JSON.stringify(body);
    const head = [
      `POST ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(payload)}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    const socket = await new Promise<Socket>((resolve, reject) => {
      const connection = connect(Number(url.port), url.hostname, () =>
        connection.write(`${head.join('\r\n')}\r\n\r\n${payload}`, () => resolve(connection)),
      );
      connection.on('error', reject);
    });
    socket.pause();
    return {
      hangUp: () => {
        socket.destroy();
        lastAnswer = Date.now();
      },
    };
  };

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    bus = createKafkaBus({
      brokers: infra!.kafkaBrokers.split(','),
      clientId: 'e2e-publishing',
      source: 'marquee/e2e',
      logger: createLogger({ service: 'e2e', level: 'warn' }),
    });
    // A fresh group from the beginning: nothing published during the group's join is missed.
    await bus.subscribe(
      eventChangedTopic,
      { group: `e2e-publishing-${marker}`, fromBeginning: true },
      async (event) => {
        received.push(event);
      },
    );
    await bus.start();
    apiKey = await newApp('publishing e2e');
    otherApiKey = await newApp('another publisher');
  });

  afterAll(async () => {
    await bus?.close();
    await sut?.stop();
  });

  it('publishes, then updates and deletes an event, each change reaching Kafka as event-changed', async () => {
    const published = await publishApi('POST', 'events', {
      key: apiKey,
      body: anEvent({ promoCode: { 'x.y': 'kept but not in discovery' } }),
    });
    expect(published.status).toBe(200);
    const result = (await published.json()) as { id: string; status: string };
    expect(result).toEqual({
      status: 'SuccessWarning',
      message: expect.stringContaining('promoCode'),
      id: expect.stringMatching(/^[A-Za-z0-9]{15}$/),
      missingProperties: {},
      unknownProperties: { promoCode: { 'x.y': 'kept but not in discovery' } },
    });
    const id = result.id;

    await waitFor(() => recordsOf(id).length >= 1, { timeoutMs: 30_000, intervalMs: 100 });
    const [created] = recordsOf(id);
    expect(created!.type).toBe('marquee.catalog.v1.EventChanged');
    expect(created!.value?.event).toMatchObject({
      id,
      version: 1,
      publisherVersion: 1,
      active: true,
      test: false,
      source: { id: 'e2e-publisher', name: 'E2E_Publisher' },
      names: { values: { 'en-us': `Published ${marker}`, 'fr-ca': `Publié ${marker}` } },
      attractions: [{ ref: { $case: 'source', value: { id: 'band-1', name: 'E2E_Publisher' } } }],
      location: { $case: 'venue', value: { ref: { $case: 'id', value: 'KovZpZAEdFtJ' } } },
      dates: {
        start: { dateTime: new Date('2031-07-04T23:00:00Z') },
        timezone: 'America/New_York',
      },
      priceRanges: [{ min: { amountMinor: 2550, currency: 'USD' }, max: { amountMinor: 9900 } }],
    });
    expect(JSON.stringify(created!.value)).not.toContain('promoCode');

    // The app reads back what it published, unknown properties included; another app cannot.
    const read = await publishApi('GET', `events/${id}`, { key: apiKey });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({
      id,
      ...anEvent({ promoCode: { 'x.y': 'kept but not in discovery' } }),
    });
    expect((await publishApi('GET', `events/${id}`, { key: otherApiKey })).status).toBe(404);

    // Another app cannot touch it; a stale version is refused; nothing reaches the topic.
    const foreign = await publishApi('PUT', `events/${id}`, {
      key: otherApiKey,
      body: anEvent({ version: 5 }),
    });
    expect(foreign.status).toBe(404);
    const stale = await publishApi('PUT', `events/${id}`, { key: apiKey, body: anEvent() });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ errors: [{ code: 'STALE_VERSION' }] });

    const updated = await publishApi('PUT', `events/${id}`, {
      key: apiKey,
      body: anEvent({ version: 2, names: { 'en-us': `Renamed ${marker}` } }),
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ status: 'Success', id });
    await waitFor(() => recordsOf(id).length >= 2, { timeoutMs: 30_000, intervalMs: 100 });
    expect(recordsOf(id)[1]!.value?.event).toMatchObject({
      version: 2,
      publisherVersion: 2,
      names: { values: { 'en-us': `Renamed ${marker}` } },
    });

    const deleted = await publishApi('DELETE', `events/${id}`, {
      key: apiKey,
      query: { version: '2' },
    });
    expect(deleted.status).toBe(204);
    await waitFor(() => recordsOf(id).length >= 3, { timeoutMs: 30_000, intervalMs: 100 });
    const tombstone = recordsOf(id)[2]!;
    expect(tombstone.value).toBeNull();
    expect(recordsOf(id)).toHaveLength(3);

    const again = await publishApi('DELETE', `events/${id}`, { key: apiKey });
    expect(again.status).toBe(404);
    expect((await publishApi('GET', `events/${id}`, { key: apiKey })).status).toBe(404);
  });

  it('answers a retry with the Idempotency-Key of a publication whose answer was lost with that same event', async () => {
    const url = `https://publisher.example/${marker}/idempotent`;
    const body = anEvent({ url, names: { 'en-us': `Once ${marker}` } });
    const key = randomUUID();
    const ours = () => received.filter((record) => record.value?.event?.url === url);

    // The first call creates the event, but its client never sees the answer.
    const lost = await postWithoutReading(
      `events?apikey=${apiKey}`,
      { 'Idempotency-Key': key },
      body,
    );
    await waitFor(() => ours().length >= 1, { timeoutMs: 30_000, intervalMs: 100 });
    lost.hangUp();
    const createdId = ours()[0]!.key;

    const retry = await publishApi('POST', 'events', {
      key: apiKey,
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({
      status: 'Success',
      id: createdId,
      missingProperties: {},
      unknownProperties: {},
    });

    // The same key with another body is refused; a key is the app's own.
    const reused = await publishApi('POST', 'events', {
      key: apiKey,
      body: { ...body, version: 2 },
      headers: { 'Idempotency-Key': key },
    });
    expect(reused.status).toBe(422);
    expect(await reused.json()).toEqual({
      errors: [
        {
          status: 'Rejected',
          code: 'IDEMPOTENCY_KEY_REUSED',
          detail: expect.any(String),
          invalidProperties: {},
          missingProperties: {},
        },
      ],
    });
    const otherApp = await publishApi('POST', 'events', {
      key: otherApiKey,
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect(otherApp.status).toBe(200);
    const otherId = ((await otherApp.json()) as { id: string }).id;
    expect(otherId).not.toBe(createdId);

    // Exactly one event of the first app: the other app's reached the topic, ours once only.
    await waitFor(() => ours().some((record) => record.key === otherId), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(
      ours()
        .map((record) => record.key)
        .sort(),
    ).toEqual([createdId, otherId].sort());
    // And what the app itself lists from the store: one event with this body.
    const listed = (await listAll(apiKey)).filter((listed) => listed.event.url === url);
    expect(listed.map((listed) => listed.id)).toEqual([createdId]);
  });

  it("lists the app's own events newest first, a page at a time through the cursor", async () => {
    const lister = await newApp('listing publisher');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const response = await publishApi('POST', 'events', {
        key: lister,
        body: anEvent({ names: { 'en-us': `Listed ${n} ${marker}` } }),
      });
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { id: string }).id);
    }

    const first = await publishApi('GET', 'events', { key: lister, query: { size: '2' } });
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as EventList;
    expect(page1.events.map((listed) => listed.id)).toEqual([ids[2], ids[1]]);
    expect(page1.events[0]).toEqual({
      id: ids[2],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      event: anEvent({ names: { 'en-us': `Listed 3 ${marker}` } }),
    });
    expect(page1.nextCursor).toEqual(expect.any(String));

    // Published after the first page was read: not on the next page, which carries on in place.
    const later = await publishApi('POST', 'events', { key: lister, body: anEvent() });
    const laterId = ((await later.json()) as { id: string }).id;
    const second = await publishApi('GET', 'events', {
      key: lister,
      query: { size: '2', cursor: page1.nextCursor! },
    });
    const page2 = (await second.json()) as EventList;
    expect(page2.events.map((listed) => listed.id)).toEqual([ids[0]]);
    expect(page2.nextCursor).toBeUndefined();

    // Deleted events leave the list; other apps see none of these.
    expect((await publishApi('DELETE', `events/${ids[1]}`, { key: lister })).status).toBe(204);
    expect((await listAll(lister)).map((listed) => listed.id)).toEqual([laterId, ids[2], ids[0]]);
    const foreign = (await listAll(otherApiKey)).map((listed) => listed.id);
    expect(foreign.filter((id) => ids.includes(id) || id === laterId)).toEqual([]);

    const badSize = await publishApi('GET', 'events', { key: lister, query: { size: '500' } });
    expect(badSize.status).toBe(400);
    expect(await badSize.json()).toMatchObject({
      errors: [
        {
          status: 'Rejected',
          code: 'INVALID_PROPERTY',
          invalidProperties: { size: expect.any(String) },
        },
      ],
    });
    const badCursor = await publishApi('GET', 'events', {
      key: lister,
      query: { cursor: 'not-a-cursor' },
    });
    expect(badCursor.status).toBe(400);
    expect(await badCursor.json()).toMatchObject({
      errors: [
        {
          status: 'Rejected',
          code: 'INVALID_CURSOR',
          invalidProperties: { cursor: expect.any(String) },
        },
      ],
    });
    expect((await publishApi('GET', 'events', {})).status).toBe(401);
  });

  it('rejects each publishing rule with 400 and the error body, and publishes nothing', async () => {
    const before = received.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [anEvent({ id: 'mine' }), 'ID_NOT_ALLOWED'],
      [anEvent({ place: { names: { 'en-us': 'Park' } } }), 'VENUE_AND_PLACE'],
      [anEvent({ source: { id: 'bad id!', name: 'E2E' } }), 'INVALID_SOURCE'],
      [anEvent({ venue: { id: 'KovZpZAEdFtJ', name: 'Hall' } }), 'INVALID_VENUE'],
      [
        anEvent({ attractions: [{ id: 'a', source: { id: 'b', name: 'c' } }] }),
        'INVALID_ATTRACTION',
      ],
      [anEvent({ names: { en: 'no country' } }), 'INVALID_PROPERTY'],
      [anEvent({ test: 'yes' }), 'INVALID_PROPERTY'],
    ];
    for (const [body, code] of cases) {
      const response = await publishApi('POST', 'events', { key: apiKey, body });
      expect(response.status, code).toBe(400);
      expect(await response.json(), code).toEqual({
        errors: [
          {
            status: 'Rejected',
            code,
            detail: expect.any(String),
            invalidProperties: expect.any(Object),
            missingProperties: expect.any(Object),
          },
        ],
      });
    }

    const malformed = await publishApi('POST', 'events', { key: apiKey, raw: '{"source":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ errors: [{ code: 'MALFORMED_REQUEST' }] });

    const noKey = await publishApi('POST', 'events', { body: anEvent() });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({
      errors: [{ status: 'Error', code: 'UNAUTHORIZED' }],
    });

    // Give a wrongly emitted record time to arrive before asserting there is none of ours.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(
      received
        .slice(before)
        .filter((record) => record.value?.event?.url === `https://publisher.example/${marker}`),
    ).toEqual([]);
  });
});
