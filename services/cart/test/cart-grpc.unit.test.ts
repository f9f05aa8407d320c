import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import type { MemoryBus } from '@marquee/platform/bus';
import { waitFor } from '@marquee/platform/testing';
import {
  AddPaymentRequest,
  CancelReason,
  CartServiceClient,
  CartStatus,
  OrderPrinted,
  OrderStatus,
  OrderConfirmed,
  PaymentCaptured,
  PaymentRefunded,
  PrintAction,
  PrintOrderRequest,
  ReserveCartRequest,
} from '@marquee/proto/cart/v1';
import { composedCart } from './support/composed-cart.js';
import { EVENT_ID } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'cart-grpc-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');

/** cart composed as the service runs (memory bus and stores), CartService over gRPC. */
/** One ticket of app-1 reserved through `client`, once the event is sellable in cart. */
const reserveOneTicket = (client: InstanceType<typeof CartServiceClient>) =>
  waitFor(
    async () =>
      callUnary(
        client,
        'reserveCart',
        ReserveCartRequest.fromPartial({
          appId: 'app-1',
          eventId: EVENT_ID,
          reserves: [{ tickets: [{ id: '000001', quantity: 1 }], acceptBestAvailable: true }],
        }),
      ).catch(() => undefined),
    { timeoutMs: 10_000, intervalMs: 50, description: 'the event sellable in cart' },
  );

describe('CartService over gRPC: reserves and Idempotency-Key (composed cart, memory mode)', () => {
  let client: InstanceType<typeof CartServiceClient>;
  let stop: () => Promise<void>;
  // One place at the partner: the second reserve is refused as sold out.
  const connector = new FakeConnector(1, () => NOW);

  beforeAll(async () => {
    ({ client, stop } = await composedCart(CartServiceClient, {
      logger,
      now: NOW,
      available: 1,
      compose: { connector },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  const reserve = (idempotencyKey: string) =>
    callUnary(
      client,
      'reserveCart',
      ReserveCartRequest.fromPartial({
        appId: 'app-1',
        eventId: EVENT_ID,
        reserves: [
          {
            tickets: [{ id: '000001', quantity: 1 }],
            acceptBestAvailable: true,
          },
        ],
        idempotencyKey,
      }),
    );

  it('answers a retry of a reserve that made a cart with that cart, even once sold out', async () => {
    const first = await waitFor(async () => reserve('key-first').catch(() => undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      description: 'the event sellable in cart',
    });
    expect(first.cart?.status).toBe(CartStatus.CART_STATUS_HELD);
    // The cart shows what it charges: its ticket lines, the processing fee and the tax on that
    // fee add up to its total.
    const shown = first.cart!;
    const lines = shown.ticketItems.reduce(
      (sum, l) => sum + (l.totals?.grand?.amountMinor ?? 0),
      0,
    );
    expect(shown.processingFeeTax?.amountMinor).toBeGreaterThan(0);
    expect(lines + shown.processingFee!.amountMinor + shown.processingFeeTax!.amountMinor).toBe(
      shown.totals!.grand!.amountMinor,
    );

    // The partner has no place left: refused, and the sold-out hint is now live.
    const soldOut = { kind: 'resource_exhausted' };
    await expect(reserve('key-second')).rejects.toMatchObject(soldOut);
    const asked = connector.calls.createBooking;
    // A new key is refused at once, without asking the partner...
    await expect(reserve('key-third')).rejects.toMatchObject(soldOut);
    expect(connector.calls.createBooking).toBe(asked);

    // ...but the first client asking again (its answer was lost) gets its own cart.
    const retried = await reserve('key-first');
    expect(retried.cart?.id).toBe(first.cart?.id);
    expect(retried.cart?.status).toBe(CartStatus.CART_STATUS_HELD);
  });

  it('answers the available seats of a reserved area with the availability', async () => {
    connector.seats = [{ id: 'S1-A-1', row: 'A', number: '1' }];
    const answer = await callUnary(client, 'getEventAvailability', {
      appId: 'app-1',
      eventId: EVENT_ID,
      sandbox: false,
    });
    expect(answer.areas[0]?.availableSeats).toEqual([{ id: 'S1-A-1', row: 'A', number: '1' }]);
  });
});

/** PrintOrder over gRPC, on orders committed through the same service (composed, memory mode). */
describe('CartService over gRPC: PrintOrder', () => {
  let client: InstanceType<typeof CartServiceClient>;
  let bus: MemoryBus;
  let stop: () => Promise<void>;
  const connector = new FakeConnector(10, () => NOW);

  beforeAll(async () => {
    ({ client, bus, stop } = await composedCart(CartServiceClient, {
      logger,
      now: NOW,
      available: 10,
      compose: { connector },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  /** Reserve one ticket, pay it, commit: the order id. */
  async function buy(): Promise<string> {
    const reserved = await reserveOneTicket(client);
    const cart = reserved.cart!;
    await callUnary(
      client,
      'addPayment',
      AddPaymentRequest.fromPartial({
        appId: 'app-1',
        eventId: EVENT_ID,
        cartId: cart.id,
        billing: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          type: 'CC',
          amount: cart.totals!.unpaid!,
          cardNonce: 'fake-valid-nonce',
          cin: '123',
          expireMonth: 12,
          expireYear: 2032,
          emailAddress: 'ada@example.test',
        },
      }),
    );
    const committed = await callUnary(client, 'commitCart', {
      appId: 'app-1',
      eventId: EVENT_ID,
      cartId: cart.id,
      sandbox: false,
      idempotencyKey: '',
    });
    return committed.order!.orderId;
  }

  const print = (orderId: string, action?: PrintAction) =>
    callUnary(client, 'printOrder', PrintOrderRequest.fromPartial({ orderId, action }));

  /** The actions of the `order-printed` records of an order, in order, once there are `count`. */
  const printedActions = (orderId: string, count: number) =>
    waitFor(
      () => {
        const actions = bus
          .records('order-printed')
          .filter((r) => r.key === orderId)
          .map((r) => OrderPrinted.decode(r.value!).action);
        return actions.length >= count ? actions : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20, description: `${count} order-printed of ${orderId}` },
    );

  it('prints (PRINT when no action is given), refuses a second print, rolls back', async () => {
    const orderId = await buy();
    const read = await callUnary(client, 'getOrder', { orderId, appId: '' });

    expect(read.order?.printed).toBe(false);
    // The money of the order: the sandbox payment, authorised and captured, nothing refunded.
    const grand = read.order!.grandTotal!;
    expect(read.order?.payment).toMatchObject({
      provider: 'sandbox',
      paymentId: expect.stringMatching(/^sbx_/),
      authorized: grand,
      captured: grand,
      refunded: { amountMinor: 0, currency: grand.currency },
      refunds: [],
      refundPending: false,
      disputed: false,
    });
    const printed = await print(orderId);
    // The order as GetOrder answers it (but the buyer fields GetOrder adds), printed now.
    const asPrinted = ({ fanId, contactErasedAt, ...rest }: typeof read) => {
      expect({ fanId, contactErasedAt }).toEqual({ fanId: '', contactErasedAt: undefined });
      return rest;
    };
    expect(printed).toEqual({ ...asPrinted(read), order: { ...read.order, printed: true } });
    expect(asPrinted(await callUnary(client, 'getOrder', { orderId, appId: '' }))).toEqual(printed);
    expect(printed.order).toMatchObject({ orderId, status: OrderStatus.ORDER_STATUS_CONFIRMED });
    expect(printed.tickets).toHaveLength(1);
    expect(connector.printed.size).toBe(1);
    await printedActions(orderId, 1);
    const [message] = bus.records('order-printed').filter((r) => r.key === orderId);
    expect(OrderPrinted.decode(message!.value!)).toMatchObject({
      orderId,
      eventId: EVENT_ID,
      action: PrintAction.PRINT_ACTION_PRINT,
      sandbox: false,
    });

    // The partner refuses to print a printed order: nothing recorded.
    await expect(print(orderId, PrintAction.PRINT_ACTION_PRINT)).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringContaining('already been printed'),
      details: { reason: '90003' },
    });

    const rolledBack = await print(orderId, PrintAction.PRINT_ACTION_ROLLBACK_PRINT);
    expect(rolledBack.order).toMatchObject({
      orderId,
      status: OrderStatus.ORDER_STATUS_CONFIRMED,
      printed: false,
    });
    expect(connector.printed.size).toBe(0);
    expect(await printedActions(orderId, 2)).toEqual([
      PrintAction.PRINT_ACTION_PRINT,
      PrintAction.PRINT_ACTION_ROLLBACK_PRINT,
    ]);
    // Nor does it roll back an order that is not printed.
    await expect(print(orderId, PrintAction.PRINT_ACTION_ROLLBACK_PRINT)).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringContaining('has not been printed'),
    });
    expect(bus.records('order-printed').filter((r) => r.key === orderId)).toHaveLength(2);
  });

  it('answers NOT_FOUND for an unknown order and INVALID_ARGUMENT for an unknown action', async () => {
    const calls = connector.calls.printOrder;
    await expect(print('no-such-order')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'order no-such-order not found',
      details: { reason: '90003' },
    });
    const orderId = await buy();
    await expect(print(orderId, PrintAction.UNRECOGNIZED)).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: { reason: '10002', field: 'action' },
    });
    expect(connector.calls.printOrder).toBe(calls);
  });

  it('refuses a cancelled order (FAILED_PRECONDITION) without asking the partner', async () => {
    const orderId = await buy();
    await callUnary(client, 'cancelOrder', {
      ticketIds: [],
      orderId,
      reason: CancelReason.CANCEL_REASON_REQUESTED,
      detail: 'test',
    });
    const calls = connector.calls.printOrder;
    for (const action of [PrintAction.PRINT_ACTION_PRINT, PrintAction.PRINT_ACTION_ROLLBACK_PRINT])
      await expect(print(orderId, action)).rejects.toMatchObject({
        kind: 'failed_precondition',
        message: expect.stringContaining(`order ${orderId} is CANCELLED: only a confirmed order`),
        details: { reason: '90003' },
      });
    expect(connector.calls.printOrder).toBe(calls);
  });

  it('publishes the capture before the order, and the order with its payment', async () => {
    const orderId = await buy();
    const [capture] = await waitFor(
      () => {
        const found = bus
          .records('payment-captured')
          .map((r) => PaymentCaptured.decode(r.value!))
          .filter((m) => m.orderId === orderId);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20, description: `payment-captured of ${orderId}` },
    );
    const [confirmed] = await waitFor(
      () => {
        const found = bus.records('order-confirmed').filter((r) => r.key === orderId);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20, description: `order-confirmed of ${orderId}` },
    );
    const order = OrderConfirmed.decode(confirmed!.value!);
    expect(capture).toMatchObject({
      cartId: order.cartId,
      eventId: EVENT_ID,
      provider: 'sandbox',
      paymentId: order.payment!.paymentId,
      amount: order.grandTotal,
      sandbox: false,
    });
    expect(order.payment).toMatchObject({ captured: order.grandTotal, provider: 'sandbox' });
  });

  it('cancelling refunds the captured payment once, on the order and on payment-refunded', async () => {
    const orderId = await buy();
    const cancel = () =>
      callUnary(client, 'cancelOrder', {
        ticketIds: [],
        orderId,
        reason: CancelReason.CANCEL_REASON_REQUESTED,
        detail: 'buyer asked',
      });
    const { order } = await cancel();
    const grand = order!.grandTotal!;
    expect(order?.status).toBe(OrderStatus.ORDER_STATUS_CANCELLED);
    expect(order?.payment).toMatchObject({
      provider: 'sandbox',
      refunded: grand,
      refundPending: false,
      refunds: [
        {
          refundId: expect.stringMatching(/^sbx_re_/),
          amount: grand,
          status: 'succeeded',
          source: 'cancel',
          ticketIds: [],
        },
      ],
    });
    // A second cancel is a no-op: no second refund.
    const again = await cancel();
    expect(again.order?.payment?.refunds).toHaveLength(1);
    const records = await waitFor(
      () => {
        const found = bus.records('payment-refunded').filter((r) => r.key === orderId);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20, description: `payment-refunded of ${orderId}` },
    );
    expect(records).toHaveLength(1);
    expect(PaymentRefunded.decode(records[0]!.value!)).toMatchObject({
      orderId,
      eventId: EVENT_ID,
      appId: 'app-1',
      provider: 'sandbox',
      paymentId: order!.payment!.paymentId,
      refundId: order!.payment!.refunds[0]!.refundId,
      amount: grand,
      refundedTotal: grand,
      status: 'succeeded',
      source: 'cancel',
      sandbox: false,
    });
  });

  it('HandleStripeEvent: a dispute cancels the order once; a replay is a duplicate; bad JSON is refused', async () => {
    const orderId = await buy();
    const { order } = await callUnary(client, 'getOrder', { orderId, appId: '' });
    const dispute = {
      eventId: `evt_dispute_${orderId}`,
      type: 'charge.dispute.created',
      objectJson: JSON.stringify({
        id: 'dp_1',
        payment_intent: order!.payment!.paymentId,
        reason: 'fraudulent',
      }),
      created: NOW,
    };
    expect(await callUnary(client, 'handleStripeEvent', dispute)).toEqual({
      duplicate: false,
      outcome: 'dispute-recorded',
    });
    const after = await callUnary(client, 'getOrder', { orderId, appId: '' });
    expect(after.order).toMatchObject({
      status: OrderStatus.ORDER_STATUS_CANCELLED,
      payment: { disputed: true, refunds: [] },
    });
    expect(await callUnary(client, 'handleStripeEvent', dispute)).toEqual({
      duplicate: true,
      outcome: 'duplicate',
    });
    await expect(
      callUnary(client, 'handleStripeEvent', { ...dispute, eventId: 'evt_bad', objectJson: '[' }),
    ).rejects.toMatchObject({ kind: 'invalid_argument', details: { field: 'object_json' } });
  });

  it('answers UNAVAILABLE while the partner is down, and prints once it is back', async () => {
    const orderId = await buy();
    connector.down = true;
    try {
      await expect(print(orderId)).rejects.toMatchObject({
        kind: 'unavailable',
        details: { reason: '20001' },
      });
    } finally {
      connector.down = false;
    }
    expect(connector.calls.printOrder).toBeGreaterThan(0);
    await print(orderId);
    expect(await printedActions(orderId, 1)).toEqual([PrintAction.PRINT_ACTION_PRINT]);
  });
});

/** AddPayment under an Idempotency-Key: what the request digest covers (card data). */
describe('CartService over gRPC: AddPayment Idempotency-Key and card data', () => {
  let client: InstanceType<typeof CartServiceClient>;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ client, stop } = await composedCart(CartServiceClient, {
      logger,
      now: NOW,
      available: 4,
      compose: { connector: new FakeConnector(4, () => NOW) },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  it('leaves the CVV out of the digest but tells a retry with another card apart', async () => {
    const reserved = await reserveOneTicket(client);
    const cart = reserved.cart!;
    const pay = (cardNonce: string, cin: string) =>
      callUnary(
        client,
        'addPayment',
        AddPaymentRequest.fromPartial({
          appId: 'app-1',
          eventId: EVENT_ID,
          cartId: cart.id,
          idempotencyKey: 'pay-card-1',
          billing: {
            firstName: 'Ada',
            lastName: 'Lovelace',
            type: 'CC',
            amount: cart.totals!.unpaid!,
            cardNonce,
            cin,
            expireMonth: 12,
            expireYear: 2032,
            emailAddress: 'ada@example.test',
          },
        }),
      );
    const first = await pay('fake-valid-nonce', '123');
    // The same card with another CVV is the same request: the first answer again.
    expect(await pay('fake-valid-nonce', '999')).toEqual(first);
    // Another card is another request.
    await expect(pay('fake-other-nonce', '123')).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: 'idempotency-key-reused' },
    });
  });
});
