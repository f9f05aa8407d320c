import { createLogger } from '@marquee/platform/logger';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadPartnerReferenceConfig, shouldSeedDemo } from '../src/config.js';
import { buildPartnerReference } from '../src/service.js';
import { eventBody, inDays, ManualClock, venueBody } from './fixtures.js';
import { httpHarness, PLATFORM_ADMIN_TOKEN, type HttpHarness } from './http.js';

let h: HttpHarness;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  h = await httpHarness({ clock });
});
afterEach(async () => {
  expect(h.statuses.filter((status) => status >= 500)).toEqual([]);
  await h.close();
});

const admin = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) =>
  h.http.inject({
    method,
    url: `/admin/v1${url}`,
    headers: h.admin,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
const expectAdminError = (response: LightMyRequestResponse, status: number, code: string) =>
  expect({ status: response.statusCode, body: response.json() }).toMatchObject({
    status,
    body: { error: { code, message: expect.any(String) } },
  });

describe('the back office', () => {
  it('needs the admin bearer token', async () => {
    const missing = await h.http.inject({ method: 'GET', url: '/admin/v1/venues' });
    expectAdminError(missing, 401, 'unauthenticated');
    const wrong = await h.http.inject({
      method: 'GET',
      url: '/admin/v1/venues',
      headers: { authorization: 'Bearer not-the-token' },
    });
    expectAdminError(wrong, 401, 'unauthenticated');
  });

  it("refuses the platform's admin token: the back office has its own (PARTNER_ADMIN_TOKEN)", async () => {
    // The harness starts it with both in the environment, as `pnpm stack` and a shared env file do.
    for (const method of ['GET', 'POST'] as const) {
      const platform = await h.http.inject({
        method,
        url: '/admin/v1/venues',
        headers: { authorization: `Bearer ${PLATFORM_ADMIN_TOKEN}` },
        ...(method === 'POST' ? { payload: venueBody({ id: 'V-PLATFORM', gaCapacity: 1 }) } : {}),
      });
      expectAdminError(platform, 401, 'unauthenticated');
    }
    expect((await admin('GET', '/venues')).json()).toEqual({ venues: [] });
  });

  it('creates venues with their manifests and lists them', async () => {
    const created = await admin('POST', '/venues', venueBody({ id: 'V-1', gaCapacity: 10 }));
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ venue_id: 'V-1', manifest_ids: [expect.any(String)] });
    expect((await admin('GET', '/venues')).json()).toEqual({
      venues: [{ venue_id: 'V-1', name: 'Test Hall', manifest_ids: created.json().manifest_ids }],
    });
    expectAdminError(
      await admin('POST', '/venues', venueBody({ id: 'V-1' })),
      400,
      'invalid_argument',
    );
  });

  it('validates bodies by schema and by meaning', async () => {
    expectAdminError(await admin('POST', '/venues', { name: 'x' }), 400, 'invalid_argument');
    const body = venueBody();
    const area = body.manifests[0]!.areas[0]!;
    const both = {
      ...body,
      manifests: [{ ...body.manifests[0]!, areas: [{ ...area, seats: [] }] }],
    };
    expectAdminError(await admin('POST', '/venues', both), 400, 'invalid_argument');
    const badLevel = {
      ...body,
      manifests: [{ ...body.manifests[0]!, areas: [{ ...area, level_id: 'NOPE' }] }],
    };
    expect((await admin('POST', '/venues', badLevel)).json().error.message).toContain(
      'unknown level',
    );
    const { venue_id, manifest_ids } = (await admin('POST', '/venues', body)).json();
    expectAdminError(
      await admin('POST', '/events', eventBody('V-nope', manifest_ids[0])),
      400,
      'invalid_argument',
    );
    const badPrice = eventBody(venue_id, manifest_ids[0], {
      face_value_prices: [
        {
          price_period: { id: 'P', start_date_time: inDays(-1), end_date_time: inDays(10) },
          prices: [{ price_level_id: 'PL1', price_type_id: 'NOPE', amount: '1' }],
        },
      ],
    });
    expect((await admin('POST', '/events', badPrice)).json().error.message).toContain(
      'unknown price type',
    );
    expectAdminError(
      await admin('POST', '/events', {
        ...eventBody(venue_id, manifest_ids[0]),
        logos: [{ id: 'L-nope', position: 'TOP' }],
      }),
      400,
      'invalid_argument',
    );
    const valid = eventBody(venue_id, manifest_ids[0], { event_id: 'E-RULES' });
    const twoRegular = await admin('POST', '/events', {
      ...valid,
      price_types: valid.price_types.map((t) => ({ ...t, regular: true })),
    });
    expectAdminError(twoRegular, 400, 'invalid_argument');
    expect(twoRegular.json().error.message).toContain('at most one is regular');
    const logo = 'L-TWICE';
    const logoTwice = await admin('POST', '/events', {
      ...valid,
      logos: [
        { id: logo, position: 'TOP' },
        { id: logo, position: 'BOTTOM' },
      ],
    });
    expectAdminError(logoTwice, 400, 'invalid_argument');
    expect(logoTwice.json().error.message).toContain(`${logo} is listed twice`);
    expect((await admin('POST', '/events', valid)).statusCode).toBe(201);
    expectAdminError(
      await admin('PATCH', '/events/E-RULES', {
        price_types: valid.price_types.map((t) => ({ ...t, regular: true })),
      }),
      400,
      'invalid_argument',
    );
    expectAdminError(
      await h.http.inject({
        method: 'POST',
        url: '/admin/v1/events',
        headers: { ...h.admin, 'content-type': 'application/json' },
        payload: '{',
      }),
      400,
      'invalid_argument',
    );
  });

  it('creates, lists and patches events; a patch moves last_modification forward', async () => {
    const { venue_id, manifest_ids } = (await admin('POST', '/venues', venueBody())).json();
    const created = await admin(
      'POST',
      '/events',
      eventBody(venue_id, manifest_ids[0], { event_id: 'E-1' }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ event_id: 'E-1' });
    const listed = (await admin('GET', `/events?venue=${venue_id}`)).json();
    expect(listed.events).toHaveLength(1);
    const before = listed.events[0].event.last_modification;
    clock.advance(5_000);

    const patched = await admin('PATCH', '/events/E-1', {
      status: 'CANCELED',
      maximum_tickets_quantity: 2,
    });

    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      status: 'CANCELED',
      event: { maximum_tickets_quantity: 2 },
    });
    expect(Date.parse(patched.json().event.last_modification)).toBeGreaterThan(Date.parse(before));
    expectAdminError(
      await admin('PATCH', '/events/E-nope', { status: 'CANCELED' }),
      404,
      'not_found',
    );
    expectAdminError(
      await admin('PATCH', '/events/E-1', { venue_id: 'x' }),
      400,
      'invalid_argument',
    );
    const auth = await h.bearer();
    const modified = await h.http.inject({
      method: 'GET',
      url: `/v1/events?venue=${venue_id}&last_modification=${encodeURIComponent(new Date(Date.parse(before) + 1).toISOString())}`,
      headers: auth,
    });
    expect(modified.json().events_info).toEqual([
      expect.objectContaining({ status: 'CANCELED', mod_list: ['MODIFIED'] }),
    ]);
  });

  it('answers unknown routes 404 and wrong methods 405', async () => {
    expectAdminError(await admin('GET', '/nothing'), 404, 'not_found');
    expectAdminError(await admin('DELETE', '/venues'), 405, 'method_not_allowed');
  });

  it('sets and clears drills', async () => {
    const set = await admin('PUT', '/drills', { delay_ms: 10, operations: ['POST /orders'] });
    expect(set.json()).toEqual({ delay_ms: 10, operations: ['POST /orders'] });
    expect((await admin('PUT', '/drills', {})).json()).toEqual({ delay_ms: 0, operations: [] });
    expectAdminError(await admin('PUT', '/drills', { delay_ms: -1 }), 400, 'invalid_argument');
    expectAdminError(await admin('PUT', '/healthcheck', { id: 500 }), 400, 'invalid_argument');
  });
});

describe('configuration', () => {
  const logger = createLogger({ service: 'test', level: 'silent' });

  it('refuses to start in production without PARTNER_ADMIN_TOKEN, the platform one being no substitute', async () => {
    const config = loadPartnerReferenceConfig({
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'platform-admin-token-0123456789',
    });
    await expect(
      buildPartnerReference({ mongo: undefined, logger }, config, { quiet: true }),
    ).rejects.toThrow(/PARTNER_ADMIN_TOKEN/);
  });

  it("refuses a PARTNER_ADMIN_TOKEN equal to the platform's ADMIN_TOKEN", async () => {
    const shared = 'the-same-token-0123456789';
    const config = loadPartnerReferenceConfig({
      PARTNER_ADMIN_TOKEN: shared,
      ADMIN_TOKEN: shared,
    });
    await expect(
      buildPartnerReference({ mongo: undefined, logger }, config, { quiet: true }),
    ).rejects.toThrow(/must differ from the platform's ADMIN_TOKEN/);
  });

  it("generates its own back-office token in development even when the platform's is set", async () => {
    const platform = 'platform-admin-token-0123456789';
    const config = loadPartnerReferenceConfig({ ADMIN_TOKEN: platform });
    const sut = await buildPartnerReference({ mongo: undefined, logger }, config, { quiet: true });
    expect(sut.adminToken).not.toBe(platform);
  });

  it('seeds the demo by default only outside production on memory storage', () => {
    const dev = loadPartnerReferenceConfig({});
    expect(shouldSeedDemo(dev, 'memory')).toBe(true);
    expect(shouldSeedDemo(dev, 'mongo')).toBe(false);
    expect(shouldSeedDemo(loadPartnerReferenceConfig({ NODE_ENV: 'production' }), 'memory')).toBe(
      false,
    );
    expect(shouldSeedDemo(loadPartnerReferenceConfig({ PARTNER_SEED_DEMO: 'true' }), 'mongo')).toBe(
      true,
    );
  });

  it('generates the admin token and client when unset', async () => {
    const config = loadPartnerReferenceConfig({});
    const sut = await buildPartnerReference({ mongo: undefined, logger }, config, { quiet: true });
    expect(sut.adminToken.length).toBeGreaterThanOrEqual(16);
    expect(sut.clientId).toMatch(/^partner-client-/);
  });
});
