import { BinaryWriter } from '@bufbuild/protobuf/wire';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '@marquee/platform/errors';
import { toGrpcError } from '@marquee/platform/grpc';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import {
  CartServiceService,
  CartStatus,
  InventoryType,
  OrderStatus,
  type AddPaymentRequest,
  type Cart,
  type ReserveCartRequest,
} from '@marquee/proto/cart/v1';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCartClient } from '../src/adapters/cart-client.js';
import { errorInfoOf } from '../src/adapters/cart-errors.js';
import type { PartnerCart } from '../src/app/partner-cart.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';
import {
  ADMIN_TOKEN,
  EVENT,
  KEY,
  cartTotals,
  fakeAccess,
  seatsLine,
  seatsLineTotals,
  usd,
} from './partner-cart-fixtures.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });

/** A serialised google.rpc.Status whose details hold a RetryInfo-like Any, then an ErrorInfo. */
function statusDetails(code: number, message: string, reason: string, metadata = {}): Buffer {
  const info = new BinaryWriter().uint32(10).string(reason).uint32(18).string('cart.marquee');
  for (const [key, value] of Object.entries(metadata)) {
    info
      .uint32(26)
      .fork()
      .uint32(10)
      .string(key)
      .uint32(18)
      .string(value as string)
      .join();
  }
  const any = (typeUrl: string, value: Uint8Array) =>
    new BinaryWriter().uint32(10).string(typeUrl).uint32(18).bytes(value).finish();
  const status = new BinaryWriter()
    .uint32(8)
    .int32(code)
    .uint32(18)
    .string(message)
    .uint32(26)
    .bytes(any('type.googleapis.com/google.rpc.RetryInfo', new Uint8Array([10, 2, 8, 5])))
    .uint32(26)
    .bytes(any('type.googleapis.com/google.rpc.ErrorInfo', info.finish()));
  return Buffer.from(status.finish());
}

const richError = (code: grpc.status, message: string, reason: string, metadata = {}) => {
  const trailers = new grpc.Metadata();
  trailers.set('grpc-status-details-bin', statusDetails(code, message, reason, metadata));
  return { code, details: message, metadata: trailers };
};

const protoCart = (overrides: Partial<Cart> = {}): Cart => ({
  id: 'cart-1',
  eventId: EVENT,
  items: [],
  totals: cartTotals(),
  holdTimeSeconds: 600,
  expiresAt: new Date('2099-01-01T00:10:00Z'),
  language: 'en-us',
  status: CartStatus.CART_STATUS_HELD,
  ticketItems: [
    {
      ...seatsLine(),
      tickets: [
        {
          id: '000001',
          description: 'Adult',
          quantity: 2,
          inventoryType: InventoryType.INVENTORY_TYPE_RESALE,
          charges: [
            { type: 'face_value', price: usd(2550), quantity: 2, tax: usd(0), feeType: '' },
          ],
          priceLevelId: 'PL1',
        },
      ],
      totals: seatsLineTotals(),
      seats: ['7', '8'],
      inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
    },
  ],
  delivery: undefined,
  processingFee: usd(300),
  payments: [],
  agreements: [],
  currency: 'USD',
  sandbox: true,
  order: undefined,
  failureCode: '',
  failureMessage: '',
  secureEntryEnabled: false,
  createdAt: new Date('2030-01-01T00:00:00Z'),
  ...overrides,
});

type Handler = (request: unknown) => unknown;

/**
 * A real CartService on loopback; each test sets what a method answers or throws. A thrown error
 * is answered as the platform's gRPC server answers it (toGrpcError: kind, message, JSON details).
 */
async function cartServer() {
  const handlers: Record<string, Handler> = {};
  const requests: Record<string, unknown[]> = {};
  const implementation = Object.fromEntries(
    Object.keys(CartServiceService).map((method) => [
      method,
      (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        (requests[method] ??= []).push(call.request);
        try {
          const handler = handlers[method];
          if (!handler) throw new AppError('internal', `no handler for ${method}`);
          const result = handler(call.request) as { code?: number };
          if (result && typeof result.code === 'number') callback(result as grpc.ServiceError);
          else callback(null, result);
        } catch (error) {
          callback(toGrpcError(error));
        }
      },
    ]),
  );
  // A plain grpc-js server: the platform's server re-encodes errors through toGrpcError, which
  // keeps kind, message and JSON details only; this one sends the standard status details too.
  const server = new grpc.Server();
  server.addService(CartServiceService, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const stop = () => new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  return { port, handlers, requests, stop };
}

let backend: Awaited<ReturnType<typeof cartServer>>;
let client: PartnerCart & { close(): void };
let edge: FastifyInstance;

beforeAll(async () => {
  backend = await cartServer();
  client = createCartClient(`127.0.0.1:${backend.port}`, { deadlineMs: 5_000, logger });
  edge = createHttpServer({ logger });
  await registerEdgeRoutes(edge, {
    adminToken: ADMIN_TOKEN,
    version: 'test',
    backends: fakeBackends({ partnerCart: client, developerAccess: fakeAccess() }),
  });
  await edge.ready();
});

afterAll(async () => {
  await edge.close();
  client.close();
  await backend.stop();
});

const caller = { appId: 'app-1', sandbox: true };

/** An order's Stripe payment with one pending refund (fresh each call). */
const stripePayment = () => ({
  provider: 'stripe',
  paymentId: 'pi_1',
  authorized: usd(2550),
  captured: usd(2550),
  refunds: [
    {
      refundId: 're_1',
      amount: usd(500),
      status: 'pending',
      source: 'cancel',
      ticketIds: ['t1'],
    },
  ],
  refundPending: true,
  disputed: false,
  refusedRefunds: [
    { key: 'order:o1', reason: 'charge_disputed', refusedAt: new Date('2030-01-03T00:00:00Z') },
  ],
});

/** A reserve of two seats, as the edge sends it (fresh each call). */
const seatsReserve = () => ({
  tickets: [{ id: '000001', quantity: 2, priceId: '7', amount: usd(2550) }],
  areaIds: ['A1'],
  section: '101',
  row: 'C',
  beginSeat: 7,
  endSeat: 8,
  acceptBestAvailable: true,
});

describe('cart client: requests and answers', () => {
  it('sends the reserve as ReserveCartRequest and maps the cart back', async () => {
    backend.handlers.reserveCart = () => ({ cart: protoCart(), pollAfterSeconds: 0 });
    const answer = await client.reserveCart(caller, {
      eventId: EVENT,
      reserves: [seatsReserve()],
      fanSessionId: 'sid',
      idempotencyKey: 'idem',
      forceAsync: true,
      language: 'fr-ca',
    });
    expect(backend.requests.reserveCart!.at(-1) as ReserveCartRequest).toEqual({
      appId: 'app-1',
      eventId: EVENT,
      reserves: [seatsReserve()],
      fanSessionId: 'sid',
      sandbox: true,
      idempotencyKey: 'idem',
      forceAsync: true,
      language: 'fr-ca',
    });
    expect(answer.pollAfterSeconds).toBe(0);
    expect(answer.cart).toMatchObject({
      id: 'cart-1',
      status: 'HELD',
      processingFee: usd(300),
      totals: { grand: usd(6374), unpaid: usd(6374) },
      expiresAt: new Date('2099-01-01T00:10:00Z'),
    });
    expect(answer.cart.ticketItems[0]!.tickets[0]!.inventoryType).toBe('RESALE');
    expect(answer.cart.ticketItems[0]!.inventoryType).toBe('PRIMARY');
    expect(answer.cart).not.toHaveProperty('delivery');
  });

  it('sends the billing with the nonce and CIN, and the commit answers its order token', async () => {
    backend.handlers.addPayment = () => ({
      cart: protoCart({ status: CartStatus.CART_STATUS_PAID }),
    });
    backend.handlers.commitCart = () => ({
      cart: protoCart({ status: CartStatus.CART_STATUS_COMMITTED }),
      order: {
        orderId: 'ord-1',
        orderNumber: 'N-1',
        grandTotal: usd(6374),
        redemptionUrl: 'https://r',
        status: OrderStatus.ORDER_STATUS_CONFIRMED,
        confirmedAt: new Date('2030-01-01T00:00:00Z'),
      },
      orderToken: 'tok-1',
    });
    const paid = await client.addPayment(caller, {
      eventId: EVENT,
      cartId: 'cart-1',
      idempotencyKey: 'k',
      billing: {
        firstName: 'A',
        lastName: 'B',
        homePhone: '',
        type: 'CC',
        reference: '',
        amount: usd(6374),
        cardNonce: 'nonce-1',
        cin: '123',
        expireMonth: 5,
        expireYear: 2031,
        emailAddress: 'a@b.c',
        thirdPartyAccountId: 'u1',
      },
    });
    expect(paid.status).toBe('PAID');
    const sent = backend.requests.addPayment!.at(-1) as AddPaymentRequest;
    expect(sent.billing).toMatchObject({ cardNonce: 'nonce-1', cin: '123', amount: usd(6374) });
    const committed = await client.commitCart(caller, {
      eventId: EVENT,
      cartId: 'cart-1',
      idempotencyKey: '',
    });
    expect(committed.orderToken).toBe('tok-1');
    expect(committed.order).toEqual({
      orderId: 'ord-1',
      orderNumber: 'N-1',
      grandTotal: usd(6374),
      redemptionUrl: 'https://r',
      status: 'CONFIRMED',
      confirmedAt: new Date('2030-01-01T00:00:00Z'),
      printed: false,
    });
  });

  it('reads an order for operators (no app) and cancels it with a reason', async () => {
    backend.handlers.getOrder = () => ({
      order: {
        orderId: 'o1',
        orderNumber: 'N',
        redemptionUrl: '',
        status: OrderStatus.ORDER_STATUS_CONFIRMED,
        payment: stripePayment(),
      },
      eventId: EVENT,
      cartId: 'c1',
      tickets: [
        {
          ticketId: 't1',
          seat: '7',
          item: {
            areaId: 'A1',
            section: '101',
            row: 'C',
            seats: ['7'],
            priceLevelId: 'PL1',
            priceTypeId: '000001',
            quantity: 1,
            unitPrice: usd(2550),
            inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
          },
        },
      ],
    });
    backend.handlers.cancelOrder = () => ({
      order: {
        orderId: 'o1',
        orderNumber: 'N',
        redemptionUrl: '',
        status: OrderStatus.ORDER_STATUS_CANCELLED,
      },
      partnerCancelQueued: true,
      tickets: [],
    });
    const order = await client.getOrder('o1');
    expect(backend.requests.getOrder!.at(-1)).toEqual({ orderId: 'o1', appId: '' });
    expect(order.order.payment).toEqual(stripePayment());
    expect(order.tickets).toEqual([
      {
        ticketId: 't1',
        seat: '7',
        areaId: 'A1',
        section: '101',
        row: 'C',
        priceLevelId: 'PL1',
        priceTypeId: '000001',
        unitPrice: usd(2550),
        inventoryType: 'PRIMARY',
      },
    ]);
    const cancelled = await client.cancelOrder('o1', 'EVENT_CANCELLED', 'storm');
    // No ticket ids: the whole order.
    expect(backend.requests.cancelOrder!.at(-1)).toEqual({
      orderId: 'o1',
      reason: 'CANCEL_REASON_EVENT_CANCELLED',
      detail: 'storm',
      ticketIds: [],
    });
    expect(cancelled).toMatchObject({ order: { status: 'CANCELLED' }, partnerCancelQueued: true });
  });

  it('records a print action for operators and reads the order it answers', async () => {
    backend.handlers.printOrder = () => ({
      order: {
        orderId: 'o1',
        orderNumber: 'N',
        redemptionUrl: '',
        status: OrderStatus.ORDER_STATUS_CONFIRMED,
      },
      eventId: EVENT,
      cartId: 'c1',
      tickets: [],
    });
    const printed = await client.printOrder('o1', 'PRINT');
    expect(printed).toMatchObject({
      order: { orderId: 'o1', status: 'CONFIRMED' },
      eventId: EVENT,
      cartId: 'c1',
      tickets: [],
    });
    await client.printOrder('o1', 'ROLLBACK_PRINT');
    expect(backend.requests.printOrder).toEqual([
      { orderId: 'o1', action: 'PRINT_ACTION_PRINT' },
      { orderId: 'o1', action: 'PRINT_ACTION_ROLLBACK_PRINT' },
    ]);
  });
});

describe('cart client: gRPC status and ErrorInfo → error kind and partner code', () => {
  it('reads google.rpc.ErrorInfo.reason (and its metadata) from grpc-status-details-bin', async () => {
    backend.handlers.reserveCart = () =>
      richError(grpc.status.RESOURCE_EXHAUSTED, 'no contiguous seats', '20052', {
        retry_after_seconds: '30',
      });
    const error = await client
      .reserveCart(caller, {
        eventId: EVENT,
        reserves: [],
        fanSessionId: '',
        idempotencyKey: '',
        forceAsync: false,
        language: '',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      kind: 'resource_exhausted',
      message: 'no contiguous seats',
      details: { reason: '20052', retry_after_seconds: '30' },
    });
  });

  it('takes the reason from the platform JSON details when no status details came', async () => {
    backend.handlers.getCart = () => {
      throw new AppError('not_found', 'no such cart', { details: { reason: '90003' } });
    };
    const error = await client.getCart(caller, EVENT, 'c').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found', details: { reason: '90003' } });
  });

  it('leaves an error without a reason as its kind', async () => {
    backend.handlers.releaseCart = () => {
      throw new AppError('unavailable', 'partner down');
    };
    const error = await client.releaseCart(caller, EVENT, 'c').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as AppError).details?.reason).toBeUndefined();
  });

  it('ignores status details that are not a google.rpc.Status', () => {
    expect(errorInfoOf(new Uint8Array([0xff, 0xff, 0xff]))).toBeUndefined();
    expect(errorInfoOf(new Uint8Array())).toBeUndefined();
    expect(errorInfoOf(statusDetails(9, 'm', 'idempotency-key-reused'))).toEqual({
      reason: 'idempotency-key-reused',
      domain: 'cart.marquee',
      metadata: {},
    });
  });
});

describe('edge over a real CartService: status and ErrorInfo → partner cart error body', () => {
  const payment = {
    cartId: 'cart-1',
    payment: {
      first_name: 'A',
      last_name: 'B',
      type: 'CC',
      amount: '63.74',
      currency: 'USD',
      card: { number: 'nonce-1', cin: '123', expire_month: 5, expire_year: 2031 },
      email_address: 'a@b.c',
    },
  };

  it.each([
    [grpc.status.FAILED_PRECONDITION, '20122', 402],
    [grpc.status.FAILED_PRECONDITION, '20152', 402],
    [grpc.status.FAILED_PRECONDITION, 'idempotency-key-reused', 422],
    [grpc.status.FAILED_PRECONDITION, '90003', 409],
    [grpc.status.NOT_FOUND, '90003', 404],
    [grpc.status.UNAVAILABLE, '20001', 503],
    [grpc.status.INVALID_ARGUMENT, '10002', 400],
  ])('status %i with reason %s answers %i', async (code, reason, httpStatus) => {
    backend.handlers.addPayment = () => richError(code, `refused: ${reason}`, reason);
    const response = await edge.inject({
      method: 'PUT',
      url: `/partners/v1/events/${EVENT}/cart/payment?apikey=${KEY}`,
      payload: payment,
    });
    expect(response.statusCode).toBe(httpStatus);
    expect(response.json()).toEqual({
      error: {
        message: `refused: ${reason}`,
        code: reason,
        http_code: httpStatus,
        severity: httpStatus >= 500 ? 'ERROR' : 'WARN',
      },
    });
  });

  it('answers the reserve conflict 409 with code 20052, and a held cart 200', async () => {
    backend.handlers.reserveCart = () =>
      richError(grpc.status.RESOURCE_EXHAUSTED, 'no inventory', '20052');
    const conflict = await edge.inject({
      method: 'POST',
      url: `/partners-preprod/v1/events/${EVENT}/cart?apikey=${KEY}`,
      payload: { reserve: { tickets: [{ id: '000001', quantity: 2 }] } },
    });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('20052');
    expect((backend.requests.reserveCart!.at(-1) as ReserveCartRequest).sandbox).toBe(true);

    backend.handlers.reserveCart = () => ({ cart: protoCart(), pollAfterSeconds: 0 });
    const held = await edge.inject({
      method: 'POST',
      url: `/partners/v1/events/${EVENT}/cart?apikey=${KEY}`,
      payload: { reserve: { tickets: [{ id: '000001', quantity: 2 }] } },
    });
    expect(held.statusCode).toBe(200);
    expect(held.json().cart.totals.grand).toBe(63.74);
    expect((backend.requests.reserveCart!.at(-1) as ReserveCartRequest).sandbox).toBe(false);
  });

  it('answers a reserve the cart service sheds 503 with the Retry-After it asked for', async () => {
    backend.handlers.reserveCart = () => {
      throw new AppError('unavailable', 'too many reservations in progress', {
        details: { retryAfterMs: 2_500 },
      });
    };
    const response = await edge.inject({
      method: 'POST',
      url: `/partners/v1/events/${EVENT}/cart?apikey=${KEY}`,
      payload: { reserve: { tickets: [{ id: '000001', quantity: 1 }] } },
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.json().error.http_code).toBe(503);
  });

  it('answers an unreachable cart service 503 with Retry-After', async () => {
    const down = createCartClient('127.0.0.1:9', { deadlineMs: 2_000, logger });
    const app = createHttpServer({ logger });
    await registerEdgeRoutes(app, {
      adminToken: ADMIN_TOKEN,
      version: 'test',
      backends: fakeBackends({ partnerCart: down, developerAccess: fakeAccess() }),
    });
    await app.ready();
    const response = await app.inject({
      url: `/partners/v1/events/${EVENT}/availability?apikey=${KEY}`,
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json().error.http_code).toBe(503);
    await app.close();
    down.close();
  });
});
