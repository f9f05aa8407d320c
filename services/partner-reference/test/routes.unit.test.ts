import {
  AvailabilityAnswer,
  BookingAnswer,
  EventAnswer,
  EventsPage,
  HealthcheckResult,
  LogoAnswer,
  ManifestAnswer,
  OrderActionAnswer,
  OrderAnswer,
  OrdersPage,
  PartnerScope,
  TaxPlanAnswer,
  TokenResponse,
  checkAnswer,
} from '@marquee/partner-api';
import type { TSchema } from '@sinclair/typebox';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventBody, inDays, ManualClock, venueBody } from './fixtures.js';
import { CLIENT_ID, CLIENT_SECRET, httpHarness, type HttpHarness } from './http.js';

let h: HttpHarness;
let auth: { authorization: string };
let clock: ManualClock;
let venueId: string;
let manifestId: string;
let eventId: string;

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
const call = (method: Method, url: string, payload?: unknown, headers = auth) =>
  h.http.inject({
    method,
    url,
    headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

const expectError = (response: LightMyRequestResponse, status: number, id: number) => {
  expect({ status: response.statusCode, body: response.json() }).toMatchObject({
    status,
    body: { id },
  });
  expect(typeof response.json<{ message: unknown }>().message).toBe('string');
};

const expectAnswer = (response: LightMyRequestResponse, status: number, schema: TSchema) => {
  expect(response.statusCode, response.body).toBe(status);
  const check = checkAnswer(schema, response.json());
  expect(check.ok ? [] : check.errors).toEqual([]);
  return response.json();
};

const booking = (tickets: unknown[] = [{ price_type_id: 'ADULT', quantity: 2 }], extra = {}) => ({
  request: {
    event_id: eventId,
    language: 'en-us',
    channel_info: { channel_type: 'INTERNET' },
    tickets,
    ...extra,
  },
});
const order = (token: string, info: Record<string, unknown> = {}, extra = {}) => ({
  request: {
    inventory_token: token,
    order_info: {
      tickets_amount: '10000',
      tickets_quantity: 2,
      external_order_id: 'ext-1',
      ...info,
    },
    payment_info: { payment_method_type: 'CARD' },
    delivery_info: { delivery_method_type: 'DS' },
    channel_info: { channel_type: 'INTERNET' },
    ...extra,
  },
});
const action = (name: string, extra = {}) => ({
  request: { action: name, channel_info: { channel_type: 'INTERNET' }, ...extra },
});

const hold = async (tickets?: unknown[], extra = {}) => {
  const response = await call('POST', '/v1/bookings', booking(tickets, extra));
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ booking: { inventory_token: string } }>().booking.inventory_token;
};
const confirmed = async () => {
  const token = await hold();
  const response = await call('POST', '/v1/orders', order(token));
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ order: { inventory_order_id: string } }>().order.inventory_order_id;
};

beforeEach(async () => {
  clock = new ManualClock();
  h = await httpHarness({ clock, env: { BOOKING_TIMEOUT_MS: '60000' } });
  auth = await h.bearer();
  const venue = await call('POST', '/admin/v1/venues', venueBody({ gaCapacity: 20 }), h.admin);
  expect(venue.statusCode, venue.body).toBe(201);
  ({ venue_id: venueId } = venue.json());
  manifestId = venue.json<{ manifest_ids: string[] }>().manifest_ids[0]!;
  const event = await call('POST', '/admin/v1/events', eventBody(venueId, manifestId), h.admin);
  expect(event.statusCode, event.body).toBe(201);
  ({ event_id: eventId } = event.json());
});

afterEach(async () => {
  expect(h.statuses.filter((status) => status >= 500)).toEqual([]);
  await h.close();
});

describe('the 3P API over HTTP', () => {
  describe('every answer', () => {
    it('echoes X-Correlation-Id, or gives one', async () => {
      const echoed = await h.http.inject({
        method: 'GET',
        url: '/v1/healthcheck',
        headers: { ...auth, 'x-correlation-id': 'corr-123' },
      });
      expect(echoed.headers['x-correlation-id']).toBe('corr-123');
      const refused = await h.http.inject({ method: 'GET', url: '/v1/healthcheck' });
      expect(refused.headers['x-correlation-id']).toMatch(/.+/);
    });

    it('answers malformed JSON, unknown routes and wrong methods with {id, message}', async () => {
      const bad = await h.http.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '{"request": ',
      });
      expectError(bad, 400, 1);
      expectError(await call('GET', '/v1/nothing-here'), 404, 2);
      expectError(await call('GET', '/v1/nothing-here', undefined, {} as never), 401, 2);
      const wrong = await call('PUT', '/v1/bookings');
      expectError(wrong, 405, 2);
      expect(wrong.headers.allow).toBe('POST');
      expectError(await call('PATCH', '/v1/events'), 405, 2);
    });

    it('refuses bodies that do not follow the schema with id 1', async () => {
      expectError(await call('POST', '/v1/bookings', { request: {} }), 400, 1);
      expectError(await call('POST', '/v1/bookings', booking(undefined, { surprise: 1 })), 400, 1);
      expectError(
        await call('POST', '/v1/bookings', booking([{ price_type_id: 'ADULT', quantity: 0 }])),
        400,
        1,
      );
      expectError(
        await call(
          'POST',
          '/v1/bookings',
          booking([{ price_type_id: 'ADULT', quantity: 2, area_id: 'A1', seat_ids: ['A1-A-1'] }]),
        ),
        400,
        1,
      );
      expectError(await call('POST', '/v1/orders', { request: { inventory_token: 'x' } }), 400, 1);
    });
  });

  describe('credentials', () => {
    it('needs a bearer token: 401 with WWW-Authenticate', async () => {
      const missing = await call('GET', '/v1/healthcheck', undefined, {} as never);
      expectError(missing, 401, 2);
      expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
      const bad = await call('GET', '/v1/healthcheck', undefined, { authorization: 'Bearer nope' });
      expectError(bad, 401, 2);
      expect(bad.headers['www-authenticate']).toContain('invalid_token');
    });

    it('refuses an expired token with 401', async () => {
      clock.advance(3_600_000);
      const expired = await call('GET', '/v1/healthcheck');
      expectError(expired, 401, 2);
      expect(expired.json<{ message: string }>().message).toContain('expired');
    });

    it('refuses with 403 an operation the token has no scope for', async () => {
      const check = await h.bearer(PartnerScope.CHECK);
      expect((await call('GET', '/v1/healthcheck', undefined, check)).statusCode).toBe(200);
      const forbidden = await call('POST', '/v1/bookings', booking(), check);
      expectError(forbidden, 403, 2);
      expect(forbidden.headers['www-authenticate']).toContain('insufficient_scope');
      expectError(
        await call(
          'GET',
          `/v1/events?venue=${venueId}&last_modification=${inDays(-1)}`,
          undefined,
          check,
        ),
        403,
        2,
      );
      const reconciliation = await h.bearer(PartnerScope.RECONCILIATION);
      const token = await hold();
      expect((await call('GET', `/v1/orders/${token}`, undefined, reconciliation)).statusCode).toBe(
        200,
      );
      expectError(await call('DELETE', `/v1/bookings/${token}`, undefined, reconciliation), 403, 2);
    });
  });

  describe('POST /oauth/token', () => {
    const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      h.http.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      });
    const basic = (id: string, secret: string) => ({
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    });

    it('grants every scope by default, or those asked, with expires_in as a string', async () => {
      const all = await token({
        grant_type: 'client_credentials',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      });
      const body = expectAnswer(all, 200, TokenResponse);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: '3600' });
      expect(body.scope.split(' ')).toHaveLength(5);
      expect(all.headers['cache-control']).toBe('no-store');
      const some = await token(
        { grant_type: 'client_credentials', scope: 'check:3p-system runtime:3p-system' },
        basic(CLIENT_ID, CLIENT_SECRET),
      );
      expect(some.json()).toMatchObject({ scope: 'check:3p-system runtime:3p-system' });
    });

    it('answers RFC 6749 errors', async () => {
      const expectOAuth = (response: LightMyRequestResponse, status: number, error: string) =>
        expect({ status: response.statusCode, error: response.json().error }).toEqual({
          status,
          error,
        });
      expectOAuth(
        await token({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
        400,
        'invalid_request',
      );
      expectOAuth(
        await token({ grant_type: 'password', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
        400,
        'unsupported_grant_type',
      );
      expectOAuth(
        await token({
          grant_type: 'client_credentials',
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          scope: 'admin',
        }),
        400,
        'invalid_scope',
      );
      const wrong = await token({
        grant_type: 'client_credentials',
        client_id: CLIENT_ID,
        client_secret: 'nope',
      });
      expectOAuth(wrong, 401, 'invalid_client');
      expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
      expectOAuth(await token({ grant_type: 'client_credentials' }), 401, 'invalid_client');
      expectOAuth(
        await token(
          { grant_type: 'client_credentials', client_id: CLIENT_ID },
          basic(CLIENT_ID, CLIENT_SECRET),
        ),
        400,
        'invalid_request',
      );
      expectOAuth(
        await h.http.inject({
          method: 'POST',
          url: '/oauth/token',
          payload: '{',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'invalid_request',
      );
    });
  });

  describe('POST /oauth/token throttle', () => {
    const attempt = (secret: string, id = CLIENT_ID, address = '10.1.2.3') =>
      h.http.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: address,
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: id,
          client_secret: secret,
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

    it('refuses a client id after 10 failed secrets a minute with 429, the right secret too', async () => {
      for (let i = 0; i < 10; i += 1) {
        expect((await attempt(`guess-${i}`, CLIENT_ID, `10.9.0.${i}`)).statusCode).toBe(401);
      }
      const refused = await attempt(CLIENT_SECRET, CLIENT_ID, '10.9.1.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'too_many_requests' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    });

    it('refuses an address after 10 failures a minute, whatever client id it names', async () => {
      for (let i = 0; i < 10; i += 1) {
        expect((await attempt('nope', `client-${i}`, '10.7.7.7')).statusCode).toBe(401);
      }
      expect((await attempt(CLIENT_SECRET, CLIENT_ID, '10.7.7.7')).statusCode).toBe(429);
      // Successes cost nothing, and another address is not held back by this one.
      for (let i = 0; i < 12; i += 1) {
        expect((await attempt(CLIENT_SECRET, CLIENT_ID, '10.8.8.8')).statusCode).toBe(200);
      }
    });
  });

  describe('catalogue', () => {
    it('GET /healthcheck answers 0, or the drilled state', async () => {
      expect(expectAnswer(await call('GET', '/v1/healthcheck'), 200, HealthcheckResult)).toEqual({
        id: 0,
        message: 'OK',
      });
      await call('PUT', '/admin/v1/healthcheck', { id: 902, venues_to_sync: [venueId] }, h.admin);
      expect((await call('GET', '/v1/healthcheck')).json()).toMatchObject({
        id: 902,
        venues_to_sync: [venueId],
      });
      await call('PUT', '/admin/v1/healthcheck', { id: 901 }, h.admin);
      expect(expectAnswer(await call('GET', '/v1/healthcheck'), 200, HealthcheckResult)).toEqual({
        id: 901,
        message: 'Service not currently available',
      });
    });

    it('GET /events lists a venue’s events modified since, paged and sorted', async () => {
      const second = await call(
        'POST',
        '/admin/v1/events',
        eventBody(venueId, manifestId, {
          text_infos: [{ lang: 'en-us', name: 'Another show' }],
          date_time: inDays(40),
        }),
        h.admin,
      );
      const since = inDays(-1, clock.now().getTime());
      const page = expectAnswer(
        await call(
          'GET',
          `/v1/events?venue=${venueId}&last_modification=${since}&size=1&sort=name,DATE`,
        ),
        200,
        EventsPage,
      );
      expect(page.page).toEqual({ size: 1, total_elements: 2, total_pages: 2, number: 0 });
      expect(page.events_info[0].event.event_id).toBe(second.json().event_id);
      expect(page.events_info[0].mod_list).toEqual(['NEW']);
      const byDate = (
        await call('GET', `/v1/events?venue=${venueId}&last_modification=${since}`)
      ).json();
      expect(
        byDate.events_info.map((e: { event: { event_id: string } }) => e.event.event_id),
      ).toEqual([eventId, second.json().event_id]);
      const later = inDays(1, clock.now().getTime());
      expect(
        (await call('GET', `/v1/events?venue=${venueId}&last_modification=${later}`)).json().page
          .total_elements,
      ).toBe(0);
    });

    it('GET /events refuses bad parameters with their ids', async () => {
      const since = inDays(-1);
      expectError(await call('GET', `/v1/events?venue=nope&last_modification=${since}`), 410, 101);
      expectError(
        await call('GET', `/v1/events?venue=${venueId}&last_modification=yesterday`),
        400,
        213,
      );
      expectError(
        await call('GET', `/v1/events?venue=${venueId}&last_modification=${since}&size=101`),
        400,
        214,
      );
      expectError(
        await call('GET', `/v1/events?venue=${venueId}&last_modification=${since}&page=x`),
        400,
        215,
      );
      expectError(
        await call('GET', `/v1/events?venue=${venueId}&last_modification=${since}&sort=price`),
        400,
        205,
      );
      expectError(await call('GET', `/v1/events?venue=${venueId}`), 400, 1);
    });

    it('GET /events/{id} answers the event; 108 when unknown', async () => {
      const since = encodeURIComponent(inDays(-1));
      const answer = expectAnswer(
        await call('GET', `/v1/events/${eventId}?last_modification=${since}`),
        200,
        EventAnswer,
      );
      expect(answer).toMatchObject({
        status: 'ON_SALE',
        event: { event_id: eventId, venue_id: venueId, currency: 'EUR' },
      });
      expectError(await call('GET', `/v1/events/nope?last_modification=${since}`), 410, 108);
      expectError(await call('GET', `/v1/events/${eventId}?last_modification=x`), 400, 213);
    });

    it('GET /manifests, /logos and /tax-plans answer what the back office created', async () => {
      const manifest = expectAnswer(
        await call('GET', `/v1/manifests/${manifestId}`),
        200,
        ManifestAnswer,
      );
      expect(manifest.manifest.areas[0].seats).toHaveLength(50);
      expectError(await call('GET', '/v1/manifests/nope'), 410, 102);
      const logo = await call(
        'POST',
        '/admin/v1/logos',
        { format: 'png', data: 'iVBORw0KGgo=' },
        h.admin,
      );
      expect(logo.statusCode).toBe(201);
      expectAnswer(await call('GET', `/v1/logos/${logo.json().logo_id}`), 200, LogoAnswer);
      expectError(await call('GET', '/v1/logos/nope'), 410, 2);
      const plan = await call(
        'POST',
        '/admin/v1/tax-plans',
        { name: 'VAT', rates: [{ name: 'VAT', rate: '20.00' }] },
        h.admin,
      );
      expectAnswer(
        await call('GET', `/v1/tax-plans/${plan.json().tax_plan_id}`),
        200,
        TaxPlanAnswer,
      );
      expectError(await call('GET', '/v1/tax-plans/nope'), 410, 2);
    });
  });

  describe('availability', () => {
    it('answers every area, or one by level and section, with seats on request', async () => {
      await hold();
      const all = expectAnswer(
        await call('GET', `/v1/events/${eventId}/availability`),
        200,
        AvailabilityAnswer,
      );
      expect(all.areas).toEqual([
        expect.objectContaining({
          area_id: 'A1',
          available: 48,
          unavailable: 2,
          general_admission: false,
        }),
        expect.objectContaining({
          area_id: 'GA',
          available: 20,
          unavailable: 0,
          general_admission: true,
        }),
      ]);
      const one = expectAnswer(
        await call(
          'GET',
          `/v1/events/${eventId}/availability?level_id=L1&section_id=S1&detail=seats`,
        ),
        200,
        AvailabilityAnswer,
      );
      expect(one.areas).toHaveLength(1);
      expect(one.areas[0].available_seats).toHaveLength(48);
      expect(one.areas[0].available_seats[0].id).toBe('A1-A-3');
    });

    it('refuses bad queries with their ids', async () => {
      const url = `/v1/events/${eventId}/availability`;
      expectError(await call('GET', `${url}?level_id=L1`), 400, 1);
      expectError(await call('GET', `${url}?detail=all`), 400, 216);
      expectError(await call('GET', `${url}?level_id=LX&section_id=S1`), 410, 103);
      expectError(await call('GET', `${url}?level_id=L1&section_id=SX`), 410, 104);
      expectError(await call('GET', '/v1/events/nope/availability'), 410, 108);
    });
  });

  describe('bookings', () => {
    it('POST /bookings holds seats (201); the same external reference answers the same booking (200)', async () => {
      const first = await call(
        'POST',
        '/v1/bookings',
        booking(undefined, { external_reference: 'cart-9' }),
      );
      const body = expectAnswer(first, 201, BookingAnswer);
      expect(body.booking).toMatchObject({
        status: 'BOOKED',
        tickets_quantity: 2,
        tickets_amount: '10000',
        external_reference: 'cart-9',
      });
      const again = await call(
        'POST',
        '/v1/bookings',
        booking(undefined, { external_reference: 'cart-9' }),
      );
      expect(expectAnswer(again, 200, BookingAnswer).booking.inventory_token).toBe(
        body.booking.inventory_token,
      );
    });

    it('holds named seats, general admission and access-code prices', async () => {
      const named = await call(
        'POST',
        '/v1/bookings',
        booking([
          { price_type_id: 'ADULT', quantity: 2, area_id: 'A1', seat_ids: ['A1-C-5', 'A1-C-6'] },
        ]),
      );
      expect(named.json().booking.tickets.map((t: { seat_id: string }) => t.seat_id)).toEqual([
        'A1-C-5',
        'A1-C-6',
      ]);
      expectError(
        await call(
          'POST',
          '/v1/bookings',
          booking([{ price_type_id: 'ADULT', quantity: 1, area_id: 'A1', seat_ids: ['A1-C-5'] }]),
        ),
        410,
        307,
      );
      const standing = await call(
        'POST',
        '/v1/bookings',
        booking([{ price_type_id: 'ADULT', quantity: 3, price_level_id: 'PL2' }]),
      );
      expect(standing.json().booking).toMatchObject({ tickets_amount: '7500' });
      expect(standing.json().booking.tickets[0]).toMatchObject({
        general_admission: true,
        row: '',
        seat: '',
        area_id: 'GA',
      });
      const promo = await call(
        'POST',
        '/v1/bookings',
        booking([{ price_type_id: 'PROMO', quantity: 1, access_code: 'SECRET' }]),
      );
      expect(promo.json().booking.tickets_amount).toBe('3000');
    });

    it('refuses bad bookings with their ids', async () => {
      const post = (body: unknown) => call('POST', '/v1/bookings', body);
      expectError(await post(booking(undefined, { language: 'EN' })), 400, 110);
      expectError(
        await post(booking(undefined, { channel_info: { channel_type: 'FAX' } })),
        400,
        111,
      );
      expectError(await post(booking(undefined, { event_id: 'nope' })), 410, 108);
      expectError(await post(booking([{ price_type_id: 'NOPE', quantity: 1 }])), 410, 109);
      expectError(
        await post(booking([{ price_type_id: 'PROMO', quantity: 1, access_code: 'WRONG' }])),
        410,
        109,
      );
      expectError(
        await post(booking([{ price_type_id: 'ADULT', quantity: 1, price_level_id: 'NOPE' }])),
        410,
        107,
      );
      expectError(
        await post(booking([{ price_type_id: 'ADULT', quantity: 1, area_id: 'NOPE' }])),
        410,
        104,
      );
      expectError(
        await post(
          booking([{ price_type_id: 'ADULT', quantity: 1, area_id: 'A1', seat_ids: ['NOPE'] }]),
        ),
        410,
        106,
      );
      expectError(await post(booking([{ price_type_id: 'ADULT', quantity: 11 }])), 410, 301);
      expectError(
        await post(
          booking([
            { price_type_id: 'ADULT', quantity: 10, price_level_id: 'PL2' },
            { price_type_id: 'ADULT', quantity: 1, area_id: 'GA' },
          ]),
        ),
        410,
        301,
      );
    });

    it('refuses more than is available (303), then anything once sold out (306)', async () => {
      await call(
        'PATCH',
        `/admin/v1/events/${eventId}`,
        { maximum_tickets_quantity: 100 },
        h.admin,
      );
      const standing = (quantity: number) => [
        { price_type_id: 'ADULT', quantity, price_level_id: 'PL2' },
      ];
      expectError(await call('POST', '/v1/bookings', booking(standing(21))), 410, 303);
      await hold(standing(20));
      await hold([{ price_type_id: 'ADULT', quantity: 50, price_level_id: 'PL1' }]);
      expectError(await call('POST', '/v1/bookings', booking(standing(1))), 410, 306);
    });

    it('refuses an event that is cancelled (305) or a channel it does not sell on (308)', async () => {
      await call(
        'PATCH',
        `/admin/v1/events/${eventId}`,
        { sales_channels: ['BOX_OFFICE'] },
        h.admin,
      );
      expectError(await call('POST', '/v1/bookings', booking()), 410, 308);
      await call('PATCH', `/admin/v1/events/${eventId}`, { status: 'CANCELED' }, h.admin);
      expectError(
        await call(
          'POST',
          '/v1/bookings',
          booking(undefined, { channel_info: { channel_type: 'BOX_OFFICE' } }),
        ),
        410,
        305,
      );
    });

    it('DELETE /bookings/{token} releases once: then 311; unknown 314; expired 312; confirmed 313', async () => {
      const token = await hold();
      const released = expectAnswer(
        await call('DELETE', `/v1/bookings/${token}`),
        200,
        BookingAnswer,
      );
      expect(released.booking.status).toBe('RELEASED');
      expectError(await call('DELETE', `/v1/bookings/${token}`), 410, 311);
      expectError(await call('DELETE', '/v1/bookings/B-nothing'), 410, 314);
      const orderId = await confirmed();
      expectError(await call('DELETE', `/v1/bookings/${orderId.slice(2)}`), 410, 313);
      const late = await hold();
      clock.advance(60_000);
      expectError(await call('DELETE', `/v1/bookings/${late}`), 410, 312);
    });
  });

  describe('orders', () => {
    it('POST /orders confirms (201); repeated with the same external id answers it again (200)', async () => {
      const token = await hold();
      const body = expectAnswer(await call('POST', '/v1/orders', order(token)), 201, OrderAnswer);
      expect(body.order).toMatchObject({
        status: 'CONFIRMED',
        print_authorized: true,
        external_order_id: 'ext-1',
        payment_method_type: 'CARD',
      });
      const again = expectAnswer(await call('POST', '/v1/orders', order(token)), 200, OrderAnswer);
      expect(again.order.inventory_order_id).toBe(body.order.inventory_order_id);
      expectError(
        await call('POST', '/v1/orders', order(token, { external_order_id: 'ext-2' })),
        410,
        313,
      );
    });

    it('refuses bad confirmations with their ids', async () => {
      const token = await hold();
      const post = (body: unknown) => call('POST', '/v1/orders', body);
      expectError(
        await post(order(token, {}, { payment_info: { payment_method_type: 'GOLD' } })),
        400,
        112,
      );
      expectError(
        await post(order(token, {}, { delivery_info: { delivery_method_type: 'PIGEON' } })),
        400,
        113,
      );
      expectError(
        await post(order(token, {}, { channel_info: { channel_type: 'FAX' } })),
        400,
        111,
      );
      expectError(await post(order(token, {}, { language: 'english' })), 400, 110);
      expectError(await post(order(token, { tickets_amount: '12.5' })), 400, 207);
      // Odd numbers: never a 500. Past 18 digits, signs, exponents and blanks are 207; a number
      // too large to be exact is a well-formed amount that matches no booking (309).
      for (const odd of ['', '-100', '1e4', ' 10000', '010000', '1234567890123456789'])
        expectError(await post(order(token, { tickets_amount: odd })), 400, 207);
      expectError(await post(order(token, { tickets_amount: '9007199254740993' })), 410, 309);
      expectError(await post(order(token, { tickets_quantity: 'two' })), 400, 1);
      expectError(await post(order(token, { tickets_amount: '9999' })), 410, 309);
      expectError(await post(order(token, { tickets_quantity: 3 })), 410, 309);
      expectError(await post(order('B-nothing')), 410, 314);
      await call('DELETE', `/v1/bookings/${token}`);
      expectError(await post(order(token)), 410, 311);
      const late = await hold();
      clock.advance(60_000);
      expectError(await post(order(late)), 410, 312);
    });

    it('refuses to confirm on a channel the event does not sell on (308)', async () => {
      const token = await hold();
      await call(
        'PATCH',
        `/admin/v1/events/${eventId}`,
        { sales_channels: ['BOX_OFFICE'] },
        h.admin,
      );
      expectError(await call('POST', '/v1/orders', order(token)), 410, 308);
    });

    it('POST /orders/{id} prints, rolls back and cancels; wrong transitions are refused', async () => {
      const orderId = await confirmed();
      const url = `/v1/orders/${orderId}`;
      expect(
        expectAnswer(await call('POST', url, action('PRINT')), 200, OrderActionAnswer),
      ).toMatchObject({ action: 'PRINT', order: { status: 'PRINTED' } });
      expectError(await call('POST', url, action('PRINT')), 410, 309);
      expect((await call('POST', url, action('ROLLBACK_PRINT'))).json().order.status).toBe(
        'CONFIRMED',
      );
      expectError(await call('POST', url, action('ROLLBACK_PRINT')), 410, 309);
      expectError(await call('POST', url, action('SHRED')), 400, 204);
      expectError(
        await call('POST', url, action('PRINT', { channel_info: { channel_type: 'FAX' } })),
        400,
        111,
      );
      expectError(await call('POST', url, action('PRINT', { language: 'x' })), 400, 110);
      expect((await call('POST', url, action('CANCEL'))).json().order).toMatchObject({
        status: 'CANCELLED',
        print_authorized: false,
      });
      expectError(await call('POST', url, action('CANCEL')), 410, 315);
      expectError(await call('DELETE', `/v1/bookings/${orderId.slice(2)}`), 410, 315);
      expectError(await call('POST', '/v1/orders/O-B-nothing', action('PRINT')), 410, 206);
      const availability = (await call('GET', `/v1/events/${eventId}/availability`)).json();
      expect(availability.areas[0].available).toBe(50);
    });

    it('POST /orders/{id} PRINT takes 3 print messages of 100 characters, no more', async () => {
      const orderId = await confirmed();
      const url = `/v1/orders/${orderId}`;
      const line = 'é'.repeat(100);
      expectError(
        await call('POST', url, action('PRINT', { print_messages: [line, line, line, line] })),
        400,
        1,
      );
      expectError(
        await call('POST', url, action('PRINT', { print_messages: [`${line}x`] })),
        400,
        1,
      );
      expect(
        expectAnswer(
          await call('POST', url, action('PRINT', { print_messages: [line, 'Row 2', ''] })),
          200,
          OrderActionAnswer,
        ),
      ).toMatchObject({ action: 'PRINT', order: { status: 'PRINTED' } });
    });

    it('GET /orders/{id} answers an order by id, or a transaction by token; 206 when unknown', async () => {
      const orderId = await confirmed();
      expect(
        expectAnswer(await call('GET', `/v1/orders/${orderId}`), 200, OrderAnswer).order.status,
      ).toBe('CONFIRMED');
      const token = await hold();
      expect((await call('GET', `/v1/orders/${token}`)).json().order).toMatchObject({
        status: 'BOOKED',
        print_authorized: false,
      });
      expectError(await call('GET', '/v1/orders/O-B-nothing'), 410, 206);
    });

    it('GET /orders lists by token, or an event’s transactions of a period, oldest first', async () => {
      const first = await hold();
      clock.advance(1000);
      await confirmed();
      const byToken = expectAnswer(
        await call('GET', `/v1/orders?inventory_token=${first}`),
        200,
        OrdersPage,
      );
      expect(byToken.orders).toHaveLength(1);
      expect((await call('GET', '/v1/orders?inventory_token=B-nothing')).json().orders).toEqual([]);
      const start = encodeURIComponent(inDays(-1, clock.now().getTime()));
      const end = encodeURIComponent(inDays(1, clock.now().getTime()));
      const page = expectAnswer(
        await call('GET', `/v1/orders?event_id=${eventId}&start=${start}&end=${end}&size=1`),
        200,
        OrdersPage,
      );
      expect(page.page).toEqual({ size: 1, total_elements: 2, total_pages: 2, number: 0 });
      expect(page.orders[0].inventory_token).toBe(first);
      const second = (
        await call('GET', `/v1/orders?event_id=${eventId}&start=${start}&end=${end}&size=1&page=1`)
      ).json();
      expect(second.orders[0].status).toBe('CONFIRMED');
    });

    it('GET /orders refuses bad queries with their ids', async () => {
      const start = encodeURIComponent(inDays(-1));
      const end = encodeURIComponent(inDays(1));
      expectError(await call('GET', '/v1/orders'), 400, 1);
      expectError(
        await call('GET', `/v1/orders?event_id=nope&start=${start}&end=${end}`),
        410,
        108,
      );
      expectError(await call('GET', `/v1/orders?event_id=${eventId}&start=x&end=${end}`), 400, 213);
      expectError(
        await call('GET', `/v1/orders?event_id=${eventId}&start=${end}&end=${start}`),
        400,
        213,
      );
      expectError(
        await call(
          'GET',
          `/v1/orders?event_id=${eventId}&start=${encodeURIComponent(inDays(-40))}&end=${end}`,
        ),
        400,
        213,
      );
      expectError(
        await call('GET', `/v1/orders?event_id=${eventId}&start=${start}&end=${end}&size=501`),
        400,
        214,
      );
      expectError(
        await call('GET', `/v1/orders?event_id=${eventId}&start=${start}&end=${end}&page=-2`),
        400,
        215,
      );
    });
  });

  describe('drills', () => {
    it('carries out the operation, then holds its answer back', async () => {
      await call(
        'PUT',
        '/admin/v1/drills',
        { delay_ms: 150, operations: ['POST /bookings'] },
        h.admin,
      );
      const started = Date.now();
      const response = await call('POST', '/v1/bookings', booking());
      expect(response.statusCode).toBe(201);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      await call('PUT', '/admin/v1/drills', {}, h.admin);
      const quick = Date.now();
      await call('POST', '/v1/bookings', booking());
      expect(Date.now() - quick).toBeLessThan(140);
    });
  });
});
