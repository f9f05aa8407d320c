import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { CartServiceClient, CartStatus, ReserveCartRequest } from '@marquee/proto/cart/v1';
import { claimedCartId } from '../src/app/commands/reserve.js';
import { composedCart } from './support/composed-cart.js';
import { EVENT_ID } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'reserve-key-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');
const cartIdOf = (key: string) =>
  claimedCartId(createHash('sha256').update(`app-1\u0000${key}`).digest('hex'));

/**
 * A reserve's Idempotency-Key is claimed by its cart's insert (the cart id derived from the key):
 * a retry answers the cart as it is now, and one after a failure that says nothing about the
 * request reserves again (composed cart, memory mode, over gRPC).
 */
describe('ReserveCart: the Idempotency-Key claimed by the cart', () => {
  const connector = new FakeConnector(10, () => NOW);
  const start = () =>
    composedCart(CartServiceClient, { logger, now: NOW, available: 10, compose: { connector } });
  let sut: Awaited<ReturnType<typeof start>> | undefined;
  beforeAll(async () => void (sut = await start()));
  afterAll(async () => sut?.stop());

  const reserve = (idempotencyKey: string, quantity = 1) =>
    callUnary(
      sut!.client,
      'reserveCart',
      ReserveCartRequest.fromPartial({
        appId: 'app-1',
        eventId: EVENT_ID,
        reserves: [{ tickets: [{ id: '000001', quantity }], acceptBestAvailable: true }],
        idempotencyKey,
      }),
    );
  const getCart = (cartId: string) =>
    callUnary(sut!.client, 'getCart', {
      appId: 'app-1',
      cartId,
      eventId: EVENT_ID,
      sandbox: false,
    });

  it('answers a retry with the cart as it is now, and refuses the key for another request', async () => {
    const first = await waitFor(async () => reserve('key-a').catch(() => undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      description: 'the event sellable in cart',
    });
    expect(first.cart?.id).toBe(cartIdOf('key-a'));
    expect(first.cart?.status).toBe(CartStatus.CART_STATUS_HELD);
    await callUnary(sut!.client, 'releaseCart', {
      appId: 'app-1',
      eventId: EVENT_ID,
      cartId: first.cart!.id,
      sandbox: false,
    });
    const held = connector.held();
    const retried = await reserve('key-a');
    expect(retried.cart?.id).toBe(first.cart?.id);
    expect(retried.cart?.status).toBe(CartStatus.CART_STATUS_RELEASED);
    expect(connector.held()).toBe(held);
    await expect(reserve('key-a', 2)).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: 'idempotency-key-reused' },
    });
  });

  it('reserves again under the same key after the partner did not answer', async () => {
    connector.down = true;
    const asked = connector.calls.createBooking;
    await reserve('key-b').catch(() => undefined);
    const failed = await waitFor(
      async () => {
        const cart = await getCart(cartIdOf('key-b'));
        return cart.cart?.status === CartStatus.CART_STATUS_FAILED ? cart : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, description: 'the first reserve failed' },
    );
    expect(connector.calls.createBooking).toBeGreaterThan(asked);
    connector.down = false;
    const again = await reserve('key-b');
    expect(again.cart?.status).toBe(CartStatus.CART_STATUS_HELD);
    expect(again.cart?.id).not.toBe(failed.cart?.id);
    // The retry of the retry finds the held cart, not the failed one, and reserves nothing more.
    const held = connector.held();
    expect((await reserve('key-b')).cart?.id).toBe(again.cart?.id);
    expect(connector.held()).toBe(held);
  });
});
