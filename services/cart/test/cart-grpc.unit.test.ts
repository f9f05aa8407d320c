import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { CartServiceClient, CartStatus, ReserveCartRequest } from '@marquee/proto/cart/v1';
import { composedCart } from './support/composed-cart.js';
import { EVENT_ID } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'cart-grpc-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');

/** cart composed as the service runs (memory bus and stores), CartService over gRPC. */
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
});
