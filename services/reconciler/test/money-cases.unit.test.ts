import { beforeEach, describe, expect, it } from 'vitest';
import type { ReconcilerApp } from '../src/app/reconciler-app.js';
import { FakeConnector, GRACE, testReconciler } from './fakes.js';

const start = new Date('2030-03-01T12:00:00Z');
let clock: Date;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
let sut: ReconcilerApp;

beforeEach(() => {
  clock = start;
  ({ app: sut } = testReconciler(new FakeConnector(), () => clock));
});

const captured = (cartId: string, amountMinor = 10_100) =>
  sut.recordPaymentCaptured({
    kind: 'payment-captured',
    cartId,
    orderId: `ord-${cartId}`,
    eventId: 'ev-1',
    partnerId: 'p-1',
    provider: 'stripe',
    paymentId: `pi_${cartId}`,
    amountMinor,
    currency: 'GBP',
    capturedAt: clock,
  });
const confirmed = (cartId: string, capturedMinor: number | undefined, grandMinor = 10_100) =>
  sut.recordOrderConfirmed({
    kind: 'order-confirmed',
    orderId: `ord-${cartId}`,
    cartId,
    eventId: 'ev-1',
    partnerId: 'p-1',
    inventoryToken: `tok-${cartId}`,
    inventoryOrderId: `INV-${cartId}`,
    confirmedAt: clock,
    ...(capturedMinor === undefined
      ? {}
      : {
          payment: {
            provider: 'stripe',
            paymentId: `pi_${cartId}`,
            currency: 'GBP',
            capturedMinor,
          },
          grandMinor,
        }),
  });

describe('money cases', () => {
  it('reports a capture no order followed, after the grace period, once, with its action', async () => {
    await captured('cart-1');
    expect(await sut.sweepMoneyChecks()).toBe(0); // within the grace period
    advance(GRACE + 1);
    expect(await sut.sweepMoneyChecks()).toBe(1);
    const c = await sut.getCase('rc-pay-cart-1');
    expect(c).toMatchObject({
      trigger: 'CAPTURE_WITHOUT_ORDER',
      outcome: 'MANUAL',
      open: false,
      cartId: 'cart-1',
      paymentId: 'pi_cart-1',
      operatorAction: expect.stringContaining('refund payment pi_cart-1'),
    });
    // Checked: a later sweep, or the same capture redelivered, reports nothing new.
    expect(await sut.sweepMoneyChecks()).toBe(0);
    await captured('cart-1');
    advance(GRACE + 1);
    expect(await sut.sweepMoneyChecks()).toBe(0);
    expect((await sut.listCases({ openOnly: false, offset: 0, limit: 10 })).total).toBe(1);
  });

  it('reports nothing when the order followed the capture, in either order of arrival', async () => {
    await captured('cart-1');
    await confirmed('cart-1', 10_100);
    await confirmed('cart-2', 10_100);
    await captured('cart-2');
    advance(GRACE + 1);
    expect(await sut.sweepMoneyChecks()).toBe(0);
    expect((await sut.listCases({ openOnly: false, offset: 0, limit: 10 })).total).toBe(0);
  });

  it('reports a confirmed order whose capture falls short of its total', async () => {
    await confirmed('cart-1', 0);
    await confirmed('cart-2', undefined); // an order from before cart published its payment
    advance(GRACE + 1);
    expect(await sut.sweepMoneyChecks()).toBe(1);
    expect(await sut.getCase('rc-pay-cart-1')).toMatchObject({
      trigger: 'ORDER_WITHOUT_CAPTURE',
      outcome: 'MANUAL',
      orderId: 'ord-cart-1',
      operatorAction: expect.stringContaining('cancel order ord-cart-1'),
      detail: expect.stringContaining('with 0 GBP (minor units) captured'),
    });
  });
});
