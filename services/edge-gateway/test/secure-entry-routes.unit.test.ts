import { AppError } from '@marquee/platform/errors';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeveloperAccess } from '../src/app/backends.js';
import type {
  EntryOrder,
  OrderReadRequest,
  RenderRequest,
  SecureEntryBackend,
} from '../src/app/secure-entry.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { registerTicketPage } from '../src/ports/http/secure-entry/ticket-page.js';
import { fakeBackends } from './fakes.js';

const API_KEY = 'key-of-app-1';
let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

/** The key of an app without partner distribution access. */
const PLAIN_KEY = 'key-of-app-2';

const developerAccess: Partial<DeveloperAccess> = {
  validateApiKey: async (key) => ({
    valid: key === API_KEY || key === PLAIN_KEY,
    appId: key === API_KEY ? 'app-1' : key === PLAIN_KEY ? 'app-2' : '',
    access: { commerceShopping: false, partnerDistribution: key === API_KEY },
  }),
  checkRateLimit: async () => ({ limit: 5, available: 4, resetEpochMs: 0, over: false }),
};

const order: EntryOrder = {
  orderId: 'ord-1',
  orderNumber: 'ord-1',
  orderedAt: '2026-05-01T10:00:00.000Z',
  voided: false,
  customerEmail: 'fan@example.com',
  thirdPartyAccountId: 'user-42',
  delivery: { carrier: 'Marquee', serviceLevel: 'ETICKET', description: 'Mobile ticket' },
  deviceId: 'device-1',
  deviceType: 'native',
  deviceOs: 'ios',
  tickets: [
    {
      ticketId: 'ord-1-t1',
      partnerTicketId: 'PT-1',
      barcodeId: '4012345678901234',
      displayId: 'XXXXXXXXXXXX1234',
      eventId: 'EvSecure0000001',
      section: '101',
      row: 'C',
      seat: '7',
      generalAdmission: false,
      voided: false,
      token: 'eyJ2IjoxfQ==',
      renderType: 'rotating_symbology',
      segmentType: 'ROTATING_SYMBOLOGY',
      charges: [
        {
          description: 'Ticket price',
          type: 'TICKET',
          subType: 'FACE_VALUE',
          amountMinor: 5000,
          currency: 'USD',
        },
        {
          description: 'Service fee',
          type: 'FEE',
          subType: 'SERVICE',
          amountMinor: 151,
          currency: 'USD',
        },
      ],
      errorCode: 0,
      errorMessage: '',
    },
  ],
};

async function edge(secureEntry: Partial<SecureEntryBackend>): Promise<FastifyInstance> {
  sut = createHttpServer({ logger: createLogger({ service: 'edge-test', level: 'silent' }) });
  await registerEdgeRoutes(sut, {
    adminToken: 'test-admin-token-0123456789',
    version: 'test',
    backends: fakeBackends({ secureEntry, developerAccess }),
  });
  await registerTicketPage(sut);
  await sut.ready();
  return sut;
}

const body = {
  device_id: 'device-1',
  device_type: 'native',
  device_os: 'ios',
  third_party_account_id: 'user-42',
};

const readOrder = (
  app: FastifyInstance,
  payload: unknown,
  url = `/partners/v1/orders?order_token=tok-1&apikey=${API_KEY}`,
) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /partners/v1/orders (secure-entry order read)', () => {
  it('answers the order in the documented shape and passes the device and account', async () => {
    const seen: OrderReadRequest[] = [];
    const app = await edge({
      readOrder: async (request) => {
        seen.push(request);
        return order;
      },
    });
    const response = await readOrder(app, body);
    expect(response.statusCode).toBe(200);
    // Entry tokens and the buyer's e-mail: never kept by a cache; the app's quota is shown.
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['rate-limit-available']).toBe('4');
    expect(seen).toEqual([
      {
        orderToken: 'tok-1',
        appId: 'app-1',
        deviceId: 'device-1',
        deviceType: 'native',
        deviceOs: 'ios',
        thirdPartyAccountId: 'user-42',
        sandbox: false,
      },
    ]);
    const answer = response.json();
    expect(answer).toMatchObject({
      customer_email: 'fan@example.com',
      delivery: {
        carrier: 'Marquee',
        service_level: 'ETICKET',
        description: { short: 'Mobile ticket' },
      },
      voided: false,
      additional_info: {},
      device_id: 'device-1',
      third_party_account_id: 'user-42',
      nfc_capable_device: false,
    });
    expect(answer.tickets[0]).toMatchObject({
      barcode_id: '4012345678901234',
      display_id: 'XXXXXXXXXXXX1234',
      event_id: 'EvSecure0000001',
      is_ga: false,
      seat_name: '7',
      seat_id: 'PT-1',
      order_number: 'ord-1',
      charges: [
        { type: 'TICKET', sub_type: 'FACE_VALUE', amount: { amount: '50.00', currency: 'USD' } },
        { type: 'FEE', sub_type: 'SERVICE', amount: { amount: '1.51', currency: 'USD' } },
      ],
      secure_entry_data: {
        token: 'eyJ2IjoxfQ==',
        render_type: 'rotating_symbology',
        segment_type: 'ROTATING_SYMBOLOGY',
      },
    });
    expect(answer.tickets[0].secure_entry_data.error).toBeUndefined();
  });

  it('reads sandbox orders through the pre-production variant and shows delayed delivery', async () => {
    const seen: OrderReadRequest[] = [];
    const delayed: EntryOrder = {
      ...order,
      tokenAvailableAt: '2026-05-30T19:00:00.000Z',
      tickets: order.tickets.map((t) => ({
        ...t,
        token: '',
        errorCode: 425,
        errorMessage: 'token.delayed: available from 2026-05-30T19:00:00.000Z',
      })),
    };
    const app = await edge({
      readOrder: async (request) => {
        seen.push(request);
        return delayed;
      },
    });
    const response = await readOrder(
      app,
      body,
      `/partners-preprod/v1/orders?order_token=t&apikey=${API_KEY}`,
    );
    expect(response.statusCode).toBe(200);
    expect(seen[0]?.sandbox).toBe(true);
    expect(response.json().additional_info).toEqual({
      delivery_delay_date: '2026-05-30T19:00:00.000Z',
    });
    expect(response.json().tickets[0].secure_entry_data.error).toEqual({
      code: 425,
      message: 'token.delayed: available from 2026-05-30T19:00:00.000Z',
    });
  });

  it('refuses a missing or unknown key with 10001 before reading the body', async () => {
    const app = await edge({});
    for (const url of [
      '/partners/v1/orders?order_token=t',
      '/partners/v1/orders?order_token=t&apikey=nope',
    ]) {
      const response = await readOrder(app, body, url);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toMatchObject({ code: '10001', http_code: 401 });
    }
  });

  it('validates the body exactly: four required strings, lengths, allowed values', async () => {
    const app = await edge({ readOrder: async () => order });
    const bad: unknown[] = [
      {},
      { ...body, device_id: undefined },
      { ...body, device_id: 'x'.repeat(51) },
      { ...body, device_type: 'NATIVE' },
      { ...body, device_type: 'tv' },
      { ...body, device_os: 'windows' },
      { ...body, third_party_account_id: 'x'.repeat(101) },
      { ...body, third_party_account_id: 42 },
      { ...body, extra: true },
      [],
      'null',
      '{"device_id":',
    ];
    for (const payload of bad) {
      const response = await readOrder(app, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toMatchObject({
        code: '10002',
        http_code: 400,
        severity: 'WARN',
      });
    }
    const noToken = await readOrder(app, body, `/partners/v1/orders?apikey=${API_KEY}`);
    expect(noToken.statusCode).toBe(400);
    const text = await app.inject({
      method: 'POST',
      url: `/partners/v1/orders?order_token=t&apikey=${API_KEY}`,
      headers: { 'content-type': 'application/xml' },
      payload: '<order/>',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('10002');
  });

  it('maps the back end refusals to their codes', async () => {
    const cases: Array<[AppError, number, string]> = [
      [
        new AppError('not_found', 'No order', { details: { reason: 'order_not_found' } }),
        404,
        '90010',
      ],
      [
        new AppError('permission_denied', 'account', { details: { reason: 'account_mismatch' } }),
        403,
        '90011',
      ],
      [
        new AppError('permission_denied', 'device', { details: { reason: 'device_not_bound' } }),
        403,
        '90012',
      ],
      [new AppError('unavailable', 'down'), 503, 'unavailable'],
    ];
    for (const [error, status, code] of cases) {
      const app = await edge({
        readOrder: async () => {
          throw error;
        },
      });
      const response = await readOrder(app, body);
      expect(response.statusCode).toBe(status);
      expect(response.json().error.code).toBe(code);
      await app.close();
      sut = undefined;
    }
  });
});

const renderBody = {
  deviceId: 'device-1',
  deviceType: 'NATIVE',
  deviceOs: 'IOS',
  userAgent: 'PartnerApp/1.0',
  tickets: [
    {
      eventId: 'EvSecure0000001',
      section: '101',
      row: 'C',
      seat: '7',
      barcode: '4012345678901234',
    },
  ],
};

const render = (
  app: FastifyInstance,
  payload: unknown,
  headers: Record<string, string> = { 'x-user-id': 'user-42' },
  prefix = '/marketplace/v1',
) =>
  app.inject({
    method: 'POST',
    url: `${prefix}/securerender?apikey=${API_KEY}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /marketplace/v1/securerender', () => {
  it('answers new tokens with 200, and 400 with per-ticket errors when a ticket fails', async () => {
    const seen: RenderRequest[] = [];
    const app = await edge({
      secureRender: async (request) => {
        seen.push(request);
        return request.tickets.map((ticket) =>
          ticket.row
            ? {
                ticket,
                token: 'bmV3',
                renderType: 'rotating_symbology',
                pkPassId: 'pass-1',
                errorCode: 0,
                error: '',
              }
            : {
                ticket,
                token: '',
                renderType: '',
                pkPassId: '',
                errorCode: 400,
                error: 'missing.row.attribute',
              },
        );
      },
    });
    const ok = await render(app, renderBody);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.headers['rate-limit']).toBe('5');
    expect(seen[0]).toMatchObject({
      userId: 'user-42',
      deviceType: 'native',
      deviceOs: 'ios',
      sandbox: false,
      appId: 'app-1',
    });
    expect(ok.json()).toEqual({
      deviceId: 'device-1',
      deviceType: 'NATIVE',
      deviceOs: 'IOS',
      nfcCapableDevice: false,
      tickets: [
        {
          ...renderBody.tickets[0],
          token: 'bmV3',
          renderType: 'rotating_symbology',
          passData: { ios: { pkPassId: 'pass-1' } },
        },
      ],
    });
    const { row: _row, ...withoutRow } = renderBody.tickets[0]!;
    const failed = await render(
      app,
      { ...renderBody, tickets: [renderBody.tickets[0], withoutRow] },
      undefined,
      '/marketplace-staging/v1',
    );
    expect(failed.statusCode).toBe(400);
    expect(seen[1]?.sandbox).toBe(true);
    expect(failed.json().tickets[1]).toEqual({
      ...withoutRow,
      row: '',
      error: { code: 400, error: 'missing.row.attribute' },
    });
    expect(failed.json().tickets[0].token).toBe('bmV3');
  });

  it('needs x-user-id and valid device fields; never a 500 for bad input', async () => {
    const app = await edge({ secureRender: async () => [] });
    const noUser = await render(app, renderBody, {});
    expect(noUser.statusCode).toBe(400);
    expect(noUser.json().error.code).toBe('10002');
    for (const payload of [
      { ...renderBody, deviceType: 'TV' },
      { ...renderBody, deviceOs: 'BeOS' },
      { ...renderBody, tickets: [] },
      { ...renderBody, tickets: [{ barcode: 1 }] },
      { ...renderBody, tickets: 'x' },
      { ...renderBody, deviceId: '' },
    ]) {
      const response = await render(app, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code).toBe('10002');
    }
  });
});

describe('partner distribution access', () => {
  it('refuses the order read and secure render of an app without it: 403 10003, no call', async () => {
    const calls: string[] = [];
    const app = await edge({
      readOrder: async () => {
        calls.push('readOrder');
        return order;
      },
      secureRender: async () => {
        calls.push('secureRender');
        return [];
      },
    });
    const read = await readOrder(
      app,
      body,
      `/partners/v1/orders?order_token=tok-1&apikey=${PLAIN_KEY}`,
    );
    expect(read.statusCode).toBe(403);
    expect(read.json()).toMatchObject({ error: { code: '10003', http_code: 403 } });
    const render = await app.inject({
      method: 'POST',
      url: `/marketplace/v1/securerender?apikey=${PLAIN_KEY}`,
      headers: { 'content-type': 'application/json', 'x-user-id': 'user-42' },
      payload: JSON.stringify({ ...body, tickets: [{ barcode: '4012345678901234' }] }),
    });
    expect(render.statusCode).toBe(403);
    expect(calls).toEqual([]);
  });
});

describe('bad input never answers 500', () => {
  it('survives random bodies on the order read and secure render', async () => {
    const app = await edge({ readOrder: async () => order, secureRender: async () => [] });
    const values: unknown[] = [
      null,
      true,
      0,
      -1,
      1e308,
      '',
      'x'.repeat(10_000),
      [],
      {},
      [[]],
      { a: { b: {} } },
      '\u0000',
      '💥',
    ];
    let seed = 7;
    const pick = <T>(items: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return items[seed % items.length]!;
    };
    const keys = [
      'device_id',
      'device_type',
      'device_os',
      'third_party_account_id',
      'deviceId',
      'deviceType',
      'deviceOs',
      'userAgent',
      'tickets',
      'row',
    ];
    for (let i = 0; i < 200; i += 1) {
      const payload: Record<string, unknown> = {};
      for (let k = 0; k < 1 + (i % 5); k += 1) payload[pick(keys)] = pick(values);
      const a = await readOrder(app, payload);
      const b = await render(app, payload);
      expect(a.statusCode, JSON.stringify(payload)).toBeLessThan(500);
      expect(b.statusCode, JSON.stringify(payload)).toBeLessThan(500);
      expect(a.json().error.code).toBeDefined();
    }
  });
});

describe('ticket page', () => {
  it('serves the page and its script without caching, with a strict content security policy', async () => {
    const app = await edge({});
    const page = await app.inject({ method: 'GET', url: '/tickets/view' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('/tickets/view.js');
    const script = await app.inject({ method: 'GET', url: '/tickets/view.js' });
    expect(script.body).toContain("from '/tickets/render-kit.js'");
    expect(script.body).toContain('location.hash');
  });
});
