import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FEES, orderFees, ticketPrice } from '@marquee/platform/money';
import type {
  Billing,
  CartCaller,
  PartnerCart,
  ReserveInput,
  TicketOffer,
  TrackingHit,
} from '../src/app/partner-cart.js';
import { TRACKING_PIXEL } from '../src/ports/http/partner-cart/tracking-routes.js';
import {
  EVENT,
  KEY,
  NOT_DISTRIBUTOR_KEY,
  NOT_DISTRIBUTOR_TRACKING_ID,
  OTHER_KEY,
  OVER_QUOTA_KEY,
  QUOTA_KEY,
  TRACKING_ID,
  answer,
  availability,
  heldCart,
  partnerEdge,
  partnerFailure,
  usd,
  type EdgeHarness,
} from './partner-cart-fixtures.js';

let harness: EdgeHarness | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
});

async function edge(cart: Partial<PartnerCart>): Promise<FastifyInstance> {
  harness = await partnerEdge(cart);
  return harness.app;
}

const P = '/partners/v1';
const PRE = '/partners-preprod/v1';
const withKey = (url: string, key = KEY) => `${url}${url.includes('?') ? '&' : '?'}apikey=${key}`;

const reserveBody = { reserve: { tickets: [{ id: '000001', quantity: 2 }] } };

const billingBody = (overrides: Record<string, unknown> = {}) => ({
  cartId: 'cart-1',
  payment: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    home_phone: '+1 555 0100',
    type: 'CC',
    reference: 'order-77',
    address: {
      line1: '1 Main St',
      line2: '',
      unit: '4B',
      city: 'Springfield',
      country: { code: 'us', id: 840 },
      region: { abbrev: 'IL' },
      postal_code: '62701',
    },
    amount: '63.74',
    currency: 'USD',
    card: {
      number: 'nonce-SECRET-4c1e9f',
      cin: '737',
      expire_month: 5,
      expire_year: '31',
    },
    email_address: 'ada@example.com',
    third_party_account_id: 'partner-user-1',
    ...overrides,
  },
});

const errorOf = (status: number, code: string) => ({
  error: {
    message: expect.any(String),
    code,
    http_code: status,
    severity: status >= 500 ? 'ERROR' : 'WARN',
  },
});

describe('partner cart: API key', () => {
  it('refuses a missing or unknown key with 401 code 10001, on both prefixes', async () => {
    const app = await edge({});
    for (const prefix of [P, PRE]) {
      const missing = await app.inject({ url: `${prefix}/events/${EVENT}/availability` });
      expect(missing.statusCode).toBe(401);
      expect(missing.json()).toEqual(errorOf(401, '10001'));
      const unknown = await app.inject({
        url: withKey(`${prefix}/events/${EVENT}/availability`, 'nope'),
      });
      expect(unknown.statusCode).toBe(401);
    }
  });

  it('refuses a bad key before reading the body: malformed JSON answers 401, not 400', async () => {
    const app = await edge({});
    const response = await app.inject({
      method: 'POST',
      url: `${P}/events/${EVENT}/cart?apikey=nope`,
      headers: { 'content-type': 'application/json' },
      payload: '{"reserve": {',
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(errorOf(401, '10001'));
  });

  it('accepts the key in x-api-key and answers 429 with Retry-After over the quota', async () => {
    const app = await edge({ getEventAvailability: async () => availability() });
    const header = await app.inject({
      url: `${P}/events/${EVENT}/availability`,
      headers: { 'x-api-key': KEY },
    });
    expect(header.statusCode).toBe(200);
    expect(header.headers['rate-limit']).toBe('5');
    expect(header.headers['rate-limit-available']).toBe('4');
    expect(Number(header.headers['rate-limit-reset'])).toBeGreaterThan(0);
    expect(header.headers['rate-limit-over']).toBe('0');
    const over = await app.inject({
      url: withKey(`${P}/events/${EVENT}/availability`, OVER_QUOTA_KEY),
    });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toEqual(errorOf(429, 'rate_limited'));
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(over.headers['rate-limit-available']).toBe('0');
    expect(over.headers['rate-limit-over']).toBe('1');
  });

  it('refuses an app without partner distribution access: 403 code 10003, nothing reserved', async () => {
    const reserves: ReserveInput[] = [];
    const callers: CartCaller[] = [];
    const app = await edge({
      getEventAvailability: async () => availability(),
      reserveCart: async (caller, input) => {
        callers.push(caller);
        reserves.push(input);
        return answer(heldCart());
      },
    });
    for (const prefix of [P, PRE]) {
      const read = await app.inject({
        url: withKey(`${prefix}/events/${EVENT}/availability`, NOT_DISTRIBUTOR_KEY),
      });
      expect(read.statusCode).toBe(403);
      expect(read.json()).toEqual(errorOf(403, '10003'));
      const reserve = await app.inject({
        method: 'POST',
        url: withKey(`${prefix}/events/${EVENT}/cart`, NOT_DISTRIBUTOR_KEY),
        payload: reserveBody,
      });
      expect(reserve.statusCode).toBe(403);
      expect(reserve.json()).toEqual(errorOf(403, '10003'));
    }
    expect(reserves).toEqual([]);
    const distributor = await app.inject({ url: withKey(`${P}/events/${EVENT}/availability`) });
    expect(distributor.statusCode).toBe(200);
    // A distributor's reserve carries its held-ticket quota from the key check to cart.
    for (const key of [QUOTA_KEY, OTHER_KEY])
      await app.inject({
        method: 'POST',
        url: withKey(`${P}/events/${EVENT}/cart`, key),
        payload: reserveBody,
      });
    expect(callers).toEqual([
      { appId: 'app-5', sandbox: false, heldTicketsPerEvent: 7 },
      { appId: 'app-2', sandbox: false },
    ]);
  });

  it('keeps the family 404 and 405 for paths without routes, key or not', async () => {
    const app = await edge({});
    const unknown = await app.inject({ url: `${P}/nothing/here` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(errorOf(404, 'not_found'));
    const wrongMethod = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/availability`),
    });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toContain('GET');
    expect(wrongMethod.json()).toEqual(errorOf(405, 'method_not_allowed'));
  });
});

describe('GET /events/{event_id}/availability', () => {
  it('answers the event with tickets per price level; the preprod prefix is a sandbox call', async () => {
    const callers: CartCaller[] = [];
    const app = await edge({
      async getEventAvailability(caller, eventId) {
        callers.push(caller);
        expect(eventId).toBe(EVENT);
        return availability();
      },
    });
    const response = await app.inject({ url: withKey(`${P}/events/${EVENT}/availability`) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      event: {
        id: EVENT,
        restrictSingle: false,
        eventTicketLimit: 8,
        onsale: true,
        offsale: false,
        onsaleDate: '2029-01-01T00:00:00.000Z',
        offsaleDate: '2099-01-01T00:00:00.000Z',
        secureTixEnabled: true,
        currency: 'USD',
        totalAvailable: 103,
        observedAt: '2030-01-01T00:00:00.000Z',
        tickets: [
          {
            priceLevelId: 'PL1',
            available: 3,
            total: 10,
            inventory: [
              {
                section: '101',
                row: 'C',
                seats: ['7', '8'],
                areas: [{ id: 'A1', level_id: 'L1', ga: false, available: 3 }],
              },
              {
                section: '101',
                row: 'D',
                seats: ['1'],
                areas: [{ id: 'A1', level_id: 'L1', ga: false, available: 3 }],
              },
            ],
            offers: [
              {
                ticketTypeId: '000001',
                priceLevelId: 'PL1',
                name: 'Adult',
                currency: 'USD',
                faceValue: 25.5,
                charges: [
                  { type: 'service', amount: 4.5, quantity: 1, fee_type: 'per ticket' },
                  { type: 'tax', amount: 0.37, quantity: 1, fee_type: 'per ticket' },
                ],
                protected: false,
              },
            ],
          },
          {
            priceLevelId: 'PL2',
            available: 100,
            total: 100,
            inventory: [
              {
                section: '',
                row: '',
                seats: [],
                areas: [{ id: 'GA', level_id: '', ga: true, available: 100 }],
              },
            ],
            offers: [],
          },
        ],
      },
    });
    await app.inject({ url: withKey(`${PRE}/events/${EVENT}/availability`) });
    expect(callers).toEqual([
      { appId: 'app-1', sandbox: false },
      { appId: 'app-1', sandbox: true },
    ]);
  });

  it("shows each fee's tax as a charge: face value and charges add up to what the cart charges", async () => {
    // One KWD offer (3 decimals) priced as cart prices it, with the platform's default fees.
    const kwd = (amountMinor: number) => ({ amountMinor, currency: 'KWD' });
    const perTicket = ticketPrice(45_500, DEFAULT_FEES);
    const perOrder = orderFees(DEFAULT_FEES);
    const offers: TicketOffer[] = [
      {
        ticketTypeId: 'ADULT',
        priceLevelId: 'PL1',
        name: 'Adult',
        faceValue: kwd(45_500),
        charges: [
          {
            type: 'service',
            price: kwd(perTicket.serviceFeeMinor),
            quantity: 1,
            tax: kwd(perTicket.serviceFeeTaxMinor),
            feeType: 'per ticket',
          },
          {
            type: 'processing',
            price: kwd(perOrder.processingFeeMinor),
            quantity: 1,
            tax: kwd(perOrder.processingFeeTaxMinor),
            feeType: 'per order',
          },
        ],
        protected: false,
      },
    ];
    const app = await edge({
      getEventAvailability: async () => availability({ currency: 'KWD', offers }),
    });
    const response = await app.inject({ url: withKey(`${P}/events/${EVENT}/availability`) });
    expect(response.statusCode).toBe(200);
    const [offer] = response.json().event.tickets[0].offers as Array<{
      faceValue: number;
      charges: Array<{ type: string; amount: number; fee_type: string }>;
    }>;
    expect(offer!.charges).toEqual([
      { type: 'service', amount: 4.55, quantity: 1, fee_type: 'per ticket' },
      { type: 'tax', amount: 0.91, quantity: 1, fee_type: 'per ticket' },
      { type: 'processing', amount: 0.25, quantity: 1, fee_type: 'per order' },
      { type: 'tax', amount: 0.05, quantity: 1, fee_type: 'per order' },
    ]);
    const minor = (amount: number) => Math.round(amount * 1000);
    const sum = (feeType: string) =>
      offer!.charges
        .filter((c) => c.fee_type === feeType)
        .reduce((total, c) => total + minor(c.amount), 0);
    expect(minor(offer!.faceValue) + sum('per ticket')).toBe(perTicket.totalMinor);
    expect(sum('per order')).toBe(perOrder.totalMinor);
  });

  it.each([
    ['too short', 'G5vYZ9abc'],
    ['too long', 'G5vYZ9abcdefghij'],
    ['not alphanumeric', 'G5vYZ9abcdef-hi'],
    ['of 99 characters', 'x'.repeat(99)],
  ])('refuses an event id %s with 400 code 10002', async (_label, id) => {
    const app = await edge({});
    const response = await app.inject({ url: withKey(`${P}/events/${id}/availability`) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorOf(400, '10002'));
  });

  it('answers a path segment over 100 characters with 414 in the partner body (code 10002)', async () => {
    const app = await edge({});
    for (const prefix of [P, '/partners-preprod/v1']) {
      const response = await app.inject({
        url: withKey(`${prefix}/events/${'x'.repeat(200)}/availability`),
        headers: { 'x-correlation-id': 'long-path' },
      });
      expect(response.statusCode).toBe(414);
      expect(response.json()).toEqual(errorOf(414, '10002'));
      expect(response.headers['x-correlation-id']).toBe('long-path');
    }
    // Top picks and secure render share the body and the code.
    const picks = await app.inject({ url: withKey(`/top-picks/v1/events/id/${'x'.repeat(200)}`) });
    expect(picks.statusCode).toBe(414);
    expect(picks.json()).toEqual(errorOf(414, '10002'));
  });

  it('answers 403 code 90001 for an event that is not transactable, 503 with Retry-After for 20001', async () => {
    let failure = partnerFailure('failed_precondition', '90001');
    const app = await edge({
      async getEventAvailability() {
        throw failure;
      },
    });
    const forbidden = await app.inject({ url: withKey(`${P}/events/${EVENT}/availability`) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual(errorOf(403, '90001'));
    failure = Object.assign(partnerFailure('unavailable', '20001', 'nightly maintenance'), {
      details: { reason: '20001', retry_after_seconds: '900' },
    });
    const down = await app.inject({ url: withKey(`${P}/events/${EVENT}/availability`) });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('900');
    expect(down.json()).toEqual({
      error: { message: 'nightly maintenance', code: '20001', http_code: 503, severity: 'ERROR' },
    });
  });
});

describe('a cart back end with no room for another call', () => {
  it('answers 429 overloaded with Retry-After before the API key is checked', async () => {
    let full = true;
    const app = await edge({
      assertRoom() {
        if (full)
          throw Object.assign(new Error('too many calls in flight to a backend; retry shortly'), {
            kind: 'unavailable',
            details: { reason: 'overloaded', retryAfterMs: 2_000 },
          });
      },
      async reserveCart() {
        return answer(heldCart());
      },
    });
    const refused = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: reserveBody,
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.json()).toEqual({
      error: {
        message: 'too many calls in flight to a backend; retry shortly',
        code: 'overloaded',
        http_code: 429,
        severity: 'WARN',
      },
    });
    // The key was never looked at: no call reached auth-gateway.
    expect(harness!.keysSeen).toEqual([]);

    full = false;
    const held = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: reserveBody,
    });
    expect(held.statusCode).toBe(200);
    expect(harness!.keysSeen).toEqual([KEY]);
  });
});

describe('a reserve cart sheds for load', () => {
  const refusal = (details: Record<string, unknown>) =>
    Object.assign(new Error('too many reservations in progress; retry shortly'), {
      kind: 'unavailable',
      details,
    });

  it('answers 429 overloaded with the Retry-After cart asked for; a back end down stays 503', async () => {
    let error: Error = refusal({ reason: 'overloaded', retryAfterMs: 2_500 });
    const app = await edge({
      async reserveCart() {
        throw error;
      },
    });
    const reserve = () =>
      app.inject({
        method: 'POST',
        url: withKey(`${P}/events/${EVENT}/cart`),
        payload: reserveBody,
      });
    const shed = await reserve();
    expect(shed.statusCode).toBe(429);
    expect(shed.headers['retry-after']).toBe('3');
    expect(shed.json().error).toMatchObject({ code: 'overloaded', http_code: 429 });

    // Without a wait given: Retry-After 1.
    error = refusal({ reason: 'overloaded' });
    const bare = await reserve();
    expect(bare.statusCode).toBe(429);
    expect(bare.headers['retry-after']).toBe('1');

    // Unreachable (no reason): 503 with Retry-After, as before.
    error = refusal({});
    const down = await reserve();
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('1');
  });

  it('a poll of a cart whose reserve was shed by the partner queue answers 429 overloaded', async () => {
    const failed = heldCart({
      status: 'FAILED',
      failureCode: 'overloaded',
      failureMessage: 'the partner is at its capacity',
    });
    const app = await edge({ getCart: async () => answer(failed) });
    const polled = await app.inject({ url: withKey(`${P}/events/${EVENT}/cart?cart_id=cart-1`) });
    expect(polled.statusCode).toBe(429);
    expect(polled.headers['retry-after']).toBe('1');
    expect(polled.json().error.code).toBe('overloaded');
  });
});

describe('POST /events/{event_id}/cart (reserve) and polling', () => {
  it('reserves and answers 200 with the cart result, defaults applied', async () => {
    const inputs: ReserveInput[] = [];
    const app = await edge({
      async reserveCart(caller, input) {
        expect(caller).toEqual({ appId: 'app-1', sandbox: false });
        inputs.push(input);
        return answer(heldCart());
      },
    });
    const response = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: {
        token: 'captcha',
        reserve: {
          tickets: [{ id: '000001', quantity: 2, price: { id: 7 } }],
          areas: [{ id: 'A1' }],
          section: '101',
          row: 'C',
          begin_seat: 7,
          end_seat: 8,
        },
        additional_reserves: [
          { tickets: [{ id: '000002', quantity: 1 }], accept_best_available: false },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.cart_id).toBe('cart-1');
    expect(body.cart.totals).toEqual({
      currency_code: 'USD',
      delivery: 0,
      fee: 12,
      grand: 63.74,
      merchandise: 51,
      tax: 0.74,
      unpaid: 63.74,
      upsell: 0,
    });
    expect(body.cart.hold_time).toBeGreaterThan(590);
    expect(body.cart.hold_time).toBeLessThanOrEqual(600);
    expect(body.cart.items.map((i: { type: string }) => i.type)).toEqual([
      'ticket',
      'processing',
      'delivery',
    ]);
    expect(body.cart.items[0]).toEqual({
      type: 'ticket',
      id: 1,
      view: {},
      areas: [{ description: 'Floor', id: 'A1' }],
      tickets: [
        {
          description: 'Adult',
          id: '000001',
          quantity: 2,
          inventory_type: 'PRIMARY',
          charges: [
            { price: 25.5, type: 'face_value', quantity: 2, tax: 0 },
            { price: 4.5, type: 'service', quantity: 2, tax: 0.37 },
          ],
        },
      ],
      ga: false,
      is_ga: false,
      totals: { currency_code: 'USD', fee: 9, grand: 60.74, merchandise: 51, tax: 0.74 },
      event_id: EVENT,
      num_seats: '2',
      x_num: '2',
      'x-num': '2',
      row: 'C',
      section: '101',
      start_seat_number: '7',
      end_seat_number: '8',
      transfer: { eligible: true, explanation: expect.any(String) },
      quantity: 2,
    });
    expect(body.cart.items[1]).toEqual({
      type: 'processing',
      totals: { currency_code: 'USD', fee: 3, grand: 3, merchandise: 0, tax: 0 },
    });
    expect(body.cart.items[2]).toMatchObject({
      type: 'delivery',
      id: 'ship-e',
      service_level: 'ETICKET',
      description: { long: 'Mobile tickets', short: 'Mobile', eta: 'now' },
      rank: 1,
    });
    expect(body.cart.agreements).toEqual([
      {
        name: 'Terms',
        locale: 'en-us',
        text: 'I accept the terms',
        type: 'acknowledgement',
        agreement_url: 'https://example.com/terms',
      },
    ]);
    expect(inputs).toEqual([
      {
        eventId: EVENT,
        reserves: [
          {
            tickets: [{ id: '000001', quantity: 2, priceId: '7' }],
            areaIds: ['A1'],
            section: '101',
            row: 'C',
            beginSeat: 7,
            endSeat: 8,
            acceptBestAvailable: true,
          },
          {
            tickets: [{ id: '000002', quantity: 1, priceId: '' }],
            areaIds: [],
            section: '',
            row: '',
            beginSeat: 0,
            endSeat: 0,
            acceptBestAvailable: false,
          },
        ],
        fanSessionId: '',
        idempotencyKey: '',
        forceAsync: false,
        language: '',
      },
    ]);
  });

  it('answers the listing fields of a resale item', async () => {
    const primary = heldCart();
    const line = primary.ticketItems[0]!;
    const resale = heldCart({
      ticketItems: [
        {
          ...line,
          inventoryType: 'RESALE',
          tickets: line.tickets.map((t) => ({
            ...t,
            id: `${EVENT}.listing`,
            inventoryType: 'RESALE',
          })),
          resale: {
            location: 'Section 101, Row C, Seats 7-8',
            sellerNotes: 'Aisle seats',
            averageOriginalTotalValue: usd(3357),
            inHandDate: '2030-05-01',
          },
        },
      ],
    });
    const app = await edge({ reserveCart: async () => answer(resale) });
    const response = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: { reserve: { tickets: [{ id: `${EVENT}.listing`, quantity: 2 }] } },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().cart.items[0]).toMatchObject({
      tickets: [{ inventory_type: 'RESALE' }],
      listing_details: { location: 'Section 101, Row C, Seats 7-8' },
      listing_notes: { seller_notes: 'Aisle seats' },
      averageOriginalTotalValue: 33.57,
      inHandDate: '2030-05-01',
    });
    // A primary item has none of them: the test above compares its whole item.
  });

  it('passes Idempotency-Key, X-PLATFORM-SESSION-SID, Prefer: respond-async and the language', async () => {
    const inputs: ReserveInput[] = [];
    const app = await edge({
      async reserveCart(_caller, input) {
        inputs.push(input);
        return answer(heldCart());
      },
    });
    await app.inject({
      method: 'POST',
      url: withKey(`${PRE}/events/${EVENT}/cart`),
      headers: {
        'idempotency-key': 'retry-me-1',
        'x-platform-session-sid': 'fan-session-9',
        prefer: 'return=minimal, respond-async',
        'accept-language': 'fr-CA,fr;q=0.8',
      },
      payload: reserveBody,
    });
    expect(inputs[0]).toMatchObject({
      idempotencyKey: 'retry-me-1',
      fanSessionId: 'fan-session-9',
      forceAsync: true,
      language: 'fr-ca',
    });
  });

  it('converts a variable price in the event currency (JPY has no minor unit)', async () => {
    const inputs: ReserveInput[] = [];
    const app = await edge({
      getEventAvailability: async () => availability({ currency: 'JPY' }),
      async reserveCart(_caller, input) {
        inputs.push(input);
        return answer(heldCart());
      },
    });
    const ok = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: { reserve: { tickets: [{ id: '1', quantity: 1, price: { amount: 1500 } }] } },
    });
    expect(ok.statusCode).toBe(200);
    expect(inputs[0]!.reserves[0]!.tickets[0]!.amount).toEqual({
      amountMinor: 1500,
      currency: 'JPY',
    });
    const fractional = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: { reserve: { tickets: [{ id: '1', quantity: 1, price: { amount: 1500.5 } }] } },
    });
    expect(fractional.statusCode).toBe(400);
    expect(fractional.json()).toEqual(errorOf(400, '10002'));
    expect(inputs).toHaveLength(1);
  });

  it('answers 202 with polling_url, Location and Retry-After while pending; polling reaches 200', async () => {
    let polls = 0;
    const app = await edge({
      reserveCart: async () => answer(heldCart({ id: 'cart/9', status: 'PENDING' }), 4),
      async getCart(caller, eventId, cartId) {
        expect([caller.appId, caller.sandbox, eventId, cartId]).toEqual([
          'app-1',
          true,
          EVENT,
          'cart/9',
        ]);
        polls += 1;
        return polls < 2
          ? answer(heldCart({ id: 'cart/9', status: 'PENDING' }), 0)
          : answer(heldCart({ id: 'cart/9' }));
      },
    });
    const reserved = await app.inject({
      method: 'POST',
      url: withKey(`${PRE}/events/${EVENT}/cart`),
      payload: reserveBody,
    });
    expect(reserved.statusCode).toBe(202);
    const pollingUrl = `${PRE}/events/${EVENT}/cart?cart_id=cart%2F9`;
    expect(reserved.json()).toEqual({ cart_id: 'cart/9', polling_url: pollingUrl, wait: 4 });
    expect(reserved.headers.location).toBe(pollingUrl);
    expect(reserved.headers['retry-after']).toBe('4');

    const stillPending = await app.inject({ url: withKey(pollingUrl) });
    expect(stillPending.statusCode).toBe(202);
    expect(stillPending.json()).toEqual({ cart_id: 'cart/9', polling_url: pollingUrl, wait: 1 });
    const held = await app.inject({ url: withKey(pollingUrl), headers: {} });
    expect(held.statusCode).toBe(200);
    expect(held.json().cart_id).toBe('cart/9');
  });

  it.each([
    ['20052', 409],
    ['90003', 409],
    ['90001', 403],
    ['20001', 503],
    ['10002', 400],
    ['', 409],
  ])(
    'answers a failed reserve (failure code %s) with the family error, status %i',
    async (code, status) => {
      const failed = heldCart({ status: 'FAILED', failureCode: code, failureMessage: 'no seats' });
      const app = await edge({
        getCart: async () => answer(failed),
        reserveCart: async () => answer(failed),
      });
      const polled = await app.inject({ url: withKey(`${P}/events/${EVENT}/cart?cart_id=cart-1`) });
      expect(polled.statusCode).toBe(status);
      expect(polled.json()).toEqual({
        error: {
          message: 'no seats',
          code: code || '20052',
          http_code: status,
          severity: status >= 500 ? 'ERROR' : 'WARN',
        },
      });
      const reserved = await app.inject({
        method: 'POST',
        url: withKey(`${P}/events/${EVENT}/cart`),
        payload: reserveBody,
      });
      expect(reserved.statusCode).toBe(status);
    },
  );

  it.each([
    ['resource_exhausted', '20052', 409],
    ['failed_precondition', 'idempotency-key-reused', 422],
    ['permission_denied', '20046', 403],
    ['unavailable', '20001', 503],
    ['deadline_exceeded', '504', 504],
    ['unavailable', '502', 502],
  ])('maps a %s error with reason %s to %i', async (kind, reason, status) => {
    const app = await edge({
      async reserveCart() {
        throw partnerFailure(kind, reason);
      },
    });
    const response = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: reserveBody,
    });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual(errorOf(status, reason));
    if (status === 503) expect(response.headers['retry-after']).toBe('1');
  });

  it('answers 404 code 90003 for another app’s cart, a released and an expired one', async () => {
    const app = await edge({
      async getCart(caller, _eventId, cartId) {
        if (caller.appId !== 'app-1')
          throw Object.assign(new Error('no such cart'), { kind: 'not_found' });
        return answer(heldCart({ id: cartId, status: cartId === 'gone' ? 'RELEASED' : 'EXPIRED' }));
      },
    });
    for (const [key, cartId] of [
      [OTHER_KEY, 'cart-1'],
      [KEY, 'gone'],
      [KEY, 'old'],
    ] as const) {
      const response = await app.inject({
        url: withKey(`${P}/events/${EVENT}/cart?cart_id=${cartId}`, key),
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(errorOf(404, '90003'));
    }
  });
});

describe('shipping, payment, commit, release', () => {
  it('lists shipping options for a region and selects one (cart id in body or query)', async () => {
    const selected: string[][] = [];
    const app = await edge({
      async getShippingOptions(_caller, eventId, cartId, region) {
        expect([eventId, cartId, region]).toEqual([EVENT, 'cart-1', 'GB']);
        return [heldCart().delivery!];
      },
      async selectShipping(_caller, _eventId, cartId, shippingId) {
        selected.push([cartId, shippingId]);
        return heldCart();
      },
    });
    const options = await app.inject({
      url: withKey(`${P}/events/${EVENT}/cart/shipping?cart_id=cart-1&region=gb`),
    });
    expect(options.statusCode).toBe(200);
    expect(options.json()).toEqual({
      shipping_options: [
        {
          id: 'ship-e',
          carrier: 'Marquee',
          service_level: 'ETICKET',
          requires_address: false,
          description: { long: 'Mobile tickets', short: 'Mobile', eta: 'now' },
          totals: { currency_code: 'USD', fee: 0, grand: 0, merchandise: 0, tax: 0 },
        },
      ],
    });
    const byBody = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/shipping`),
      payload: { cart_id: 'cart-1', shipping_id: 'ship-e' },
    });
    expect(byBody.statusCode).toBe(200);
    expect(byBody.json().cart_id).toBe('cart-1');
    const byQuery = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/shipping?cart_id=cart-2`),
      payload: { shipping_id: 'ship-m' },
    });
    expect(byQuery.statusCode).toBe(200);
    const neither = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/shipping`),
      payload: { shipping_id: 'ship-m' },
    });
    expect(neither.statusCode).toBe(400);
    const differ = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/shipping?cart_id=a`),
      payload: { cart_id: 'b', shipping_id: 'ship-m' },
    });
    expect(differ.statusCode).toBe(400);
    expect(selected).toEqual([
      ['cart-1', 'ship-e'],
      ['cart-2', 'ship-m'],
    ]);
    const badMethod = await edge({
      async selectShipping() {
        throw partnerFailure('invalid_argument', '10104');
      },
    });
    const invalid = await badMethod.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/shipping`),
      payload: { cart_id: 'cart-1', shipping_id: 'nope' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual(errorOf(400, '10104'));
  });

  it('adds billing: decimal string → minor units, card nonce passed through, masked payment answered', async () => {
    const billings: Billing[] = [];
    const keys: string[] = [];
    const app = await edge({
      async addPayment(_caller, input) {
        billings.push(input.billing);
        keys.push(input.idempotencyKey);
        return heldCart({
          status: 'PAID',
          payments: [
            {
              id: 'pay-1',
              paymentId: 'auth-77',
              type: 'CC',
              amount: usd(6374),
              expireMonth: 5,
              expireYear: 2031,
              issuer: 'VISA',
              maskedNumber: '************4242',
            },
          ],
        });
      },
    });
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      headers: { 'idempotency-key': 'pay-once' },
      payload: billingBody(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().cart.payments).toEqual([
      {
        id: 'pay-1',
        payment_id: 'auth-77',
        type: 'CC',
        amount: 63.74,
        card: { expire_month: 5, expire_year: 2031, issuer: 'VISA', number: '************4242' },
      },
    ]);
    expect(keys).toEqual(['pay-once']);
    expect(billings[0]).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      homePhone: '+1 555 0100',
      type: 'CC',
      reference: 'order-77',
      address: {
        line1: '1 Main St',
        line2: '',
        unit: '4B',
        city: 'Springfield',
        countryCode: 'US',
        countryId: '840',
        region: 'IL',
        postalCode: '62701',
      },
      amount: { amountMinor: 6374, currency: 'USD' },
      cardNonce: 'nonce-SECRET-4c1e9f',
      cin: '737',
      expireMonth: 5,
      expireYear: 2031,
      emailAddress: 'ada@example.com',
      thirdPartyAccountId: 'partner-user-1',
    });
  });

  it.each([
    ['1500', 'JPY', 1500],
    ['12.345', 'KWD', 12345],
    ['7', 'EUR', 700],
    ['0.5', 'usd', 50],
  ])('converts amount %s %s to %i minor units', async (amount, currency, minor) => {
    const billings: Billing[] = [];
    const app = await edge({
      async addPayment(_caller, input) {
        billings.push(input.billing);
        return heldCart();
      },
    });
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody({ amount, currency }),
    });
    expect(response.statusCode).toBe(200);
    expect(billings[0]!.amount).toEqual({ amountMinor: minor, currency: currency.toUpperCase() });
  });

  it.each([
    ['more decimals than the currency', { amount: '1.005' }],
    ['decimals on JPY', { amount: '10.5', currency: 'JPY' }],
    ['a number amount', { amount: 63.74 }],
    ['a negative amount', { amount: '-1.00' }],
    ['no card for CC', { card: undefined }],
    ['a bad CIN', { card: { number: 'n', cin: '12' } }],
    ['a bad month', { card: { number: 'n', expire_month: 13 } }],
    ['no e-mail', { email_address: undefined }],
    ['an unknown field', { iban: 'DE00' }],
  ])('refuses a billing with %s (400 code 10002)', async (_label, overrides) => {
    const app = await edge({});
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody(overrides),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorOf(400, '10002'));
  });

  it.each([['20122'], ['20129'], ['20152']])(
    'answers a declined payment %s with 402',
    async (code) => {
      const app = await edge({
        async addPayment() {
          throw partnerFailure('failed_precondition', code);
        },
      });
      const response = await app.inject({
        method: 'PUT',
        url: withKey(`${P}/events/${EVENT}/cart/payment`),
        payload: billingBody(),
      });
      expect(response.statusCode).toBe(402);
      expect(response.json()).toEqual(errorOf(402, code));
    },
  );

  it("answers 409 20061 when the account would pass the event's ticket limit", async () => {
    const app = await edge({
      async addPayment() {
        throw partnerFailure('failed_precondition', '20061');
      },
    });
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody(),
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual(errorOf(409, '20061'));
  });

  it('answers a payment awaiting 3-D Secure with 402 20122 and its payment_action', async () => {
    const action = {
      type: 'use_stripe_sdk',
      payment_id: 'pi_3DS',
      client_secret: 'pi_3DS_secret_abc',
      redirect_url: 'https://hooks.stripe.com/3d_secure_2/authenticate',
    };
    const app = await edge({
      async addPayment() {
        throw Object.assign(partnerFailure('failed_precondition', '20122', 'authenticate'), {
          details: { reason: '20122', payment_action: action, other: 'not shown' },
        });
      },
    });
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody(),
    });
    expect(response.statusCode).toBe(402);
    expect(response.json()).toEqual({
      error: { ...errorOf(402, '20122').error, payment_action: action },
    });
  });

  it('leaves out a malformed payment_action (the plain 402 body)', async () => {
    const app = await edge({
      async addPayment() {
        throw Object.assign(partnerFailure('failed_precondition', '20122'), {
          details: { reason: '20122', payment_action: { type: 'use_stripe_sdk', payment_id: 7 } },
        });
      },
    });
    const response = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody(),
    });
    expect(response.json()).toEqual(errorOf(402, '20122'));
  });

  it('commits and answers the order with its token; releases with 204', async () => {
    const released: string[] = [];
    const app = await edge({
      async commitCart(caller, input) {
        expect(caller.sandbox).toBe(true);
        expect(input).toEqual({ eventId: EVENT, cartId: 'cart-1', idempotencyKey: 'commit-1' });
        return {
          cart: heldCart({ status: 'COMMITTED' }),
          order: {
            orderId: 'ord-1',
            orderNumber: '12-34567/LA',
            grandTotal: usd(6374),
            redemptionUrl: 'https://tickets.example.com/orders/ord-1',
            status: 'CONFIRMED',
            printed: false,
          },
          orderToken: 'order-token-SECRET-77',
        };
      },
      async releaseCart(_caller, eventId, cartId) {
        released.push(`${eventId}/${cartId}`);
      },
    });
    const committed = await app.inject({
      method: 'PUT',
      url: withKey(`${PRE}/events/${EVENT}/cart`),
      headers: { 'idempotency-key': 'commit-1' },
      payload: { cart_id: 'cart-1' },
    });
    expect(committed.statusCode).toBe(200);
    // The answer carries the order token: no browser or shared cache may keep it.
    expect(committed.headers['cache-control']).toBe('no-store');
    expect(committed.json()).toEqual({
      cart_id: 'cart-1',
      order_number: '12-34567/LA',
      order_id: 'ord-1',
      order_token: 'order-token-SECRET-77',
      redemption_url: 'https://tickets.example.com/orders/ord-1',
      grand_total: 63.74,
      currency_code: 'USD',
    });
    const deleted = await app.inject({
      method: 'DELETE',
      url: withKey(`${P}/events/${EVENT}/cart?cart_id=cart-1`),
    });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(released).toEqual([`${EVENT}/cart-1`]);
  });

  it('answers 409 90003 for a cart in the wrong state on commit, 404 90003 for an unknown one', async () => {
    let failure = partnerFailure('failed_precondition', '90003', 'the cart is not paid');
    const app = await edge({
      async commitCart() {
        throw failure;
      },
    });
    const commit = () =>
      app.inject({
        method: 'PUT',
        url: withKey(`${P}/events/${EVENT}/cart?cart_id=cart-1`),
        payload: {},
      });
    const wrongState = await commit();
    expect(wrongState.statusCode).toBe(409);
    expect(wrongState.json()).toEqual(errorOf(409, '90003'));
    failure = partnerFailure('not_found', '90003', 'cart cart-1 not found');
    const unknown = await commit();
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(errorOf(404, '90003'));
  });

  it('answers an unknown event 404 code 90001 and a key still in use 409', async () => {
    let failure = partnerFailure('not_found', '90001', 'event unknown');
    const app = await edge({
      async reserveCart() {
        throw failure;
      },
    });
    const reserve = () =>
      app.inject({
        method: 'POST',
        url: withKey(`${P}/events/${EVENT}/cart`),
        payload: reserveBody,
      });
    const unknown = await reserve();
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(errorOf(404, '90001'));
    failure = partnerFailure('aborted', 'idempotency-key-in-progress');
    const busy = await reserve();
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toEqual(errorOf(409, 'idempotency-key-in-progress'));
  });
});

describe('GET /tracking', () => {
  const pixel = (query: string) => `${P}/tracking?tracking_id=${TRACKING_ID}&${query}`;

  it('takes the public tracking id, records the hit and answers the 43-byte GIF, not cached', async () => {
    const hits: [CartCaller, TrackingHit][] = [];
    const app = await edge({
      async recordTracking(caller, hit) {
        hits.push([caller, hit]);
      },
    });
    const response = await app.inject({
      url: pixel(`event_id=${EVENT}&sharedId=aff-1&subId1=a&subId3=c`),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.rawPayload.length).toBe(43);
    expect(response.rawPayload.equals(TRACKING_PIXEL)).toBe(true);
    expect(TRACKING_PIXEL.toString('base64')).toBe(
      'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==',
    );
    expect(hits).toEqual([
      [
        { appId: 'app-1', sandbox: false },
        { eventId: EVENT, sharedId: 'aff-1', subId1: 'a', subId2: '', subId3: 'c' },
      ],
    ]);
    // The pixel spends none of the app's quota: no Rate-Limit answer, no key checked.
    expect(response.headers['rate-limit']).toBeUndefined();
    expect(harness!.keysSeen).toEqual([`tracking:${TRACKING_ID}`]);
  });

  it('refuses the API key on the pixel, an unknown tracking id and a non-distributor', async () => {
    const app = await edge({
      async recordTracking() {
        throw new Error('nothing may be recorded');
      },
    });
    const withApiKey = await app.inject({ url: withKey(pixel(`event_id=${EVENT}`)) });
    expect(withApiKey.statusCode).toBe(400);
    expect(withApiKey.json()).toEqual(errorOf(400, '10002'));
    const keyOnly = await app.inject({ url: withKey(`${P}/tracking?event_id=${EVENT}`) });
    expect(keyOnly.statusCode).toBe(400);
    const inHeader = await app.inject({
      url: pixel(`event_id=${EVENT}`),
      headers: { 'x-api-key': KEY },
    });
    expect(inHeader.statusCode).toBe(400);
    expect(harness!.keysSeen).toEqual([]);
    const none = await app.inject({ url: `${P}/tracking?event_id=${EVENT}` });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual(errorOf(401, '10001'));
    const unknown = await app.inject({
      url: `${P}/tracking?tracking_id=mqt_unknownunknownunknow&event_id=${EVENT}`,
    });
    expect(unknown.statusCode).toBe(401);
    const plain = await app.inject({
      url: `${P}/tracking?tracking_id=${NOT_DISTRIBUTOR_TRACKING_ID}&event_id=${EVENT}`,
    });
    expect(plain.statusCode).toBe(403);
    expect(plain.json()).toEqual(errorOf(403, '10003'));
  });

  it.each([
    ['no event id', ''],
    ['a bad event id', 'event_id=abc'],
    ['a sharedId over 32 characters', `event_id=${EVENT}&sharedId=${'s'.repeat(33)}`],
    ['a subId2 over 32 characters', `event_id=${EVENT}&subId2=${'s'.repeat(33)}`],
    ['a repeated event id', `event_id=${EVENT}&event_id=${EVENT}`],
  ])('refuses %s with 400 code 10002', async (_label, query) => {
    const app = await edge({});
    const response = await app.inject({ url: pixel(query) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorOf(400, '10002'));
  });
});

describe('fuzzing: bad input is never a 500', () => {
  const cases: [string, InjectOptions][] = [
    [
      'not JSON',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        headers: { 'content-type': 'application/json' },
        payload: '{"reserve":',
      },
    ],
    [
      'an empty JSON body',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        headers: { 'content-type': 'application/json' },
        payload: '',
      },
    ],
    [
      'JSON null',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        headers: { 'content-type': 'application/json' },
        payload: 'null',
      },
    ],
    [
      'a JSON array',
      { method: 'POST', url: `/events/${EVENT}/cart`, payload: [1, 2] as unknown as object },
    ],
    ['no reserve', { method: 'POST', url: `/events/${EVENT}/cart`, payload: {} }],
    [
      'no tickets',
      { method: 'POST', url: `/events/${EVENT}/cart`, payload: { reserve: { tickets: [] } } },
    ],
    [
      'a string quantity',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: '2' }] } },
      },
    ],
    [
      'a numeric ticket id',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: 1, quantity: 2 }] } },
      },
    ],
    [
      'a zero quantity',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 0 }] } },
      },
    ],
    [
      'a fractional quantity',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1.5 }] } },
      },
    ],
    [
      'a huge quantity',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1e20 }] } },
      },
    ],
    [
      'a string price id',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1, price: { id: 'x' } }] } },
      },
    ],
    [
      'a negative price amount',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1, price: { amount: -1 } }] } },
      },
    ],
    [
      'a huge ticket id',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: 'x'.repeat(100_000), quantity: 1 }] } },
      },
    ],
    [
      'end seat before begin seat',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1 }], begin_seat: 9, end_seat: 3 } },
      },
    ],
    [
      'a string seat',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1 }], begin_seat: '9' } },
      },
    ],
    [
      'a string accept_best_available',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: { reserve: { tickets: [{ id: '1', quantity: 1 }], accept_best_available: 'yes' } },
      },
    ],
    [
      'too many additional reserves',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        payload: {
          ...reserveBody,
          additional_reserves: Array.from({ length: 11 }, () => reserveBody.reserve),
        },
      },
    ],
    [
      'an unknown field',
      { method: 'POST', url: `/events/${EVENT}/cart`, payload: { ...reserveBody, seats: 'all' } },
    ],
    [
      'a huge Idempotency-Key',
      {
        method: 'POST',
        url: `/events/${EVENT}/cart`,
        headers: { 'idempotency-key': 'k'.repeat(300) },
        payload: reserveBody,
      },
    ],
    ['a bad event id', { method: 'POST', url: `/events/bad/cart`, payload: reserveBody }],
    ['no cart id', { method: 'GET', url: `/events/${EVENT}/cart` }],
    ['a repeated cart id', { method: 'GET', url: `/events/${EVENT}/cart?cart_id=a&cart_id=b` }],
    [
      'a huge cart id',
      { method: 'GET', url: `/events/${EVENT}/cart?cart_id=${'c'.repeat(10_000)}` },
    ],
    ['a cart id with spaces', { method: 'DELETE', url: `/events/${EVENT}/cart?cart_id=a%20b` }],
    [
      'a three-letter region',
      { method: 'GET', url: `/events/${EVENT}/cart/shipping?cart_id=c&region=USA` },
    ],
    [
      'shipping without shipping_id',
      { method: 'PUT', url: `/events/${EVENT}/cart/shipping`, payload: { cart_id: 'c' } },
    ],
    [
      'a numeric shipping_id',
      {
        method: 'PUT',
        url: `/events/${EVENT}/cart/shipping`,
        payload: { cart_id: 'c', shipping_id: 5 },
      },
    ],
    [
      'a payment without payment',
      { method: 'PUT', url: `/events/${EVENT}/cart/payment`, payload: { cartId: 'c' } },
    ],
    [
      'a payment as a string',
      {
        method: 'PUT',
        url: `/events/${EVENT}/cart/payment`,
        payload: { cartId: 'c', payment: 'cash' },
      },
    ],
    [
      'a commit with a numeric cart id',
      { method: 'PUT', url: `/events/${EVENT}/cart`, payload: { cart_id: 42 } },
    ],
    ['a commit without any cart id', { method: 'PUT', url: `/events/${EVENT}/cart`, payload: {} }],
  ];

  it.each(cases)('%s → 4xx with the family body', async (_label, request) => {
    const app = await edge({});
    const response = await app.inject({ ...request, url: withKey(`${P}${request.url as string}`) });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.json()).toEqual(errorOf(response.statusCode, '10002'));
  });

  it('answers 415 for a body that is not JSON and 413 for one over 1 MiB', async () => {
    const app = await edge({});
    const text = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      headers: { 'content-type': 'application/xml' },
      payload: '<reserve quantity="2"/>',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual(errorOf(415, '10002'));
    const huge = await app.inject({
      method: 'POST',
      url: withKey(`${P}/events/${EVENT}/cart`),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token: 'x'.repeat(1_100_000), ...reserveBody }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toEqual(errorOf(413, '10002'));
  });
});

describe('secrets never reach the logs', () => {
  it('logs neither the payment nonce, the CIN nor the order token, on success or failure', async () => {
    let failPayment = false;
    const app = await edge({
      async addPayment(_caller, input) {
        if (failPayment) {
          // A careless back end that puts the billing into its error: still never logged.
          throw Object.assign(new Error('processor exploded'), { billing: input.billing });
        }
        return heldCart({ status: 'PAID' });
      },
      commitCart: async () => ({
        cart: heldCart({ status: 'COMMITTED' }),
        order: {
          orderId: 'o',
          orderNumber: 'n',
          redemptionUrl: '',
          status: 'CONFIRMED',
          printed: false,
        },
        orderToken: 'order-token-SECRET-77',
      }),
    });
    const payment = {
      method: 'PUT' as const,
      url: withKey(`${P}/events/${EVENT}/cart/payment`),
      payload: billingBody(),
    };
    expect((await app.inject(payment)).statusCode).toBe(200);
    failPayment = true;
    expect((await app.inject(payment)).statusCode).toBe(500);
    // Invalid billing (the nonce is in a refused body) and a body that is not JSON.
    expect(
      (await app.inject({ ...payment, payload: billingBody({ amount: 'lots' }) })).statusCode,
    ).toBe(400);
    expect(
      (
        await app.inject({
          ...payment,
          headers: { 'content-type': 'application/json' },
          payload: `${JSON.stringify(billingBody())}}`,
        })
      ).statusCode,
    ).toBe(400);
    const commit = await app.inject({
      method: 'PUT',
      url: withKey(`${P}/events/${EVENT}/cart`),
      payload: { cart_id: 'cart-1' },
    });
    expect(commit.json().order_token).toBe('order-token-SECRET-77');

    const logs = harness!.logs.join('\n');
    expect(harness!.logs.length).toBeGreaterThan(8);
    expect(logs).toContain('processor exploded');
    expect(logs).not.toContain('nonce-SECRET-4c1e9f');
    expect(logs).not.toContain('"737"');
    expect(logs).not.toContain('\\"737\\"');
    expect(logs).not.toContain('order-token-SECRET-77');
    expect(logs).not.toContain(KEY);
  });
});

describe('OpenAPI', () => {
  it('documents every partner cart route under both prefixes with every status it answers', async () => {
    const app = await edge({});
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const expected: Record<string, Record<string, string[]>> = {
      '/events/{event_id}/availability': {
        get: ['200', '400', '401', '403', '404', '405', '429', '503', '504'],
      },
      '/events/{event_id}/cart': {
        post: [
          '200',
          '202',
          '400',
          '401',
          '403',
          '404',
          '405',
          '409',
          '413',
          '415',
          '422',
          '429',
          '503',
          '504',
        ],
        get: ['200', '202', '400', '401', '402', '403', '404', '409', '429', '503', '504'],
        put: ['200', '400', '401', '402', '404', '409', '413', '415', '422', '429', '503', '504'],
        delete: ['204', '400', '401', '404', '429', '503', '504'],
      },
      '/events/{event_id}/cart/shipping': {
        get: ['200', '400', '401', '404', '429', '503', '504'],
        put: ['200', '400', '401', '404', '409', '413', '415', '429', '503', '504'],
      },
      '/events/{event_id}/cart/payment': {
        put: ['200', '400', '401', '402', '404', '409', '413', '415', '422', '429', '503', '504'],
      },
      '/tracking': { get: ['200', '400', '401', '429', '503', '504'] },
    };
    for (const prefix of [P, PRE]) {
      for (const [path, methods] of Object.entries(expected)) {
        for (const [method, statuses] of Object.entries(methods)) {
          const operation = doc.paths[`${prefix}${path}`]?.[method];
          expect(operation, `${method} ${prefix}${path}`).toBeDefined();
          expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(statuses));
        }
      }
    }
  });
});
