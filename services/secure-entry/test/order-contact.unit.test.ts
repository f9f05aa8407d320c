import { randomBytes } from 'node:crypto';
import { createLogger } from '@marquee/platform/logger';
import { DEVELOPMENT_CONTACT_KEYS, parseContactKeys } from '@marquee/proto/order-contact';
import { describe, expect, it } from 'vitest';
import { orderConfirmedHandler } from '../src/ports/kafka/handlers.js';
import { confirmedOrder, harness } from './support/fixtures.js';

const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });
const record = (message: ReturnType<typeof confirmedOrder>['message']) =>
  ({
    topic: 'order-confirmed',
    key: message.orderId,
    value: message,
    headers: {},
    time: new Date(),
  }) as never;

describe('order-confirmed: the sealed buyer contact', () => {
  it('opens the contact with the ring and keeps the e-mail and account on the order', async () => {
    const h = harness();
    const handle = orderConfirmedHandler({
      entry: h.entry,
      erasure: h.erasure,
      logger,
      contactKeys: DEVELOPMENT_CONTACT_KEYS,
    });
    const { message } = confirmedOrder({ customerEmail: 'ada@example.com' });
    await handle(record(message));
    const order = await h.storage.orders.get(message.orderId);
    expect(order).toMatchObject({
      customerEmail: 'ada@example.com',
      thirdPartyAccountId: 'user-42',
    });
  });

  it('throws (retried, then dead-lettered sealed) for a contact it cannot open, issuing nothing', async () => {
    const h = harness();
    const otherRing = parseContactKeys(`k9:${randomBytes(32).toString('base64')}`);
    const handle = orderConfirmedHandler({
      entry: h.entry,
      erasure: h.erasure,
      logger,
      contactKeys: otherRing,
    });
    const { message } = confirmedOrder();
    await expect(handle(record(message))).rejects.toThrow(/no key "dev"/);
    // Another order's sealed contact copied onto this record does not open either.
    const own = orderConfirmedHandler({
      entry: h.entry,
      erasure: h.erasure,
      logger,
      contactKeys: DEVELOPMENT_CONTACT_KEYS,
    });
    const copied = { ...message, orderId: 'ord-copied' };
    await expect(own(record(copied))).rejects.toThrow(/does not open/);
    expect(await h.storage.orders.get(message.orderId)).toBeUndefined();
    expect(await h.storage.orders.get('ord-copied')).toBeUndefined();
  });
});
