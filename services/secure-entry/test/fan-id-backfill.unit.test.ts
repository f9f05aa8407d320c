import { createLogger } from '@marquee/platform/logger';
import { DEVELOPMENT_CONTACT_KEYS } from '@marquee/proto/order-contact';
import { describe, expect, it } from 'vitest';
import { FanIdBackfill } from '../src/app/fan-id-backfill.js';
import type { CartOrderContact, CartOrders } from '../src/app/ports.js';
import type { EntryOrder } from '../src/domain/model.js';
import { orderConfirmedHandler } from '../src/ports/kafka/handlers.js';
import { confirmedOrder, harness } from './support/fixtures.js';

const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });

/** cart's orders as a fake of the port: by order id, failing while `down`. */
function fakeCart(orders: Map<string, CartOrderContact>) {
  const asked: string[] = [];
  const cart: CartOrders & { down: boolean; failAfter: number } = {
    down: false,
    failAfter: Number.POSITIVE_INFINITY,
    async contactOf(orderId) {
      if (this.down || asked.length >= this.failAfter)
        throw Object.assign(new Error('cart unavailable'), { kind: 'unavailable' });
      asked.push(orderId);
      return orders.get(orderId);
    },
  };
  return { cart, asked };
}

async function setUp() {
  const h = harness();
  const confirm = orderConfirmedHandler({
    entry: h.entry,
    erasure: h.erasure,
    logger,
    contactKeys: DEVELOPMENT_CONTACT_KEYS,
  });
  /** An order as stored before secure-entry kept the fan id: contact, no fan id. */
  const olderOrder = async (email = 'fan@example.com'): Promise<string> => {
    const { message } = confirmedOrder({ fanId: 'unused', customerEmail: email });
    await confirm({
      topic: 'order-confirmed',
      key: message.orderId,
      value: message,
      headers: {},
      time: new Date(),
    } as never);
    const stored = (await h.storage.orders.get(message.orderId))!;
    const { fanId: _fanId, ...older } = stored;
    await h.storage.orders.update(older as EntryOrder);
    return message.orderId;
  };
  const backfill = (cart: CartOrders) =>
    new FanIdBackfill({ ...h.storage, cartOrders: cart, clock: { now: () => h.clock.now } });
  return { h, olderOrder, backfill };
}

describe('fan id backfill of orders stored before secure-entry kept it', () => {
  it('gives the fan id from cart, erases what cart erased, leaves partner orders, once', async () => {
    const { h, olderOrder, backfill } = await setUp();
    const named = await olderOrder('one@example.com');
    const erasedAtCart = await olderOrder('two@example.com');
    const partner = await olderOrder('three@example.com');
    const unknownToCart = await olderOrder('four@example.com');
    const ofDeletedFan = await olderOrder('five@example.com');
    await h.storage.erasedFans.record('fan-gone', h.clock.now);
    const { cart, asked } = fakeCart(
      new Map<string, CartOrderContact>([
        [named, { fanId: 'fan-1' }],
        [erasedAtCart, { fanId: '', contactErasedAt: new Date('2026-04-01T00:00:00Z') }],
        [partner, { fanId: '' }],
        [ofDeletedFan, { fanId: 'fan-gone' }],
      ]),
    );

    expect(await backfill(cart).run()).toEqual({ filled: 1, erased: 2 });

    expect(await h.storage.orders.get(named)).toMatchObject({
      fanId: 'fan-1',
      customerEmail: 'one@example.com',
    });
    for (const id of [erasedAtCart, ofDeletedFan]) {
      const order = await h.storage.orders.get(id);
      expect(order).toMatchObject({ customerEmail: '', contactErasedAt: h.clock.now });
      expect(order).not.toHaveProperty('fanId');
    }
    for (const id of [partner, unknownToCart]) {
      const order = await h.storage.orders.get(id);
      expect(order?.customerEmail).not.toBe('');
      expect(order).not.toHaveProperty('fanId');
      expect(order).not.toHaveProperty('contactErasedAt');
    }
    // Now a deletion finds the order.
    expect(await h.erasure.eraseFan('fan-1')).toBe(1);
    expect((await h.storage.orders.get(named))?.customerEmail).toBe('');

    // Done: a later start asks cart nothing.
    asked.length = 0;
    expect(await backfill(cart).run()).toEqual({ filled: 0, erased: 0 });
    expect(asked).toEqual([]);
  });

  it('keeps its progress when cart is unavailable and goes on from there', async () => {
    const { h, olderOrder, backfill } = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 130; i += 1) ids.push(await olderOrder(`fan${i}@example.com`));
    const { cart, asked } = fakeCart(new Map(ids.map((id) => [id, { fanId: `fan-of-${id}` }])));
    cart.down = true;
    await expect(backfill(cart).run()).rejects.toMatchObject({ kind: 'unavailable' });

    // Up for the first batch of 100 only.
    cart.down = false;
    cart.failAfter = 110;
    await expect(backfill(cart).run()).rejects.toMatchObject({ kind: 'unavailable' });
    expect(asked).toHaveLength(110);

    cart.failAfter = Number.POSITIVE_INFINITY;
    asked.length = 0;
    const outcome = await backfill(cart).run();
    // Neither the first batch nor the ten of the failed one that got their fan id are asked again.
    expect(asked).toHaveLength(20);
    expect(outcome.filled).toBe(20);
    for (const id of ids) expect((await h.storage.orders.get(id))?.fanId).toBe(`fan-of-${id}`);
  });

  it('two replicas at once give each order its fan id once', async () => {
    const { h, olderOrder, backfill } = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 150; i += 1) ids.push(await olderOrder(`fan${i}@example.com`));
    const { cart } = fakeCart(new Map(ids.map((id) => [id, { fanId: `fan-of-${id}` }])));
    const [a, b] = await Promise.all([backfill(cart).run(), backfill(cart).run()]);
    expect(a.filled + b.filled).toBe(ids.length);
    for (const id of ids) expect((await h.storage.orders.get(id))?.fanId).toBe(`fan-of-${id}`);
    expect(await h.storage.progress.get('order-fan-ids')).toMatchObject({ done: true });
  });
});
