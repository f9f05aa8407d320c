import { afterEach, describe, expect, it } from 'vitest';
import type { CancelReason, OrderRecord, PrintAction } from '../src/app/partner-cart.js';
import {
  ADMIN_TOKEN,
  EVENT,
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

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const anOrder: OrderRecord = {
  order: {
    orderId: 'ord-1',
    orderNumber: '12-34567/LA',
    grandTotal: usd(6374),
    redemptionUrl: 'https://tickets.example.com/orders/ord-1',
    status: 'CONFIRMED',
    confirmedAt: new Date('2030-01-01T00:00:00Z'),
    printed: false,
  },
  eventId: EVENT,
  cartId: 'cart-1',
  tickets: [
    {
      ticketId: 't-1',
      seat: '7',
      areaId: 'A1',
      section: '101',
      row: 'C',
      priceLevelId: 'PL1',
      priceTypeId: '000001',
      unitPrice: usd(2550),
      inventoryType: 'PRIMARY',
    },
  ],
};

/** `anOrder` as the admin routes answer it. */
const anOrderJson = {
  order: {
    orderId: 'ord-1',
    orderNumber: '12-34567/LA',
    grandTotal: { amountMinor: 6374, currency: 'USD' },
    redemptionUrl: 'https://tickets.example.com/orders/ord-1',
    status: 'CONFIRMED',
    confirmedAt: '2030-01-01T00:00:00.000Z',
    printed: false,
  },
  eventId: EVENT,
  cartId: 'cart-1',
  tickets: [
    {
      ticketId: 't-1',
      seat: '7',
      areaId: 'A1',
      section: '101',
      row: 'C',
      priceLevelId: 'PL1',
      priceTypeId: '000001',
      unitPrice: { amountMinor: 2550, currency: 'USD' },
      inventoryType: 'PRIMARY',
    },
  ],
};

describe('GET /admin/v1/orders/{orderId}', () => {
  it('answers the order with its tickets, money in minor units', async () => {
    harness = await partnerEdge({
      async getOrder(orderId) {
        expect(orderId).toBe('ord-1');
        return anOrder;
      },
    });
    const response = await harness.app.inject({ url: '/admin/v1/orders/ord-1', headers: auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(anOrderJson);
  });

  it('shows the money of the order (authorised, captured, each refund, refusals, a dispute) and a pending ticket cancel', async () => {
    const paid: OrderRecord = {
      ...anOrder,
      order: {
        ...anOrder.order,
        status: 'CANCELLED',
        payment: {
          provider: 'stripe',
          paymentId: 'pi_1',
          authorized: usd(6374),
          captured: usd(6374),
          refunded: usd(1000),
          refunds: [
            {
              refundId: 're_1',
              amount: usd(1000),
              status: 'succeeded',
              source: 'processor',
              ticketIds: [],
              refundedAt: new Date('2030-01-02T00:00:00Z'),
            },
          ],
          refundPending: false,
          disputed: true,
          refusedRefunds: [
            {
              key: 'order:ord-1:t-2',
              reason: 'charge_already_refunded',
              refusedAt: new Date('2030-01-03T00:00:00Z'),
            },
          ],
        },
        pendingTicketCancel: {
          ticketIds: ['t-1'],
          requestedAt: new Date('2030-01-04T00:00:00Z'),
          attempts: 2,
          lastError: 'partner down',
          nextAttemptAt: new Date('2030-01-04T00:01:00Z'),
        },
      },
    };
    harness = await partnerEdge({ getOrder: async () => paid });
    const response = await harness.app.inject({ url: '/admin/v1/orders/ord-1', headers: auth });
    expect(response.statusCode).toBe(200);
    expect(response.json().order.payment).toEqual({
      provider: 'stripe',
      paymentId: 'pi_1',
      authorized: { amountMinor: 6374, currency: 'USD' },
      captured: { amountMinor: 6374, currency: 'USD' },
      refunded: { amountMinor: 1000, currency: 'USD' },
      refunds: [
        {
          refundId: 're_1',
          amount: { amountMinor: 1000, currency: 'USD' },
          status: 'succeeded',
          source: 'processor',
          ticketIds: [],
          refundedAt: '2030-01-02T00:00:00.000Z',
        },
      ],
      refundPending: false,
      disputed: true,
      refusedRefunds: [
        {
          key: 'order:ord-1:t-2',
          reason: 'charge_already_refunded',
          refusedAt: '2030-01-03T00:00:00.000Z',
        },
      ],
    });
    expect(response.json().order.pendingTicketCancel).toEqual({
      ticketIds: ['t-1'],
      requestedAt: '2030-01-04T00:00:00.000Z',
      attempts: 2,
      lastError: 'partner down',
      nextAttemptAt: '2030-01-04T00:01:00.000Z',
    });
  });

  it('needs the admin token, refuses a malformed id and answers 404 for an unknown order', async () => {
    harness = await partnerEdge({
      async getOrder() {
        throw Object.assign(new Error('order nope not found'), { kind: 'not_found' });
      },
    });
    expect((await harness.app.inject({ url: '/admin/v1/orders/ord-1' })).statusCode).toBe(401);
    const malformed = await harness.app.inject({ url: '/admin/v1/orders/a%20b', headers: auth });
    expect(malformed.statusCode).toBe(400);
    const unknown = await harness.app.inject({ url: '/admin/v1/orders/nope', headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: { code: 'not_found', message: 'order nope not found' },
    });
  });
});

describe('POST /admin/v1/orders/{orderId}/cancel', () => {
  it('cancels with the reason and detail (default REQUESTED) and says when the partner cancel is queued', async () => {
    const asked: [string, CancelReason | undefined, string][] = [];
    harness = await partnerEdge({
      async cancelOrder(orderId, reason, detail) {
        asked.push([orderId, reason, detail]);
        return {
          order: { ...anOrder.order, status: 'CANCELLED' },
          partnerCancelQueued: reason === 'EVENT_CANCELLED',
          tickets: anOrder.tickets,
        };
      },
    });
    const withReason = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/cancel',
      headers: auth,
      payload: { reason: 'EVENT_CANCELLED', detail: 'storm' },
    });
    expect(withReason.statusCode).toBe(200);
    expect(withReason.json()).toMatchObject({
      order: { orderId: 'ord-1', status: 'CANCELLED' },
      partnerCancelQueued: true,
    });
    const bare = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/cancel',
      headers: auth,
    });
    expect(bare.statusCode).toBe(200);
    expect(bare.json().partnerCancelQueued).toBe(false);
    expect(asked).toEqual([
      ['ord-1', 'EVENT_CANCELLED', 'storm'],
      ['ord-1', 'REQUESTED', ''],
    ]);
  });

  it('refuses an unknown reason (400) and answers a cancel of a cancelled order 409', async () => {
    harness = await partnerEdge({
      async cancelOrder() {
        throw Object.assign(new Error('order ord-1 is already cancelled'), {
          kind: 'failed_precondition',
        });
      },
    });
    const badReason = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/cancel',
      headers: auth,
      payload: { reason: 'BORED' },
    });
    expect(badReason.statusCode).toBe(400);
    const conflict = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/cancel',
      headers: auth,
      payload: {},
    });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('failed_precondition');
  });
});

describe('POST /admin/v1/orders/{orderId}/cancel with ticketIds (a partial cancel)', () => {
  it('passes the tickets to cart and answers the tickets with the cancelled ones marked', async () => {
    const asked: (readonly string[] | undefined)[] = [];
    const at = new Date('2030-06-01T12:00:00Z');
    harness = await partnerEdge({
      async cancelOrder(_orderId, _reason, _detail, ticketIds) {
        asked.push(ticketIds);
        return {
          order: anOrder.order,
          partnerCancelQueued: false,
          tickets: anOrder.tickets.map((t, i) => (i === 0 ? { ...t, cancelledAt: at } : t)),
        };
      },
    });
    const first = anOrder.tickets[0]!.ticketId;
    const answer = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/cancel',
      headers: auth,
      payload: { ticketIds: [first] },
    });
    expect(answer.statusCode).toBe(200);
    expect(asked).toEqual([[first]]);
    expect(answer.json().tickets[0]).toMatchObject({
      ticketId: first,
      cancelledAt: at.toISOString(),
    });
    expect(
      answer
        .json()
        .tickets.slice(1)
        .some((t: object) => 'cancelledAt' in t),
    ).toBe(false);
  });

  it('answers malformed ticketIds 400 without calling cart, and cart refusals 400 and 409', async () => {
    let calls = 0;
    const refusals = [
      Object.assign(new Error('order ord-1 has no ticket nope'), { kind: 'invalid_argument' }),
      Object.assign(new Error('the partner of order ord-1 cancels whole orders only'), {
        kind: 'failed_precondition',
      }),
    ];
    harness = await partnerEdge({
      async cancelOrder() {
        throw refusals[calls++]!;
      },
    });
    const cancel = (payload: unknown) =>
      harness!.app.inject({
        method: 'POST',
        url: '/admin/v1/orders/ord-1/cancel',
        headers: auth,
        payload: payload as object,
      });
    for (const bad of [
      { ticketIds: [] },
      { ticketIds: 'T1' },
      { ticketIds: ['T1', 'T1'] },
      { ticketIds: [''] },
    ]) {
      const answer = await cancel(bad);
      expect(answer.statusCode).toBe(400);
      expect(answer.json().error).toEqual(expect.objectContaining({ code: expect.any(String) }));
    }
    expect(calls).toBe(0);
    const unknown = await cancel({ ticketIds: ['nope'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('nope');
    const whole = await cancel({ ticketIds: ['T1'] });
    expect(whole.statusCode).toBe(409);
    expect(whole.json().error.message).toContain('whole orders only');
  });
});

describe('POST /admin/v1/orders/{orderId}/print', () => {
  const print = (payload?: unknown, headers: Record<string, string> = auth) =>
    harness!.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/ord-1/print',
      headers: {
        ...headers,
        ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });

  it('records the action (default PRINT) and answers the order with its tickets', async () => {
    const asked: [string, PrintAction][] = [];
    harness = await partnerEdge({
      async printOrder(orderId, action) {
        asked.push([orderId, action]);
        return { ...anOrder, order: { ...anOrder.order, printed: action === 'PRINT' } };
      },
    });
    const printed = await print({ action: 'PRINT' });
    expect(printed.statusCode).toBe(200);
    // The order as GET /admin/v1/orders/{orderId} answers it.
    expect(printed.json()).toEqual({
      ...anOrderJson,
      order: { ...anOrderJson.order, printed: true },
    });
    const rolledBack = await print({ action: 'ROLLBACK_PRINT' });
    expect(rolledBack.statusCode).toBe(200);
    expect(rolledBack.json().order.printed).toBe(false);
    expect((await print({})).statusCode).toBe(200);
    expect((await print()).statusCode).toBe(200);
    expect(asked).toEqual([
      ['ord-1', 'PRINT'],
      ['ord-1', 'ROLLBACK_PRINT'],
      ['ord-1', 'PRINT'],
      ['ord-1', 'PRINT'],
    ]);
  });

  it('answers bad input 400 in the admin body, never a 500, without calling cart', async () => {
    let calls = 0;
    harness = await partnerEdge({
      async printOrder() {
        calls += 1;
        return anOrder;
      },
    });
    for (const payload of [
      { action: 'REPRINT' },
      { action: 'print' },
      { action: 1 },
      { action: 'PRINT', detail: 'extra' },
      [],
      '"PRINT"',
      '{"action": "PRINT"',
    ]) {
      const refused = await print(payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json()).toEqual({
        error: { code: expect.any(String), message: expect.any(String) },
      });
    }
    const malformed = await harness.app.inject({
      method: 'POST',
      url: '/admin/v1/orders/a%20b/print',
      headers: auth,
      payload: {},
    });
    expect(malformed.statusCode).toBe(400);
    expect((await print({ action: 'PRINT' }, {})).statusCode).toBe(401);
    expect(calls).toBe(0);
  });

  it("answers cart's refusals: 404 unknown, 409 not printable, 503 partner down", async () => {
    const refusals = [
      partnerFailure('not_found', '90003', 'order ord-1 not found'),
      partnerFailure(
        'failed_precondition',
        '90003',
        'order ord-1 is CANCELLED: only a confirmed order can be printed',
      ),
      partnerFailure('unavailable', '20001', 'the partner did not take PRINT of order ord-1'),
    ];
    harness = await partnerEdge({
      async printOrder() {
        throw refusals.shift();
      },
    });
    const unknown = await print({ action: 'PRINT' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: { code: '90003', message: 'order ord-1 not found' },
    });
    const conflict = await print({ action: 'PRINT' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({
      error: {
        code: '90003',
        message: 'order ord-1 is CANCELLED: only a confirmed order can be printed',
      },
    });
    const down = await print({ action: 'PRINT' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('1');
    expect(down.json().error.code).toBe('20001');
  });

  it('documents every status it answers in the OpenAPI document', async () => {
    harness = await partnerEdge({});
    const doc = (await harness.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const operation = doc.paths['/admin/v1/orders/{orderId}/print']?.post;
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '404', '409', '413', '414', '415', '431', '500', '503', '504'].sort(),
    );
  });

  it('documents the bodies of cancel and print as optional, as the routes take no body', async () => {
    harness = await partnerEdge({});
    const doc = (await harness.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const action of ['cancel', 'print']) {
      const operation = doc.paths[`/admin/v1/orders/{orderId}/${action}`]?.post;
      expect(operation?.requestBody).toMatchObject({ required: false });
      expect(Object.keys(operation ?? {}).filter((key) => key.startsWith('x-'))).toEqual([]);
    }
    // Bodies stay required where the route needs one.
    const apps = doc.paths['/admin/v1/apps']?.post;
    expect(apps?.requestBody).toMatchObject({ required: true });
  });
});
