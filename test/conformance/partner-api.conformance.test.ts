import { randomUUID } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import {
  AvailabilityAnswer,
  BookingAnswer,
  checkAnswer,
  ErrorBody,
  EventAnswer,
  EventsPage,
  HealthcheckResult,
  LogoAnswer,
  ManifestAnswer,
  OAuthError,
  OrderActionAnswer,
  OrderAnswer,
  OrdersPage,
  PartnerErrorId,
  PartnerScope,
  TaxPlanAnswer,
  TokenResponse,
  type PartnerEvent,
} from '@marquee/partner-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceTarget, type ConformanceTarget } from './target.js';

/**
 * The 3P API conformance kit: what any partner implementation must answer, checked over HTTP
 * against the contract in `@marquee/partner-api`. Read-only checks run against any target; the
 * runtime part (book, release, order, print, roll back, cancel) only where `runtime` is allowed.
 * See test/conformance/README.md for running it against your own system.
 */
let target: ConformanceTarget;
let token: string;

beforeAll(async () => {
  target = await conformanceTarget();
  token = (await requestToken()).access_token;
});

afterAll(async () => {
  await target?.close();
});

function expectSchema(schema: TSchema, body: unknown): void {
  const checked = checkAnswer(schema, body);
  expect(checked.ok ? [] : checked.errors).toEqual([]);
}

async function requestToken(scope?: string) {
  const response = await fetch(target.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: target.clientId,
      client_secret: target.clientSecret,
      ...(scope ? { scope } : {}),
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { access_token: string; scope: string };
  expectSchema(TokenResponse, body);
  return body;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; bearer?: string | null; correlationId?: string } = {},
): Promise<Answer> {
  const bearer = options.bearer === undefined ? token : options.bearer;
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      'x-correlation-id': options.correlationId ?? randomUUID(),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Kept as text: the assertions below report it.
  }
  return { status: response.status, body, headers: response.headers };
}

/** A refused call: the status, the error body of the API, and the id when the contract fixes one. */
function expectError(answer: Answer, status: number, ids?: readonly number[]): void {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status });
  expectSchema(ErrorBody, answer.body);
  if (ids) expect(ids).toContain((answer.body as { id: number }).id);
}

const epoch = '1970-01-01T00:00:00Z';
const venueEvents = (query = '') =>
  call(
    'GET',
    `/events?venue=${encodeURIComponent(target.venue)}&last_modification=${epoch}${query}`,
  );

describe('authentication (OAuth 2.0 client credentials)', () => {
  it('grants a bearer token whose expires_in is a string and whose scope lists the granted scopes', async () => {
    const sut = await requestToken();
    expect(sut.scope.split(' ')).toEqual(
      expect.arrayContaining([PartnerScope.CHECK, PartnerScope.INGESTION]),
    );
  });

  it('refuses a wrong secret with 401 invalid_client', async () => {
    const sut = await fetch(target.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: target.clientId,
        client_secret: `${target.clientSecret}x`,
      }),
    });
    expect(sut.status).toBe(401);
    const body = await sut.json();
    expectSchema(OAuthError, body);
    expect(body).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses another grant type with 400 unsupported_grant_type', async () => {
    const sut = await fetch(target.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: target.clientId,
        client_secret: target.clientSecret,
      }),
    });
    expect(sut.status).toBe(400);
    expect(await sut.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers 401 without a token and with an unknown one', async () => {
    expect((await call('GET', '/healthcheck', { bearer: null })).status).toBe(401);
    expect((await call('GET', '/healthcheck', { bearer: 'not-a-token' })).status).toBe(401);
  });

  it('answers 403 to a token without the operation scope', async () => {
    const checkOnly = await requestToken(PartnerScope.CHECK);
    expect((await call('GET', '/healthcheck', { bearer: checkOnly.access_token })).status).toBe(
      200,
    );
    const sut = await call(
      'GET',
      `/events?venue=${encodeURIComponent(target.venue)}&last_modification=${epoch}`,
      { bearer: checkOnly.access_token },
    );
    expect(sut.status).toBe(403);
  });
});

describe('ingestion', () => {
  it('answers the healthcheck with id 0, 901 or 902', async () => {
    const sut = await call('GET', '/healthcheck');
    expect(sut.status).toBe(200);
    expectSchema(HealthcheckResult, sut.body);
    expect([0, 901, 902]).toContain((sut.body as { id: number }).id);
  });

  it('echoes X-Correlation-Id', async () => {
    const correlationId = `conformance-${randomUUID()}`;
    const sut = await call('GET', '/healthcheck', { correlationId });
    expect(sut.headers.get('x-correlation-id')).toBe(correlationId);
  });

  it('lists the venue events in pages of 20 by default, page 0 first', async () => {
    const sut = await venueEvents();
    expect(sut.status).toBe(200);
    expectSchema(EventsPage, sut.body);
    const { events_info, page } = sut.body as {
      events_info: unknown[];
      page: { size: number; number: number; total_elements: number; total_pages: number };
    };
    expect(page).toMatchObject({ size: 20, number: 0 });
    expect(page.total_pages).toBe(Math.ceil(page.total_elements / page.size));
    expect(events_info.length).toBe(Math.min(20, page.total_elements));
    expect(page.total_elements).toBeGreaterThan(0);
  });

  it('pages with size and page: two pages of one hold different events and the same totals', async () => {
    const first = (await venueEvents('&size=1&page=0')).body as {
      events_info: Array<{ event: PartnerEvent }>;
      page: { total_elements: number };
    };
    const second = (await venueEvents('&size=1&page=1')).body as typeof first;
    expect(first.events_info).toHaveLength(1);
    if (first.page.total_elements > 1) {
      expect(second.events_info).toHaveLength(1);
      expect(second.events_info[0]!.event.event_id).not.toBe(first.events_info[0]!.event.event_id);
    }
    expect(second.page.total_elements).toBe(first.page.total_elements);
  });

  it('sorts by name then date with sort=name,date', async () => {
    const sut = (await venueEvents('&size=100&sort=name,date')).body as {
      events_info: Array<{ event: PartnerEvent }>;
    };
    const names = sut.events_info.map((item) => item.event.text_infos[0]?.name ?? '');
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('returns nothing modified after a future instant', async () => {
    const sut = await call(
      'GET',
      `/events?venue=${encodeURIComponent(target.venue)}&last_modification=2999-01-01T00:00:00Z`,
    );
    expect(sut.status).toBe(200);
    expect((sut.body as { events_info: unknown[] }).events_info).toEqual([]);
  });

  it.each([
    ['an invalid sort', '&sort=price', PartnerErrorId.INVALID_SORT_CRITERIA],
    ['a page size of 0', '&size=0', PartnerErrorId.INVALID_PAGE_SIZE],
    ['a negative page', '&page=-1', PartnerErrorId.INVALID_PAGE_NUMBER],
  ])('refuses %s with 400 and its error id', async (_name, query, id) => {
    expectError(await venueEvents(query), 400, [id]);
  });

  it('refuses a malformed last_modification with 400 id 213', async () => {
    const sut = await call(
      'GET',
      `/events?venue=${encodeURIComponent(target.venue)}&last_modification=yesterday`,
    );
    expectError(sut, 400, [PartnerErrorId.INVALID_LAST_MODIFICATION]);
  });

  it('refuses a list without a venue with 400', async () => {
    expectError(await call('GET', `/events?last_modification=${epoch}`), 400);
  });

  it('answers an unknown venue and an unknown event with an error body (400 or 410)', async () => {
    const venue = await call('GET', `/events?venue=no-such-venue-0&last_modification=${epoch}`);
    expect([400, 410]).toContain(venue.status);
    expectSchema(ErrorBody, venue.body);
    const event = await call('GET', `/events/no-such-event-0?last_modification=${epoch}`);
    expectError(event, event.status === 400 ? 400 : 410, [PartnerErrorId.INVALID_EVENT_ID]);
  });

  it('reads each event, its manifest, logos and tax plans', async () => {
    const listed = (await venueEvents('&size=100')).body as {
      events_info: Array<{ event: PartnerEvent }>;
    };
    for (const { event } of listed.events_info.slice(0, 5)) {
      const one = await call('GET', `/events/${event.event_id}?last_modification=${epoch}`);
      expect(one.status).toBe(200);
      expectSchema(EventAnswer, one.body);
      expect((one.body as { event: PartnerEvent }).event.event_id).toBe(event.event_id);
      const manifest = await call('GET', `/manifests/${event.manifest_id}`);
      expect(manifest.status).toBe(200);
      expectSchema(ManifestAnswer, manifest.body);
      for (const logo of event.logos ?? []) {
        const answer = await call('GET', `/logos/${logo.id}`);
        expect(answer.status).toBe(200);
        expectSchema(LogoAnswer, answer.body);
      }
      for (const component of event.price_components ?? []) {
        const answer = await call('GET', `/tax-plans/${component.tax_plan_id}`);
        expect(answer.status).toBe(200);
        expectSchema(TaxPlanAnswer, answer.body);
      }
    }
  });

  it('answers the rules of event data: at most one regular price type, at most two logos', async () => {
    const listed = (await venueEvents('&size=100')).body as {
      events_info: Array<{ event: PartnerEvent; status: string }>;
    };
    for (const { event, status } of listed.events_info) {
      expect(event.price_types.filter((type) => type.regular).length).toBeLessThanOrEqual(1);
      expect((event.logos ?? []).length).toBeLessThanOrEqual(2);
      expect(['ON_SALE', 'CANCELED']).toContain(status.toUpperCase());
    }
  });
});

describe('availability', () => {
  let event: PartnerEvent;
  beforeAll(async () => {
    const listed = (await venueEvents('&size=100')).body as {
      events_info: Array<{ event: PartnerEvent; status: string }>;
    };
    event = listed.events_info.find((item) => item.status.toUpperCase() === 'ON_SALE')!.event;
  });

  it('gives every area of an event, and one area by level and section', async () => {
    const all = await call('GET', `/events/${event.event_id}/availability?detail=seats`);
    expect(all.status).toBe(200);
    expectSchema(AvailabilityAnswer, all.body);
    const areas = (all.body as AreasAnswer).areas;
    expect(areas.length).toBeGreaterThan(0);
    const located = areas.find((area) => area.level_id && area.section_id);
    if (located) {
      const one = await call(
        'GET',
        `/events/${event.event_id}/availability?level_id=${located.level_id}&section_id=${located.section_id}`,
      );
      expect(one.status).toBe(200);
      const only = (one.body as AreasAnswer).areas;
      expect(only.map((area) => area.area_id)).toEqual([located.area_id]);
    }
  });

  it('refuses an unknown availability level with 400 id 216', async () => {
    expectError(
      await call('GET', `/events/${event.event_id}/availability?detail=everything`),
      400,
      [PartnerErrorId.INVALID_AVAILABILITY_LEVEL],
    );
  });
});

interface AreasAnswer {
  areas: Array<{ area_id: string; level_id?: string; section_id?: string; available: number }>;
}

describe('runtime: bookings and orders', () => {
  let event: PartnerEvent;
  let priceTypeId: string;
  const available = async () =>
    (
      (await call('GET', `/events/${event.event_id}/availability`)).body as AreasAnswer
    ).areas.reduce((sum, area) => sum + area.available, 0);
  const book = (quantity: number, extra: Record<string, unknown> = {}) =>
    call('POST', '/bookings', {
      body: {
        request: {
          event_id: event.event_id,
          language: 'en-us',
          channel_info: { channel_type: 'INTERNET' },
          tickets: [{ price_type_id: priceTypeId, quantity }],
          ...extra,
        },
      },
    });

  beforeAll(async () => {
    if (!target.runtime) return;
    const listed = (await venueEvents('&size=100')).body as {
      events_info: Array<{ event: PartnerEvent; status: string }>;
    };
    for (const item of listed.events_info) {
      if (item.status.toUpperCase() !== 'ON_SALE') continue;
      const type = item.event.price_types.find((candidate) => !candidate.access_code);
      if (!type) continue;
      event = item.event;
      priceTypeId = type.id;
      if ((await available()) >= 4) break;
    }
  });

  it('holds, releases, and refuses a second release with id 311', async () => {
    if (!target.runtime) return;
    const before = await available();
    const held = await book(2);
    expect(held.status).toBe(201);
    expectSchema(BookingAnswer, held.body);
    const booking = (held.body as { booking: { inventory_token: string; tickets: unknown[] } })
      .booking;
    expect(booking.tickets).toHaveLength(2);
    expect(await available()).toBe(before - 2);
    const released = await call('DELETE', `/bookings/${booking.inventory_token}`);
    expect(released.status).toBe(200);
    expect(await available()).toBe(before);
    expectError(await call('DELETE', `/bookings/${booking.inventory_token}`), 410, [
      PartnerErrorId.RESERVATION_RELEASED,
    ]);
  });

  it('confirms, prints, rolls back, cancels — and refuses the wrong transitions', async () => {
    if (!target.runtime) return;
    const before = await available();
    const held = (
      (await book(1)).body as {
        booking: { inventory_token: string; tickets_amount: string; tickets_quantity: number };
      }
    ).booking;
    const orderRequest = (amount: string) => ({
      request: {
        inventory_token: held.inventory_token,
        order_info: { tickets_amount: amount, tickets_quantity: held.tickets_quantity },
        payment_info: { payment_method_type: 'CARD' },
        delivery_info: { delivery_method_type: 'PH' },
        channel_info: { channel_type: 'INTERNET' },
      },
    });
    const wrong = await call('POST', '/orders', {
      body: orderRequest(String(Number(held.tickets_amount) + 1)),
    });
    expectError(wrong, 410, [
      PartnerErrorId.INVALID_ORDER_TOTAL_AMOUNT,
      PartnerErrorId.INVALID_INVENTORY_TICKETS_AMOUNT,
      PartnerErrorId.REQUEST_DOES_NOT_MATCH_ORDER,
    ]);
    const ordered = await call('POST', '/orders', { body: orderRequest(held.tickets_amount) });
    expect(ordered.status).toBe(201);
    expectSchema(OrderAnswer, ordered.body);
    const order = (ordered.body as { order: { inventory_order_id: string } }).order;
    expectError(await call('POST', '/orders', { body: orderRequest(held.tickets_amount) }), 410, [
      PartnerErrorId.RESERVATION_CONFIRMED,
    ]);

    const read = await call('GET', `/orders/${order.inventory_order_id}`);
    expect(read.status).toBe(200);
    expectSchema(OrderAnswer, read.body);
    const byToken = await call('GET', `/orders?inventory_token=${held.inventory_token}`);
    expect(byToken.status).toBe(200);
    expectSchema(OrdersPage, byToken.body);
    expect(
      (byToken.body as { orders: Array<{ inventory_order_id?: string }> }).orders.map(
        (o) => o.inventory_order_id,
      ),
    ).toContain(order.inventory_order_id);

    const act = (action: string) =>
      call('POST', `/orders/${order.inventory_order_id}`, {
        body: {
          request: { action, channel_info: { channel_type: 'INTERNET' }, language: 'en-us' },
        },
      });
    const printed = await act('PRINT');
    expect(printed.status).toBe(200);
    expectSchema(OrderActionAnswer, printed.body);
    expect(printed.body).toMatchObject({ action: 'PRINT' });
    expectError(await act('PRINT'), 410, [PartnerErrorId.REQUEST_DOES_NOT_MATCH_ORDER]);
    expect((await act('ROLLBACK_PRINT')).status).toBe(200);
    expectError(await act('ROLLBACK_PRINT'), 410, [PartnerErrorId.REQUEST_DOES_NOT_MATCH_ORDER]);
    expectError(await act('REFUND'), 400, [PartnerErrorId.INVALID_ACTION]);
    expect((await act('CANCEL')).status).toBe(200);
    expect(await available()).toBe(before);
    expectError(await act('CANCEL'), 410, [PartnerErrorId.ORDER_CANCELLED]);
  });

  it('lists an event transactions of a period', async () => {
    if (!target.runtime) return;
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const end = new Date(Date.now() + 60_000).toISOString();
    const sut = await call(
      'GET',
      `/orders?event_id=${event.event_id}&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`,
    );
    expect(sut.status).toBe(200);
    expectSchema(OrdersPage, sut.body);
    expect((sut.body as { orders: unknown[] }).orders.length).toBeGreaterThan(0);
  });

  it('refuses bad booking input with its error ids, never a 500', async () => {
    if (!target.runtime) return;
    expectError(await book(1, { language: 'english' }), 400, [PartnerErrorId.INVALID_LANGUAGE]);
    expectError(await book(1, { channel_info: { channel_type: 'PIGEON' } }), 400, [
      PartnerErrorId.INVALID_CHANNEL_TYPE,
    ]);
    const unknownEvent = await call('POST', '/bookings', {
      body: {
        request: {
          event_id: 'no-such-event-0',
          language: 'en-us',
          channel_info: { channel_type: 'INTERNET' },
          tickets: [{ price_type_id: priceTypeId, quantity: 1 }],
        },
      },
    });
    expectError(unknownEvent, 410, [PartnerErrorId.INVALID_EVENT_ID]);
    expectError(await book(1000), 410, [
      PartnerErrorId.TICKETS_PER_REQUEST_EXCEEDED,
      PartnerErrorId.AVAILABLE_TICKETS_EXCEEDED,
    ]);
    const malformed = await fetch(`${target.baseUrl}/bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"request":',
    });
    expect(malformed.status).toBe(400);
    expectSchema(ErrorBody, await malformed.json());
    expectError(await call('DELETE', '/bookings/no-such-token-0'), 410, [
      PartnerErrorId.RESERVATION_NOT_FOUND,
    ]);
    expectError(await call('GET', '/orders/no-such-order-0'), 410, [
      PartnerErrorId.INVALID_ORDER_ID,
    ]);
  });
});
