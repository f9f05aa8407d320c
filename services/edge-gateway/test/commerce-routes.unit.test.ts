import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import { AppError } from '@marquee/platform/errors';
import {
  CartStatus,
  OrderStatus,
  ProductChangeOp,
  type CreateShoppingCartRequest,
  type GetEventOffersRequest,
  type GetEventOffersResponse,
  type ShoppingCart,
} from '@marquee/proto/cart/v1';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeveloperAccess } from '../src/app/backends.js';
import type { CommerceBackend, FanTokens } from '../src/app/commerce.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
let sut: FastifyInstance | undefined;
afterEach(async () => {
  await sut?.close();
  sut = undefined;
});

const EVENT = 'EVT000000000001';
const APPROVED_KEY = 'key-approved';
const PLAIN_KEY = 'key-plain';
const FAN_TOKEN = 'fan-token-of-approved-app';
const OTHER_APP_TOKEN = 'fan-token-of-other-app';

const usd = (amountMinor: number) => ({ amountMinor, currency: 'USD' });

const offersAnswer: GetEventOffersResponse = {
  eventId: EVENT,
  currency: 'USD',
  limitMax: 8,
  eventName: 'Spring Concert',
  offers: [
    {
      id: 'QURVTFQAUEwx',
      name: 'Adult',
      description: 'Adult, Stalls',
      rank: 1,
      offerType: 'STANDARD',
      currency: 'USD',
      start: new Date('2030-01-01T00:00:00.000Z'),
      end: new Date('2030-06-01T00:00:00.000Z'),
      prices: [
        {
          priceZoneId: 'PL1',
          value: usd(5000),
          total: usd(5775),
          fees: [{ value: usd(750), label: 'Service fee', type: 'service' }],
          taxes: [{ value: usd(25), label: 'Tax', type: 'tax' }],
        },
      ],
      limit: {
        min: 1,
        max: 8,
        sellableQty: 40,
        multiples: 1,
        maxAccessibleSeats: 0,
        maxCompanionSeatsPerAccessibleSeat: 0,
      },
      areaIds: ['A1'],
      priceZoneIds: ['PL1'],
      passwordIds: [],
      priceTypeId: 'ADULT',
      priceLevelId: 'PL1',
      protected: false,
    },
  ],
  priceZones: [
    { id: 'PL1', name: 'Stalls', currency: 'USD', offerIds: ['QURVTFQAUEwx'], areaIds: ['A1'] },
  ],
  areas: [
    {
      id: 'A1',
      rank: 1,
      name: 'Section 101',
      description: '',
      areaType: 'SECTION',
      offerIds: ['QURVTFQAUEwx'],
      priceZoneIds: ['PL1'],
    },
  ],
  passwords: [
    {
      id: 'pw-VIP',
      name: 'Presale',
      text: 'Fan club presale',
      exclusive: true,
      start: undefined,
      end: undefined,
      offerIds: [],
      unlocked: false,
    },
  ],
  metadata: {
    sourceName: 'partner',
    sourceId: 'p-1',
    mappedId: 'EV1',
    mappedType: 'event',
    accessibleSeatingEnabled: false,
    rollupFacilityFee: false,
    rollupServiceCharge: false,
  },
};

const shoppingCart = (status: CartStatus = CartStatus.CART_STATUS_HELD): ShoppingCart => ({
  fanId: 'fan-1',
  productId: EVENT,
  eventName: 'Spring Concert',
  pollingCallbackUrl: '',
  offers: [
    {
      id: 'QURVTFQAUEwx',
      name: 'Adult',
      description: 'Adult, Stalls',
      priceTypeId: 'ADULT',
      priceLevelId: 'PL1',
    },
  ],
  cart: {
    id: 'cart-1',
    eventId: EVENT,
    items: [],
    totals: {
      merchandise: usd(10000),
      fee: usd(1500),
      tax: usd(50),
      delivery: usd(0),
      upsell: usd(0),
      grand: usd(11550),
      unpaid: usd(11550),
    },
    holdTimeSeconds: 600,
    expiresAt: new Date('2030-01-01T00:10:00.000Z'),
    language: 'en-us',
    status,
    ticketItems: [
      {
        id: 1,
        areaId: 'A1',
        areaDescription: 'Section 101',
        section: '101',
        row: 'C',
        startSeat: '5',
        endSeat: '6',
        generalAdmission: false,
        quantity: 2,
        tickets: [
          {
            id: 'ADULT',
            description: 'Adult',
            quantity: 2,
            inventoryType: 'INVENTORY_TYPE_PRIMARY' as never,
            priceLevelId: 'PL1',
            charges: [
              { type: 'face_value', price: usd(5000), quantity: 2, tax: undefined, feeType: '' },
              {
                type: 'service',
                price: usd(750),
                quantity: 2,
                tax: undefined,
                feeType: 'per ticket',
              },
              { type: 'tax', price: usd(25), quantity: 2, tax: undefined, feeType: 'per ticket' },
            ],
          },
        ],
        totals: undefined,
        seats: ['5', '6'],
        inventoryType: 'INVENTORY_TYPE_PRIMARY' as never,
      },
    ],
    delivery: undefined,
    processingFee: undefined,
    payments: [],
    agreements: [],
    currency: 'USD',
    sandbox: false,
    order: undefined,
    failureCode: '',
    failureMessage: '',
    secureEntryEnabled: false,
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
  },
});

interface Recorded {
  offers: GetEventOffersRequest[];
  creates: CreateShoppingCartRequest[];
  calls: string[];
  rateChecks: number;
}

async function edge(
  commerce: Partial<CommerceBackend> = {},
  options: { over?: boolean; logLines?: string[]; fanTokensDown?: boolean } = {},
) {
  const recorded: Recorded = { offers: [], creates: [], calls: [], rateChecks: 0 };
  const developerAccess: Partial<DeveloperAccess> = {
    async validateApiKey(key) {
      if (key === APPROVED_KEY)
        return {
          valid: true,
          appId: 'app-approved',
          access: { commerceShopping: true, partnerDistribution: false },
          heldTicketsPerEvent: 7,
        };
      if (key === PLAIN_KEY)
        return {
          valid: true,
          appId: 'app-plain',
          access: { commerceShopping: false, partnerDistribution: false },
        };
      return { valid: false, appId: '' };
    },
    async checkRateLimit() {
      recorded.rateChecks++;
      return {
        limit: 5000,
        available: 4999,
        resetEpochMs: 1_900_000_000_000,
        over: !!options.over,
      };
    },
  };
  const fanTokens: FanTokens = {
    async introspect(token) {
      if (options.fanTokensDown) throw new AppError('unavailable', 'auth-gateway is down');
      if (token === FAN_TOKEN) return { active: true, appId: 'app-approved', fanId: 'fan-1' };
      if (token === OTHER_APP_TOKEN) return { active: true, appId: 'app-other', fanId: 'fan-2' };
      return { active: false, appId: '', fanId: '' };
    },
  };
  const record = <K extends keyof CommerceBackend>(name: K): CommerceBackend[K] =>
    (async (request: never) => {
      recorded.calls.push(name);
      const impl = commerce[name] as ((r: never) => Promise<unknown>) | undefined;
      if (!impl) throw new Error(`unexpected call commerce.${name}`);
      return impl(request);
    }) as CommerceBackend[K];
  const backend: CommerceBackend = {
    getEventOffers: async (request) => {
      recorded.offers.push(request);
      return record('getEventOffers')(request);
    },
    createShoppingCart: async (request) => {
      recorded.creates.push(request);
      return record('createShoppingCart')(request);
    },
    getShoppingCart: record('getShoppingCart'),
    deleteShoppingCart: record('deleteShoppingCart'),
    updateShoppingCartProducts: record('updateShoppingCartProducts'),
    selectShoppingCartDelivery: record('selectShoppingCartDelivery'),
    addShoppingCartPayment: record('addShoppingCartPayment'),
    purchaseShoppingCart: record('purchaseShoppingCart'),
    getCartDeliveries: record('getCartDeliveries'),
  };
  const lines = options.logLines;
  sut = createHttpServer({
    logger: lines
      ? createLogger({
          service: 'edge-test',
          level: 'debug',
          destination: { write: (line: string) => void lines.push(line) },
        })
      : logger,
  });
  await registerEdgeRoutes(sut, {
    adminToken: 'admin-token-0123456789',
    version: 'test',
    backends: fakeBackends({ developerAccess, fanTokens, commerce: backend }),
  });
  await sut.ready();
  return { app: sut, recorded };
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (
  app: FastifyInstance,
  method: Method,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
) =>
  app.inject({
    method,
    url: `/commerce/v2${url}`,
    headers: {
      ...(options.body !== undefined || options.rawBody !== undefined
        ? { 'content-type': 'application/json' }
        : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    ...(options.rawBody !== undefined ? { payload: options.rawBody } : {}),
  });

const shop = (url: string) =>
  `${url}${url.includes('?') ? '&' : '?'}api-key=${APPROVED_KEY}&access_token=${FAN_TOKEN}`;

const expectCommerceError = (
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  code?: string,
) => {
  expect(response.statusCode).toBe(status);
  const body = response.json() as {
    errors: Array<{ code: string; detail: string; status: string }>;
  };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.status).toBe(String(status));
  expect(typeof body.errors[0]!.detail).toBe('string');
  if (code) expect(body.errors[0]!.code).toBe(code);
};

const createBody = {
  pollingCallbackUrl: 'https://app.example/poll',
  cartHoldTimeSec: 300,
  products: [
    {
      product: EVENT,
      event: EVENT,
      offers: [{ offer: 'QURVTFQAUEwx', qty: 2 }],
      filters: { areas: ['A1'], minPrice: '10', maxPrice: '99.50' },
    },
  ],
};

const paymentBody = {
  payments: [
    {
      type: 'CC',
      amount: '115.50',
      currency: 'USD',
      token: 'nonce-ok',
      cin: '123',
      expireMonth: 12,
      expireYear: 2031,
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'us' },
    },
  ],
};

describe('commerce offers', () => {
  it("answers 429 with the throttle's Retry-After when cart refuses more passwords", async () => {
    const { app } = await edge({
      getEventOffers: async () => {
        throw new AppError('resource_exhausted', 'too many wrong passwords for this event', {
          details: { reason: 'password_attempts_exceeded', retryAfterMs: 41_200 },
        });
      },
    });
    const response = await call(
      app,
      'GET',
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&displayId=guess`,
    );
    expectCommerceError(response, 429, 'password_attempts_exceeded');
    expect(response.headers['retry-after']).toBe('42');
  });

  it('answers the offers result with Rate-Limit headers, passing key, fan and passwords', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    const response = await call(
      app,
      'GET',
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&displayId=letmein`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'rate-limit': '5000',
      'rate-limit-available': '4999',
      'rate-limit-reset': '1900000000000',
      'rate-limit-over': '0',
    });
    expect(recorded.offers).toEqual([
      { appId: 'app-plain', eventId: EVENT, fanId: '', passwords: ['letmein'] },
    ]);
    const body = response.json();
    expect(body.limits).toEqual({ max: 8 });
    expect(body.offers[0]).toMatchObject({
      id: 'QURVTFQAUEwx',
      type: 'offers',
      attributes: {
        name: 'Adult',
        rank: 1,
        offerType: 'STANDARD',
        currency: 'USD',
        start: '2030-01-01T00:00:00.000Z',
        prices: [
          {
            priceZone: 'PL1',
            value: '50.00',
            total: '57.75',
            fees: [{ value: '7.50', label: 'Service fee', type: 'service' }],
            taxes: [{ value: '0.25', label: 'Tax', type: 'tax' }],
          },
        ],
        limit: { min: 1, max: 8, sellableQty: '40', multiples: 1 },
      },
      relationships: {
        areas: { data: [{ id: 'A1', type: 'areas' }] },
        priceZones: { data: [{ id: 'PL1', type: 'price-zones' }] },
        products: { data: [{ id: EVENT, type: 'products' }] },
      },
    });
    expect(body.prices.data[0]).toMatchObject({
      type: 'offered-prices',
      attributes: { currency: 'USD', value: '50.00' },
      relationships: { areas: { data: [{ id: 'A1', type: 'areas' }] } },
    });
    expect(body._embedded.priceZones.data[0]).toMatchObject({
      id: 'PL1',
      type: 'price-zones',
      attributes: { name: 'Stalls', currency: 'USD' },
    });
    expect(body._embedded.areas.data[0].attributes).toEqual({
      rank: 1,
      name: 'Section 101',
      description: '',
      areaType: 'SECTION',
    });
    expect(body._embedded.passwords.data[0]).toMatchObject({
      id: 'pw-VIP',
      type: 'passwords',
      attributes: { name: 'Presale', exclusive: true },
      metadata: { offerIds: [] },
    });
    expect(body.metadata).toEqual({
      eventMapping: { source: { name: 'partner', id: 'p-1' }, id: 'EV1', type: 'event' },
      accessibleSeatingEnabled: false,
      rollupFacilityFee: false,
      rollupServiceCharge: false,
    });
    expect(JSON.stringify(body)).not.toContain('letmein');
  });

  it('takes the key from apikey or X-SSL-CERT-UID, the fan from the header, a password from a POST body', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    expect(
      (await call(app, 'GET', `/events/${EVENT}/offers?apikey=${APPROVED_KEY}`)).statusCode,
    ).toBe(200);
    const viaHeader = await call(app, 'GET', `/events/${EVENT}/offers.json`, {
      headers: { 'x-ssl-cert-uid': APPROVED_KEY, 'x-platform-access-token': FAN_TOKEN },
    });
    expect(viaHeader.statusCode).toBe(200);
    const viaBody = await call(app, 'POST', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`, {
      body: { displayId: 'secret' },
    });
    expect(viaBody.statusCode).toBe(200);
    expect(recorded.offers.map((o) => [o.appId, o.fanId, o.passwords])).toEqual([
      ['app-approved', '', []],
      ['app-approved', 'fan-1', []],
      ['app-plain', '', ['secret']],
    ]);
  });

  it('refuses a missing or unknown key with 401 and the commerce body', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    for (const url of [
      `/events/${EVENT}/offers.json`,
      `/events/${EVENT}/offers.json?api-key=nope`,
    ]) {
      expectCommerceError(await call(app, 'GET', url), 401, 'unauthorized');
    }
    expect(recorded.calls).toEqual([]);
  });

  it('refuses an invalid fan token, or one of another app, with 401', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    for (const token of ['expired', OTHER_APP_TOKEN]) {
      const response = await call(
        app,
        'GET',
        `/events/${EVENT}/offers.json?api-key=${APPROVED_KEY}&access_token=${token}`,
      );
      expectCommerceError(response, 401, 'invalid_token');
      expect(response.headers['www-authenticate']).toMatch(/invalid_token/);
    }
    expect(recorded.calls).toEqual([]);
  });

  it('answers 406 for a format other than json, 400 for bad ids and parameters, with Rate-Limit headers', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    const xml = await call(app, 'GET', `/events/${EVENT}/offers.xml?api-key=${PLAIN_KEY}`);
    expectCommerceError(xml, 406, 'unsupported_format');
    expect(xml.headers['rate-limit']).toBe('5000');
    for (const url of [
      `/events/bad%20id/offers.json?api-key=${PLAIN_KEY}`,
      `/events/${'x'.repeat(65)}/offers.json?api-key=${PLAIN_KEY}`,
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&unknown=1`,
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&displayId=`,
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&displayId=${'p'.repeat(101)}`,
    ]) {
      const response = await call(app, 'GET', url);
      expectCommerceError(response, 400, 'invalid_request');
      expect(response.headers['rate-limit-available']).toBe('4999');
    }
    expect(recorded.calls).toEqual([]);
  });

  it('answers 429 over quota, and maps backend errors (404, 503 with Retry-After, 504)', async () => {
    const over = await edge({}, { over: true });
    const limited = await call(
      over.app,
      'GET',
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`,
    );
    expectCommerceError(limited, 429);
    expect(limited.headers['rate-limit-over']).toBe('1');
    await sut?.close();
    for (const [kind, status] of [
      ['not_found', 404],
      ['unavailable', 503],
      ['deadline_exceeded', 504],
    ] as const) {
      const { app } = await edge({
        getEventOffers: async () => {
          throw new AppError(kind, `backend said ${kind}`);
        },
      });
      const response = await call(app, 'GET', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`);
      expectCommerceError(response, status);
      if (status === 503) expect(response.headers['retry-after']).toBe('1');
      await sut?.close();
    }
  });

  it('answers a bug in a backend as a 500 with the commerce body and no stack', async () => {
    const { app } = await edge({
      getEventOffers: async () => {
        throw new TypeError('cannot read properties of undefined');
      },
    });
    const response = await call(app, 'GET', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`);
    expectCommerceError(response, 500, 'internal');
    expect(response.body).not.toContain('cannot read');
  });
});

describe('commerce shopping: approval and fan', () => {
  const routes: Array<[Method, string, unknown?]> = [
    ['POST', '/shopping/carts', createBody],
    ['GET', '/shopping/carts/cart-1.json'],
    ['GET', '/shopping/carts/cart-1'],
    ['DELETE', '/shopping/carts/cart-1'],
    ['PATCH', '/shopping/carts/cart-1/products', { products: [{ op: 'add', product: EVENT }] }],
    ['PATCH', '/shopping/carts/cart-1/deliveries', { deliveries: [{ id: 'D1' }] }],
    ['PATCH', '/shopping/carts/cart-1/payments', paymentBody],
    ['POST', '/shopping/carts/cart-1/purchase'],
  ];

  it('answers 403 on every shopping route for an app without approval, whatever the body', async () => {
    const { app, recorded } = await edge();
    for (const [method, url, body] of routes) {
      const response = await call(
        app,
        method,
        `${url}?api-key=${PLAIN_KEY}&access_token=${FAN_TOKEN}`,
        {
          ...(body !== undefined ? { body } : {}),
        },
      );
      expectCommerceError(response, 403, 'access_not_approved');
      expect(response.headers['rate-limit']).toBe('5000');
    }
    expect(recorded.calls).toEqual([]);
  });

  it('answers 401 on every shopping route without a valid fan token of the app', async () => {
    const { app, recorded } = await edge();
    for (const [method, url, body] of routes) {
      for (const token of ['', 'revoked', OTHER_APP_TOKEN]) {
        const query = `?api-key=${APPROVED_KEY}${token ? `&access_token=${token}` : ''}`;
        const response = await call(app, method, `${url}${query}`, {
          ...(body !== undefined ? { body } : {}),
        });
        expectCommerceError(response, 401, 'invalid_token');
      }
    }
    expect(recorded.calls).toEqual([]);
  });

  it('answers 401 on every shopping route without a key (the commerce 401 body)', async () => {
    const { app } = await edge();
    for (const [method, url, body] of routes) {
      const response = await call(app, method, `${url}?access_token=${FAN_TOKEN}`, {
        ...(body !== undefined ? { body } : {}),
      });
      expectCommerceError(response, 401, 'unauthorized');
    }
  });
});

describe('commerce shopping: the cart', () => {
  it("creates a cart (201, Location) passing app, fan, the app's held-ticket quota, products, filters and the idempotency key", async () => {
    const { app, recorded } = await edge({
      createShoppingCart: async () => ({ cart: shoppingCart(), pollAfterSeconds: 0 }),
    });
    const response = await call(app, 'POST', shop('/shopping/carts'), {
      body: createBody,
      headers: { 'idempotency-key': 'idem-1' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe('/commerce/v2/shopping/carts/cart-1');
    expect(recorded.creates).toEqual([
      {
        appId: 'app-approved',
        fanId: 'fan-1',
        heldTicketsPerEvent: 7,
        holdTimeSeconds: 300,
        pollingCallbackUrl: 'https://app.example/poll',
        idempotencyKey: 'idem-1',
        products: [
          {
            product: EVENT,
            eventId: EVENT,
            qty: 0,
            offers: [{ offer: 'QURVTFQAUEwx', qty: 2, password: '' }],
            areaIds: ['A1'],
            minPriceMinor: 0,
            maxPriceMinor: 0,
            minPrice: '10',
            maxPrice: '99.50',
          },
        ],
      },
    ]);
    const body = response.json();
    expect(body.status).toBe('201');
    expect(body.cart).toMatchObject({
      id: 'cart-1',
      type: 'carts',
      attributes: {
        state: 'held',
        polling: false,
        holdTimeSec: 600,
        totals: {
          currency: 'USD',
          price: '100.00',
          fees: '15.00',
          taxes: '0.50',
          deliveries: '0.00',
          upsells: '0.00',
          total: '115.50',
        },
        reservations: [
          {
            expiration: '2030-01-01T00:10:00.000Z',
            reservation: 'cart-1',
            product: EVENT,
            itemGroups: [
              {
                type: 'ticket',
                metadata: { type: 'item-group', lineItem: '1' },
                id: '1.1',
                quantity: 2,
                currency: 'USD',
                perItemPrice: '50.00',
                fees: [{ label: 'service', amount: '7.50', type: 'service' }],
                taxes: [{ label: 'tax', amount: '0.25', type: 'tax' }],
                offer: 'QURVTFQAUEwx',
              },
            ],
            itemDetails: [
              {
                type: 'seats',
                metadata: { type: 'item-detail', itemGroup: '1.1' },
                section: '101',
                row: 'C',
                startSeat: '5',
                endSeat: '6',
                ga: false,
              },
            ],
          },
        ],
      },
      relationships: {
        events: { data: [{ id: EVENT, type: 'events' }] },
        products: { data: [{ id: EVENT, type: 'products' }] },
        offers: { data: [{ id: 'QURVTFQAUEwx', type: 'offers' }] },
      },
    });
    expect(body._embedded.events).toEqual([
      {
        id: EVENT,
        type: 'events',
        attributes: { name: 'Spring Concert' },
        relationships: { products: { data: [{ id: EVENT, type: 'products' }] } },
      },
    ]);
    expect(body._embedded.offers).toEqual([
      {
        id: 'QURVTFQAUEwx',
        type: 'offers',
        attributes: { name: 'Adult', description: 'Adult, Stalls' },
      },
    ]);
  });

  it('answers 202 with Retry-After for a pending reservation', async () => {
    const { app } = await edge({
      createShoppingCart: async () => ({
        cart: shoppingCart(CartStatus.CART_STATUS_PENDING),
        pollAfterSeconds: 2,
      }),
    });
    const response = await call(app, 'POST', shop('/shopping/carts'), { body: createBody });
    expect(response.statusCode).toBe(202);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.json()).toMatchObject({
      status: '202',
      cart: { attributes: { state: 'pending', polling: true } },
    });
  });

  it('maps cart refusals: no tickets 409, unknown offer 400, protected offer 403, unknown event 404', async () => {
    for (const [kind, status, code] of [
      ['resource_exhausted', 409, 'tickets_unavailable'],
      ['invalid_argument', 400, 'invalid_request'],
      ['permission_denied', 403, 'forbidden'],
      ['not_found', 404, 'not_found'],
      ['failed_precondition', 409, 'invalid_cart_state'],
    ] as const) {
      const { app } = await edge({
        createShoppingCart: async () => {
          throw new AppError(kind, `refused: ${kind}`);
        },
      });
      const response = await call(app, 'POST', shop('/shopping/carts'), { body: createBody });
      expectCommerceError(response, status, code);
      await sut?.close();
    }
    const { app } = await edge({
      createShoppingCart: async () => {
        throw new AppError('resource_exhausted', 'no contiguous seats', {
          details: { reason: '20052' },
        });
      },
    });
    expectCommerceError(
      await call(app, 'POST', shop('/shopping/carts'), { body: createBody }),
      409,
      '20052',
    );
  });

  it('reads a cart (.json and bare), refuses other formats with 406, releases with 204', async () => {
    const { app, recorded } = await edge({
      getShoppingCart: async (request) => {
        if (request.cartId !== 'cart-1' || request.fanId !== 'fan-1')
          throw new AppError('not_found', 'cart not found');
        return { cart: shoppingCart(), pollAfterSeconds: 0 };
      },
      deleteShoppingCart: async () => undefined,
    });
    for (const url of ['/shopping/carts/cart-1.json', '/shopping/carts/cart-1']) {
      const response = await call(app, 'GET', shop(url));
      expect(response.statusCode, url).toBe(200);
      expect(response.json()).toMatchObject({ status: '200', cart: { id: 'cart-1' } });
    }
    expectCommerceError(await call(app, 'GET', shop('/shopping/carts/cart-1.xml')), 406);
    expectCommerceError(
      await call(app, 'GET', shop('/shopping/carts/cart-9.json')),
      404,
      'not_found',
    );
    const released = await call(app, 'DELETE', shop('/shopping/carts/cart-1'));
    expect(released.statusCode).toBe(204);
    expect(released.body).toBe('');
    expect(recorded.calls.filter((c) => c === 'deleteShoppingCart')).toHaveLength(1);
  });

  it('changes products with op add and remove', async () => {
    const received: unknown[] = [];
    const { app } = await edge({
      updateShoppingCartProducts: async (request) => {
        received.push(request);
        return { cart: shoppingCart() };
      },
    });
    const response = await call(app, 'PATCH', shop('/shopping/carts/cart-1/products'), {
      body: {
        products: [
          { op: 'remove', product: EVENT, offers: [{ offer: 'QURVTFQAUEwx', qty: 1 }] },
          { op: 'add', product: EVENT, qty: 2 },
        ],
      },
      headers: { 'idempotency-key': 'k2' },
    });
    expect(response.statusCode).toBe(200);
    expect(received).toEqual([
      expect.objectContaining({
        cartId: 'cart-1',
        fanId: 'fan-1',
        idempotencyKey: 'k2',
        changes: [
          expect.objectContaining({
            op: ProductChangeOp.PRODUCT_CHANGE_OP_REMOVE,
            product: expect.objectContaining({
              offers: [{ offer: 'QURVTFQAUEwx', qty: 1, password: '' }],
            }),
          }),
          expect.objectContaining({
            op: ProductChangeOp.PRODUCT_CHANGE_OP_ADD,
            product: expect.objectContaining({ qty: 2, offers: [] }),
          }),
        ],
      }),
    ]);
  });

  it('selects a delivery and pays: the amount in minor units, the nonce passed, never echoed', async () => {
    const received: unknown[] = [];
    const paid = shoppingCart(CartStatus.CART_STATUS_PAID);
    paid.cart!.payments = [
      {
        id: 'pay-1',
        paymentId: 'auth-1',
        type: 'CC',
        amount: usd(11550),
        expireMonth: 12,
        expireYear: 2031,
        issuer: 'VISA',
        maskedNumber: '************4242',
      },
    ];
    paid.cart!.delivery = {
      id: 'D1',
      carrier: 'Marquee',
      serviceLevel: 'ETICKET',
      requiresAddress: false,
      descriptionLong: 'Mobile tickets',
      descriptionShort: 'Mobile',
      eta: '',
      totals: { merchandise: usd(0), fee: usd(0), tax: usd(0), grand: usd(0) },
      rank: 1,
    };
    const { app } = await edge({
      selectShoppingCartDelivery: async (request) => {
        received.push(request);
        return { cart: shoppingCart() };
      },
      addShoppingCartPayment: async (request) => {
        received.push(request);
        return { cart: paid };
      },
    });
    const delivery = await call(app, 'PATCH', shop('/shopping/carts/cart-1/deliveries'), {
      body: { deliveries: [{ id: 'D1' }] },
    });
    expect(delivery.statusCode).toBe(200);
    const payment = await call(app, 'PATCH', shop('/shopping/carts/cart-1/payments'), {
      body: paymentBody,
      headers: { 'idempotency-key': 'pay-key' },
    });
    expect(payment.statusCode).toBe(200);
    expect(received[0]).toEqual({
      appId: 'app-approved',
      fanId: 'fan-1',
      cartId: 'cart-1',
      deliveryId: 'D1',
    });
    expect(received[1]).toMatchObject({
      cartId: 'cart-1',
      idempotencyKey: 'pay-key',
      billing: {
        amount: { amountMinor: 11550, currency: 'USD' },
        cardNonce: 'nonce-ok',
        cin: '123',
        emailAddress: 'ada@example.com',
        address: { countryCode: 'US', city: 'Springfield' },
      },
    });
    const body = payment.json();
    expect(body.cart.attributes).toMatchObject({
      state: 'paid',
      delivery: { id: 'D1', deliveryType: 'DIGITAL', fee: '0.00' },
      payments: [
        {
          id: 'pay-1',
          type: 'CC',
          amount: '115.50',
          currency: 'USD',
          card: { issuer: 'VISA', number: '************4242', expireMonth: 12, expireYear: 2031 },
        },
      ],
    });
    expect(payment.body).not.toContain('nonce-ok');
    expect(payment.body).not.toContain('"123"');
  });

  it('refuses an amount with more decimals than the currency allows (400, no call)', async () => {
    const { app, recorded } = await edge({});
    const body = { payments: [{ ...paymentBody.payments[0]!, amount: '1.005' }] };
    expectCommerceError(
      await call(app, 'PATCH', shop('/shopping/carts/cart-1/payments'), { body }),
      400,
      'invalid_request',
    );
    const yen = { payments: [{ ...paymentBody.payments[0]!, amount: '100.5', currency: 'JPY' }] };
    expectCommerceError(
      await call(app, 'PATCH', shop('/shopping/carts/cart-1/payments'), { body: yen }),
      400,
    );
    expect(recorded.calls).toEqual([]);
  });

  it('purchases: confirmation, orders with the redemption token, no-store; declined 409', async () => {
    const committed = shoppingCart(CartStatus.CART_STATUS_COMMITTED);
    const { app } = await edge({
      purchaseShoppingCart: async (request) => {
        if (request.cartId === 'cart-declined')
          throw new AppError('failed_precondition', 'payment declined', {
            details: { reason: '20122' },
          });
        return {
          cart: committed,
          order: {
            orderId: 'ord-1',
            orderNumber: '10-00001',
            grandTotal: usd(11550),
            redemptionUrl: 'https://marquee.example/orders/ord-1',
            status: OrderStatus.ORDER_STATUS_CONFIRMED,
            confirmedAt: new Date('2030-01-01T00:05:00.000Z'),
            printed: false,
          },
          redemptionToken: 'order-token-secret',
          ticketCount: 2,
        };
      },
    });
    const response = await call(app, 'POST', shop('/shopping/carts/cart-1/purchase'), {
      headers: { 'idempotency-key': 'buy-1' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      confirmation: {
        id: '10-00001',
        type: 'order-confirmations',
        relationships: { orders: { data: [{ id: 'ord-1', type: 'orders' }] } },
      },
      _embedded: {
        orders: {
          data: [
            {
              id: 'ord-1',
              type: 'orders',
              attributes: {
                orderNumber: '10-00001',
                status: 'confirmed',
                cartId: 'cart-1',
                eventId: EVENT,
                currency: 'USD',
                total: '115.50',
                ticketCount: 2,
                confirmedAt: '2030-01-01T00:05:00.000Z',
              },
              redemption: {
                url: 'https://marquee.example/orders/ord-1',
                token: 'order-token-secret',
              },
            },
          ],
        },
      },
    });
    expectCommerceError(
      await call(app, 'POST', shop('/shopping/carts/cart-declined/purchase')),
      409,
      '20122',
    );
  });
});

describe('commerce payment awaiting 3-D Secure', () => {
  it('answers 409 20122 with the payment_action in the error meta', async () => {
    const action = {
      type: 'use_stripe_sdk',
      payment_id: 'pi_3DS',
      client_secret: 'pi_3DS_secret_x',
    };
    const { app } = await edge({
      addShoppingCartPayment: async () => {
        throw new AppError('failed_precondition', 'the card issuer asks for authentication', {
          details: { reason: '20122', payment_action: action },
        });
      },
    });
    const response = await call(app, 'PATCH', shop('/shopping/carts/cart-1/payments'), {
      body: paymentBody,
    });
    expectCommerceError(response, 409, '20122');
    expect(response.json()).toEqual({
      errors: [
        {
          code: '20122',
          detail: 'the card issuer asks for authentication',
          status: '409',
          meta: { payment_action: action },
        },
      ],
    });
  });
});

describe('commerce checkout deliveries', () => {
  it('answers deliveries with options and accepted countries for the cart app (no fan needed)', async () => {
    const { app } = await edge({
      getCartDeliveries: async (request) => {
        if (request.appId !== 'app-plain') throw new AppError('not_found', 'cart not found');
        return {
          deliveries: [
            {
              id: 'D1',
              deliveryType: 'DIGITAL',
              displayRank: 1,
              fee: usd(0),
              tax: usd(0),
              descriptionLong: 'Mobile tickets on your phone',
              descriptionShort: 'Mobile',
              options: [
                {
                  id: 'D1-1',
                  requiresAddress: false,
                  requiresIdentification: false,
                  descriptionLong: 'Delivered to the app',
                  descriptionShort: 'App',
                  acceptedCountries: [],
                  excludedCountries: [],
                },
              ],
              restrictedOfferIds: [],
              selected: false,
            },
            {
              id: 'D2',
              deliveryType: 'MAIL',
              displayRank: 2,
              fee: usd(1000),
              tax: usd(80),
              descriptionLong: 'Sent by post',
              descriptionShort: 'Mail',
              options: [
                {
                  id: 'D2-1',
                  requiresAddress: true,
                  requiresIdentification: false,
                  descriptionLong: 'Standard mail',
                  descriptionShort: 'Mail',
                  acceptedCountries: ['US', 'CA'],
                  excludedCountries: [],
                },
              ],
              restrictedOfferIds: ['QURVTFQAUEwx'],
              selected: true,
            },
          ],
        };
      },
    });
    for (const url of [
      `/checkout/carts/cart-1/deliveries.json?apikey=${PLAIN_KEY}`,
      `/checkout/carts/cart-1/deliveries?api-key=${PLAIN_KEY}`,
    ]) {
      const response = await call(app, 'GET', url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['rate-limit']).toBe('5000');
      const body = response.json();
      expect(body.deliveries[1]).toEqual({
        id: 'D2',
        type: 'delivery',
        attributes: {
          deliveryType: 'MAIL',
          displayRank: '2',
          selected: true,
          totals: { fee: '10.00', tax: '0.80', grand: '10.80', currency: 'USD' },
          description: { long: 'Sent by post', short: 'Mail' },
          restrictions: [
            { type: 'product-offer-restriction', id: 'D2-offers', offers: ['QURVTFQAUEwx'] },
          ],
        },
        relationships: { deliveryOptions: { data: [{ id: 'D2-1', type: 'deliveryOption' }] } },
      });
      expect(body._embedded.deliveryOptions[1]).toEqual({
        id: 'D2-1',
        type: 'deliveryOption',
        attributes: {
          requiresAddress: true,
          requiresIdentification: false,
          description: { long: 'Standard mail', short: 'Mail' },
          acceptedCountries: [
            { id: 'US', type: 'accepted-delivery-country', attributes: { country: 'US' } },
            { id: 'CA', type: 'accepted-delivery-country', attributes: { country: 'CA' } },
          ],
        },
      });
      expect(body._embedded.deliveryOptions[0].attributes.acceptedCountries).toBeUndefined();
    }
    expectCommerceError(
      await call(app, 'GET', `/checkout/carts/cart-1/deliveries.json?apikey=${APPROVED_KEY}`),
      404,
    );
    expectCommerceError(await call(app, 'GET', '/checkout/carts/cart-1/deliveries.json'), 401);
    expectCommerceError(
      await call(app, 'GET', `/checkout/carts/bad!id/deliveries.json?apikey=${PLAIN_KEY}`),
      400,
    );
  });
});

describe('commerce: bad input never answers a 500', () => {
  /** Deterministic pseudo-random values (no flakiness): a linear congruential generator. */
  function* values(seed: number): Generator<unknown> {
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pool: unknown[] = [
      null,
      true,
      0,
      -1,
      1.5,
      1e308,
      '',
      'x'.repeat(5000),
      '\u0000',
      '<script>',
      '../../etc/passwd',
      [],
      [null],
      {},
      { $gt: '' },
      { __proto__: { polluted: true } },
      '19.999',
      '-5',
      'NaN',
    ];
    for (;;) yield pool[Math.floor(next() * pool.length)];
  }
  const mutate = (body: unknown, gen: Generator<unknown>): unknown => {
    if (Array.isArray(body)) return body.map((v) => mutate(v, gen));
    if (body && typeof body === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(body)) {
        out[k] = gen.next().value === null ? gen.next().value : mutate(v, gen);
      }
      return out;
    }
    return gen.next().value;
  };

  it('answers 4xx with the commerce body for fuzzed bodies, paths and queries', async () => {
    const ok = async () => ({ cart: shoppingCart(), pollAfterSeconds: 0 });
    const { app } = await edge({
      getEventOffers: async () => offersAnswer,
      createShoppingCart: ok,
      getShoppingCart: ok,
      updateShoppingCartProducts: ok,
      selectShoppingCartDelivery: ok,
      addShoppingCartPayment: ok,
      deleteShoppingCart: async () => undefined,
      getCartDeliveries: async () => ({ deliveries: [] }),
    });
    const gen = values(42);
    const bodies: Array<[Method, string, unknown]> = [
      ['POST', '/shopping/carts', createBody],
      [
        'PATCH',
        '/shopping/carts/cart-1/products',
        { products: [{ op: 'add', product: EVENT, qty: 1 }] },
      ],
      ['PATCH', '/shopping/carts/cart-1/deliveries', { deliveries: [{ id: 'D1' }] }],
      ['PATCH', '/shopping/carts/cart-1/payments', paymentBody],
      ['POST', `/events/${EVENT}/offers.json`, { displayId: 'x' }],
    ];
    const statuses = new Set<number>();
    for (let round = 0; round < 60; round++) {
      for (const [method, url, body] of bodies) {
        const response = await call(app, method, shop(url), { body: mutate(body, gen) });
        statuses.add(response.statusCode);
        expect(response.statusCode, `${method} ${url}`).toBeLessThan(500);
        if (response.statusCode >= 400) expectCommerceError(response, response.statusCode);
      }
    }
    for (const raw of ['{', 'null', '[]', '"x"', '{"products":', '\u0000', 'a'.repeat(100)]) {
      const response = await call(app, 'POST', shop('/shopping/carts'), { rawBody: raw });
      expect(response.statusCode, raw).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, raw).toBeLessThan(500);
      expectCommerceError(response, response.statusCode);
    }
    const wrongType = await app.inject({
      method: 'POST',
      url: `/commerce/v2${shop('/shopping/carts')}`,
      headers: { 'content-type': 'application/xml' },
      payload: '<cart/>',
    });
    expectCommerceError(wrongType, 415);
    for (const url of [
      `/events/${encodeURIComponent('é')}/offers.json?api-key=${PLAIN_KEY}`,
      `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&api-key=${PLAIN_KEY}`,
      `/events/${EVENT}/offers.%00?api-key=${PLAIN_KEY}`,
      shop('/shopping/carts/%2e%2e.json'),
      shop(`/shopping/carts/${'c'.repeat(90)}`),
      shop('/shopping/carts/cart-1.json&x=1'),
      `/checkout/carts/${'z'.repeat(65)}/deliveries.json?apikey=${PLAIN_KEY}`,
    ]) {
      const response = await call(app, 'GET', url);
      expect(response.statusCode, url).toBeLessThan(500);
      expectCommerceError(response, response.statusCode);
    }
    // The fuzz reached the validators and the handlers, not only the guards.
    expect(statuses.has(400)).toBe(true);
    // A path segment over 100 characters is refused by the router before any route is chosen:
    // still the commerce body, with 414; a URL that does not decode, 400.
    const tooLong = await call(app, 'GET', shop(`/shopping/carts/${'c'.repeat(200)}`));
    expectCommerceError(tooLong, 414, 'invalid_request');
    expect(tooLong.body).not.toContain('c'.repeat(101));
    expectCommerceError(await call(app, 'GET', shop('/shopping/carts/%E0%A4%A')), 400);
  });
});

describe('commerce in the OpenAPI document', () => {
  it('documents every commerce route with each status it can answer', async () => {
    const { app } = await edge();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    // Every operation: 400, 431 (the server), 500, 503, 504; a path parameter 414; a body 413/415;
    // the key 401 and 429 (openapi-contract.ts); the rest is the route's own.
    const common = ['400', '401', '429', '431', '500', '503', '504'];
    const read = [...common, '200', '404', '406', '414'].sort();
    // The offers GET reads a body too (a password): 413 and 415 as for its POST.
    const offers = [...read, '413', '415'].sort();
    expect(statuses('/commerce/v2/events/{id}/offers.{format}', 'get')).toEqual(offers);
    expect(statuses('/commerce/v2/events/{id}/offers', 'get')).toEqual(offers);
    expect(statuses('/commerce/v2/events/{id}/offers.{format}', 'post')).toEqual(offers);
    expect(statuses('/commerce/v2/checkout/carts/{cartId}/deliveries', 'get')).toEqual(read);
    const shopping = [...common, '403', '404', '409'];
    const body = [...shopping, '413', '415'];
    expect(statuses('/commerce/v2/shopping/carts', 'post')).toEqual(['201', '202', ...body].sort());
    expect(statuses('/commerce/v2/shopping/carts/{cartId}', 'get')).toEqual(
      ['200', '406', '414', ...shopping].sort(),
    );
    expect(statuses('/commerce/v2/shopping/carts/{cartId}', 'delete')).toEqual(
      ['204', '414', ...body].sort(),
    );
    for (const part of ['products', 'deliveries', 'payments']) {
      expect(statuses(`/commerce/v2/shopping/carts/{cartId}/${part}`, 'patch')).toEqual(
        ['200', '414', ...body].sort(),
      );
    }
    expect(statuses('/commerce/v2/shopping/carts/{cartId}/purchase', 'post')).toEqual(
      ['200', '414', ...body].sort(),
    );
    expect(statuses('/admin/v1/apps/{appId}/access', 'patch')).toEqual(
      ['200', '400', '401', '404', '413', '414', '415', '431', '500', '503', '504'].sort(),
    );
  });
});

describe('commerce refusals log nothing above info', () => {
  const refusal = async () => {
    throw new AppError('not_found', 'no such thing');
  };
  const routes: Array<[Method, string, unknown?]> = [
    ['GET', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`],
    ['POST', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`, { password: 'pw' }],
    ['GET', `/checkout/carts/cart-1/deliveries?api-key=${PLAIN_KEY}`],
    ['POST', shop('/shopping/carts'), createBody],
    ['GET', shop('/shopping/carts/cart-1')],
    ['DELETE', shop('/shopping/carts/cart-1')],
    [
      'PATCH',
      shop('/shopping/carts/cart-1/products'),
      { products: [{ op: 'remove', product: EVENT }] },
    ],
    ['PATCH', shop('/shopping/carts/cart-1/deliveries'), { deliveries: [{ id: 'd-1' }] }],
    ['PATCH', shop('/shopping/carts/cart-1/payments'), paymentBody],
    ['POST', shop('/shopping/carts/cart-1/purchase')],
  ];

  const warnings = (lines: string[]) =>
    lines
      .map((line) => JSON.parse(line) as { level: string; msg?: string })
      .filter((line) => line.level === 'warn' || line.level === 'error' || line.level === 'fatal');

  it.each(routes)(
    '%s %s: a backend refusal is answered once and logs no error',
    async (method, url, body) => {
      const logLines: string[] = [];
      const every = Object.fromEntries(
        [
          'getEventOffers',
          'getCartDeliveries',
          'createShoppingCart',
          'getShoppingCart',
          'deleteShoppingCart',
          'updateShoppingCartProducts',
          'selectShoppingCartDelivery',
          'addShoppingCartPayment',
          'purchaseShoppingCart',
        ].map((name) => [name, refusal]),
      ) as Partial<CommerceBackend>;
      const { app, recorded } = await edge(every, { logLines });
      const response = await call(app, method, url, body === undefined ? {} : { body });
      expectCommerceError(response, 404, 'not_found');
      expect(recorded.calls).toHaveLength(1);
      // The request's own log line proves the capture works; nothing above info may follow it.
      expect(logLines.length).toBeGreaterThan(0);
      expect(warnings(logLines)).toEqual([]);
    },
  );

  it('a fan-token check that fails is answered once (503) and logs no error', async () => {
    for (const [method, url] of [
      ['GET', `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}&access_token=${FAN_TOKEN}`],
      ['GET', shop('/shopping/carts/cart-1')],
    ] as const) {
      const logLines: string[] = [];
      const { app, recorded } = await edge({}, { logLines, fanTokensDown: true });
      const response = await call(app, method, url);
      expectCommerceError(response, 503);
      expect(recorded.calls).toEqual([]);
      expect(warnings(logLines)).toEqual([]);
      await sut?.close();
      sut = undefined;
    }
  });
});

describe('commerce offers: a password in a GET body', () => {
  const offersUrl = `/events/${EVENT}/offers.json?api-key=${PLAIN_KEY}`;

  it('honours displayId or password in a GET body, with or without .json', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    for (const [url, body] of [
      [offersUrl, { displayId: 'get-body-pw' }],
      [`/events/${EVENT}/offers?api-key=${PLAIN_KEY}&displayId=query-pw`, { password: 'alias-pw' }],
    ] as const) {
      const response = await call(app, 'GET', url, { body });
      expect(response.statusCode).toBe(200);
    }
    expect(recorded.offers.map((r) => r.passwords)).toEqual([
      ['get-body-pw'],
      ['query-pw', 'alias-pw'],
    ]);
  });

  it('reads no body when none is sent, an empty one included', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    expect((await call(app, 'GET', offersUrl)).statusCode).toBe(200);
    expect((await call(app, 'GET', offersUrl, { rawBody: '' })).statusCode).toBe(200);
    expect(recorded.offers.map((r) => r.passwords)).toEqual([[], []]);
  });

  it('refuses a GET body the POST would refuse, with the same status and no backend call', async () => {
    const { app, recorded } = await edge({ getEventOffers: async () => offersAnswer });
    const cases: Array<[string, Parameters<typeof call>[3], number]> = [
      ['not JSON', { rawBody: '{"displayId":' }, 400],
      ['unknown field', { body: { displayId: 'pw', extra: 1 } }, 400],
      ['wrong type', { body: { displayId: 42 } }, 400],
      ['empty password', { body: { displayId: '' } }, 400],
      ['not an object', { body: ['pw'] }, 400],
      [
        'not JSON media',
        { rawBody: '<displayId>pw</displayId>', headers: { 'content-type': 'application/xml' } },
        415,
      ],
      ['over 1 MiB', { body: { displayId: 'x'.repeat(1_048_576) } }, 413],
    ];
    for (const [what, options, status] of cases) {
      const get = await call(app, 'GET', offersUrl, options);
      const post = await call(app, 'POST', offersUrl, options);
      expect({ what, status: get.statusCode }).toEqual({ what, status });
      expect({ what, status: post.statusCode }).toEqual({ what, status });
      expectCommerceError(get, status);
    }
    // Plain text too (which the POST parses as a string, then refuses as not an object: 400).
    const text = await call(app, 'GET', offersUrl, {
      rawBody: 'displayId=pw',
      headers: { 'content-type': 'text/plain' },
    });
    expectCommerceError(text, 415);
    expect(recorded.offers).toEqual([]);
  });
});
