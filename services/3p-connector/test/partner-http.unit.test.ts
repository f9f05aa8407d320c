import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithCorrelationId } from '@marquee/platform/logger';
import { metricValue, silentLogger } from '@marquee/platform/testing';
import { PartnerHttpClient, type PartnerCallError } from '../src/adapters/partner-http.js';
import { egressPolicy } from '../src/domain/egress.js';
import { FakePartner } from './support/fake-partner.js';
import { healthAnswer } from './support/fixtures.js';

const logger = silentLogger();
const health = healthAnswer;
const booking = {
  booking: {
    inventory_token: 'B1',
    event_id: 'E1',
    status: 'BOOKED',
    language: 'en-us',
    channel_type: 'INTERNET',
    created_at: '2026-01-01T00:00:00Z',
    expires_at: '2026-01-01T00:15:00Z',
    currency: 'EUR',
    tickets_amount: '1000',
    tickets_quantity: 1,
    tickets: [],
  },
};

let fake: FakePartner;
beforeEach(async () => {
  fake = await new FakePartner().start();
});
afterEach(() => fake.stop());

const client = (options: Partial<ConstructorParameters<typeof PartnerHttpClient>[1]> = {}) =>
  new PartnerHttpClient(
    {
      id: 'p1',
      baseUrl: fake.baseUrl,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: () => fake.clientSecret,
    },
    {
      timeoutMs: 2_000,
      logger,
      retryDelayMs: 1,
      egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
      ...options,
    },
  );

const failure = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  )) as PartnerCallError;

describe('PartnerHttpClient', () => {
  it('sends the bearer token, the current correlation id and Accept on every call', async () => {
    fake.on('GET', /^\/healthcheck$/, health);
    const sut = client();
    await runWithCorrelationId('corr-1', () => sut.healthcheck());
    await sut.healthcheck();
    const [first, second] = fake.calls('GET', /healthcheck/);
    expect(first!.headers).toMatchObject({
      authorization: 'Bearer token-1',
      'x-correlation-id': 'corr-1',
      accept: 'application/json',
    });
    expect(second!.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.tokensIssued).toBe(1);
    const tokenRequest = fake.calls('POST', /oauth\/token/)[0]!;
    expect(new URLSearchParams(tokenRequest.body).get('grant_type')).toBe('client_credentials');
  });

  it('fetches a new token once when the partner answers 401, then goes on', async () => {
    fake.on('GET', /^\/healthcheck$/, health);
    const sut = client();
    await sut.healthcheck();
    fake.revokeTokens();
    await expect(sut.healthcheck()).resolves.toMatchObject({ id: 0 });
    expect(fake.tokensIssued).toBe(2);
  });

  it('answers unavailable when the partner keeps refusing the credentials', async () => {
    fake.on('GET', /^\/healthcheck$/, { status: 403, body: { id: 403, message: 'scope' } });
    const error = await failure(client().healthcheck());
    expect(error.kind).toBe('unavailable');
    expect(error.httpStatus).toBe(403);
    expect(fake.tokensIssued).toBe(2);
    expect(error.message).not.toContain(fake.clientSecret);
  });

  it('retries an idempotent call after a 5xx', async () => {
    let calls = 0;
    fake.on('GET', /^\/healthcheck$/, () =>
      ++calls < 3 ? { status: 503, body: { id: 2, message: 'busy' } } : health,
    );
    await expect(client().healthcheck()).resolves.toMatchObject({ id: 0 });
    expect(calls).toBe(3);
  });

  it('never retries POST /bookings', async () => {
    fake.on('POST', /^\/bookings$/, { status: 500, body: { id: 2, message: 'boom' } });
    const error = await failure(client().createBooking({ request: {} }));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 500, outcomeUnknown: false });
    expect(fake.calls('POST', /bookings/)).toHaveLength(1);
  });

  it('maps a partner refusal to its kind with the partner error id in the details', async () => {
    fake.on('POST', /^\/bookings$/, { status: 410, body: { id: 303, message: 'sold out' } });
    const error = await failure(client().createBooking({ request: {} }));
    expect(error.kind).toBe('resource_exhausted');
    expect(error.details).toMatchObject({ partnerErrorId: 303, httpStatus: 410 });
    expect(error.transient).toBe(false);
  });

  it('times out at the caller deadline: deadline_exceeded, outcome unknown for a booking', async () => {
    fake.on('POST', /^\/bookings$/, { status: 200, body: booking, delayMs: 500 });
    const started = Date.now();
    const error = await failure(client().createBooking({ request: {} }, { deadlineMs: 150 }));
    expect(Date.now() - started).toBeLessThan(450);
    expect(error).toMatchObject({ kind: 'deadline_exceeded', outcomeUnknown: true });
  });

  it('gives a page of GET /events the listing budget, other calls the call budget', async () => {
    const page = {
      events_info: [],
      page: { size: 100, total_elements: 0, total_pages: 0, number: 0 },
    };
    fake.on('GET', /^\/events$/, { status: 200, body: page, delayMs: 300 });
    fake.on('GET', /^\/healthcheck$/, { ...health, delayMs: 300 });
    const sut = client({ timeoutMs: 150, listingTimeoutMs: 2_000, maxAttempts: 1 });
    const query = { venue: 'V1', lastModification: '2026-01-01T00:00:00Z', page: 0, size: 100 };
    await expect(sut.listEvents(query)).resolves.toMatchObject({ page: { total_pages: 0 } });
    expect((await failure(sut.healthcheck())).kind).toBe('deadline_exceeded');
    // Without a listing budget a page gets the call budget.
    const short = client({ timeoutMs: 150, maxAttempts: 1 });
    expect((await failure(short.listEvents(query))).kind).toBe('deadline_exceeded');
  });

  it('refuses an answer outside the contract as unavailable', async () => {
    fake.on('GET', /^\/healthcheck$/, { status: 200, body: { message: 'no id' } });
    const error = await failure(client({ maxAttempts: 1 }).healthcheck());
    expect(error.kind).toBe('unavailable');
  });

  it('opens the circuit after consecutive faults and then answers unavailable without calling', async () => {
    fake.on('GET', /^\/healthcheck$/, { status: 500, body: { id: 2, message: 'down' } });
    const sut = client({ maxAttempts: 1, breakerThreshold: 3, halfOpenAfterMs: 60_000 });
    for (let i = 0; i < 3; i += 1) await failure(sut.healthcheck());
    const before = fake.calls('GET', /healthcheck/).length;
    const error = await failure(sut.healthcheck());
    expect(error.kind).toBe('unavailable');
    expect(error.details).toMatchObject({ circuitOpen: true });
    expect(fake.calls('GET', /healthcheck/)).toHaveLength(before);
  });

  it('counts calls by partner, operation and outcome (marquee_partner_calls_total)', async () => {
    const sut = new PartnerHttpClient(
      {
        id: 'p-counted',
        baseUrl: fake.baseUrl,
        authUrl: fake.authUrl,
        clientId: fake.clientId,
        clientSecret: () => fake.clientSecret,
      },
      {
        timeoutMs: 2_000,
        logger,
        retryDelayMs: 1,
        maxAttempts: 1,
        breakerThreshold: 1,
        egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
      },
    );
    const calls = (operation: string, outcome: string) =>
      metricValue(
        `marquee_partner_calls_total{partner="p-counted",operation="${operation}",outcome="${outcome}"}`,
      );
    fake.on('GET', /^\/healthcheck$/, health);
    await sut.healthcheck();
    await sut.healthcheck();
    fake.on('POST', /^\/bookings$/, { status: 410, body: { id: 303, message: 'sold out' } });
    await failure(sut.createBooking({ request: {} }));
    // One fault opens this circuit: the next call is refused without reaching the partner.
    fake.on('GET', /^\/healthcheck$/, { status: 500, body: { id: 2, message: 'down' } });
    await failure(sut.healthcheck());
    await failure(sut.healthcheck());
    expect(await calls('GET /healthcheck', 'ok')).toBe(2);
    expect(await calls('POST /bookings', 'resource_exhausted')).toBe(1);
    expect(await calls('GET /healthcheck', 'unavailable')).toBe(1);
    expect(await calls('GET /healthcheck', 'circuit_open')).toBe(1);
  });

  it('does not count business refusals against the circuit', async () => {
    fake.on('POST', /^\/bookings$/, { status: 410, body: { id: 307, message: 'taken' } });
    const sut = client({ breakerThreshold: 2 });
    for (let i = 0; i < 4; i += 1) await failure(sut.createBooking({ request: {} }));
    expect(fake.calls('POST', /bookings/)).toHaveLength(4);
  });

  it('reports a refused connection as unavailable with a known outcome', async () => {
    const sut = client({ maxAttempts: 1 });
    await fake.stop();
    const error = await failure(sut.createBooking({ request: {} }));
    expect(error).toMatchObject({ kind: 'unavailable', outcomeUnknown: false, transient: true });
  });

  it('does not follow a redirect: unavailable, and a booking outcome unknown', async () => {
    fake.on('POST', /^\/bookings$/, { status: 302, body: { moved: true } });
    const error = await failure(client().createBooking({ request: {} }));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 302, outcomeUnknown: true });
    expect(fake.calls('POST', /bookings/)).toHaveLength(1);
  });
});
