import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { CartStatus, CommerceServiceClient } from '@marquee/proto/cart/v1';
import { offerId } from '../src/domain/offer-ids.js';
import { composedCart } from './support/composed-cart.js';
import { EVENT_ID } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'cart-commerce-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');

/** cart composed as the service runs (memory bus and stores), CommerceService over gRPC. */
describe('CommerceService over gRPC (composed cart, memory mode)', () => {
  let client: InstanceType<typeof CommerceServiceClient>;
  let address: string;
  let stop: () => Promise<void>;
  const connector = new FakeConnector(20, () => NOW);

  beforeAll(async () => {
    ({ client, address, stop } = await composedCart(CommerceServiceClient, {
      logger,
      now: NOW,
      available: 10,
      compose: {
        connector,
        accessCodes: {
          priceTypesOpenedBy: async (_eventId, code) => (code === 'letmein' ? ['000002'] : []),
        },
      },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  const fan = { appId: 'app-1', fanId: 'fan-1' };

  it('answers offers, then creates, pays and purchases a cart with idempotency keys', async () => {
    const offers = await waitFor(
      async () => {
        const answer = await callUnary(client, 'getEventOffers', {
          appId: 'app-1',
          eventId: EVENT_ID,
          fanId: '',
          passwords: ['letmein'],
        });
        return answer.areas.length > 0 ? answer : undefined;
      },
      { timeoutMs: 5_000, description: 'offers of the projected event' },
    );
    expect(offers.offers.map((o) => [o.priceTypeId, o.priceLevelId])).toEqual([
      ['000001', 'PL1'],
      ['000002', 'PL1'],
      ['000001', 'PL2'],
    ]);
    expect(offers.passwords[0]).toMatchObject({ unlocked: true });

    const create = {
      ...fan,
      products: [
        {
          product: EVENT_ID,
          eventId: EVENT_ID,
          qty: 0,
          offers: [{ offer: offerId('000001', 'PL1'), qty: 2, password: '' }],
          areaIds: [],
          minPriceMinor: 0,
          maxPriceMinor: 0,
          minPrice: '',
          maxPrice: '',
        },
      ],
      holdTimeSeconds: 0,
      pollingCallbackUrl: 'https://app.example/poll',
      idempotencyKey: 'create-1',
    };
    const created = await callUnary(client, 'createShoppingCart', create);
    const again = await callUnary(client, 'createShoppingCart', create);
    expect(again.cart!.cart!.id).toBe(created.cart!.cart!.id);
    expect(created.cart).toMatchObject({
      fanId: 'fan-1',
      productId: EVENT_ID,
      eventName: 'Integration Night',
      pollingCallbackUrl: 'https://app.example/poll',
      offers: [{ id: offerId('000001', 'PL1'), priceTypeId: '000001', priceLevelId: 'PL1' }],
    });
    const cartId = created.cart!.cart!.id;
    expect(created.cart!.cart!.status).toBe(CartStatus.CART_STATUS_HELD);

    const deliveries = await callUnary(client, 'getCartDeliveries', { appId: 'app-1', cartId });
    expect(deliveries.deliveries[0]).toMatchObject({ id: 'ETICKET', deliveryType: 'DIGITAL' });
    await callUnary(client, 'selectShoppingCartDelivery', {
      ...fan,
      cartId,
      deliveryId: 'ETICKET',
    });
    const unpaid = created.cart!.cart!.totals!.unpaid!;
    const paid = await callUnary(client, 'addShoppingCartPayment', {
      ...fan,
      cartId,
      idempotencyKey: 'pay-1',
      billing: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        homePhone: '',
        type: 'CC',
        reference: '',
        address: undefined,
        amount: unpaid,
        cardNonce: 'fake-valid-nonce',
        cin: '123',
        expireMonth: 12,
        expireYear: 2032,
        emailAddress: 'ada@example.test',
        thirdPartyAccountId: '',
      },
    });
    expect(paid.cart!.cart!.status).toBe(CartStatus.CART_STATUS_PAID);

    const purchase = { ...fan, cartId, idempotencyKey: 'buy-1' };
    const bought = await callUnary(client, 'purchaseShoppingCart', purchase);
    const retried = await callUnary(client, 'purchaseShoppingCart', purchase);
    expect(bought.redemptionToken.length).toBeGreaterThan(20);
    expect(retried.redemptionToken).toBe(bought.redemptionToken);
    expect(bought.order).toMatchObject({
      orderId: retried.order!.orderId,
      redemptionUrl: expect.stringContaining(bought.order!.orderNumber),
    });
    expect(bought.ticketCount).toBe(2);
    // The same key with another request is refused.
    await expect(
      callUnary(client, 'purchaseShoppingCart', { ...purchase, cartId: 'other' }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
  });

  it('answers only the edge: another service is PERMISSION_DENIED', async () => {
    const other = createGrpcClient(CommerceServiceClient, address, {
      deadlineMs: 5_000,
      logger,
      caller: 'secure-entry',
    });
    await expect(
      callUnary(other, 'getEventOffers', {
        appId: 'a',
        eventId: EVENT_ID,
        fanId: '',
        passwords: [],
      }),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    other.close();
  });

  it('answers NOT_FOUND for another fan and INVALID_ARGUMENT for a bad op', async () => {
    await expect(
      callUnary(client, 'getShoppingCart', { appId: 'app-1', fanId: 'fan-9', cartId: 'nope' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(
      callUnary(client, 'updateShoppingCartProducts', {
        ...fan,
        cartId: 'nope',
        changes: [{ op: 'PRODUCT_CHANGE_OP_UNSPECIFIED' as never, product: undefined }],
        idempotencyKey: '',
      }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});
