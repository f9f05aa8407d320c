import { createLogger } from '@marquee/platform/logger';
import { DEVELOPMENT_CONTACT_KEYS } from '@marquee/proto/order-contact';
import { describe, expect, it } from 'vitest';
import { fanDeletedHandler, orderConfirmedHandler } from '../src/ports/kafka/handlers.js';
import { confirmedOrder, harness } from './support/fixtures.js';

const logger = createLogger({ service: 'secure-entry-test', level: 'silent' });
const record = (topic: string, key: string, value: unknown) =>
  ({ topic, key, value, headers: {}, time: new Date() }) as never;

function setUp() {
  const h = harness();
  const confirm = orderConfirmedHandler({
    entry: h.entry,
    erasure: h.erasure,
    logger,
    contactKeys: DEVELOPMENT_CONTACT_KEYS,
  });
  const deleted = fanDeletedHandler({ erasure: h.erasure, logger });
  const buy = async (fanId: string, customerEmail = `${fanId}@example.com`) => {
    const { message } = confirmedOrder({
      fanId,
      customerEmail,
      thirdPartyAccountId: `acct-${fanId}`,
    });
    await confirm(record('order-confirmed', message.orderId, message));
    return message.orderId;
  };
  const deleteFan = (fanId: string) =>
    deleted(record('fan-deleted', fanId, { fanId, deletedAt: new Date() }));
  return { h, buy, deleteFan };
}

describe('fan-deleted in secure-entry', () => {
  it("keeps the fan id from the sealed contact, then blanks e-mail, account id and fan id of the fan's orders", async () => {
    const { h, buy, deleteFan } = setUp();
    const mine = [await buy('fan-1'), await buy('fan-1')];
    const theirs = await buy('fan-2');
    expect(await h.storage.orders.get(mine[0]!)).toMatchObject({
      fanId: 'fan-1',
      customerEmail: 'fan-1@example.com',
      thirdPartyAccountId: 'acct-fan-1',
    });

    await deleteFan('fan-1');

    for (const id of mine) {
      const order = await h.storage.orders.get(id);
      expect(order).toMatchObject({
        customerEmail: '',
        thirdPartyAccountId: '',
        contactErasedAt: h.clock.now,
        voided: false,
      });
      expect(order).not.toHaveProperty('fanId');
      // The tickets stay: the order is a commercial record and the seats were paid for.
      expect(await h.storage.tickets.listByOrder(id)).toHaveLength(2);
    }
    expect(await h.storage.orders.get(theirs)).toMatchObject({
      fanId: 'fan-2',
      customerEmail: 'fan-2@example.com',
    });
  });

  it('changes nothing on a second delivery', async () => {
    const { h, buy, deleteFan } = setUp();
    const id = await buy('fan-1');
    await deleteFan('fan-1');
    const once = await h.storage.orders.get(id);
    h.clock.advance(60_000);
    await deleteFan('fan-1');
    expect(await h.storage.orders.get(id)).toEqual(once);
  });

  it('stores an order of a deleted fan that arrives afterwards without its contact', async () => {
    const { h, buy, deleteFan } = setUp();
    await deleteFan('fan-3');
    const id = await buy('fan-3');
    const order = await h.storage.orders.get(id);
    expect(order).toMatchObject({ customerEmail: '', thirdPartyAccountId: '' });
    expect(order).not.toHaveProperty('fanId');
    expect(await h.storage.tickets.listByOrder(id)).toHaveLength(2);
    // Orders without a fan (the partner cart) are untouched by erasures.
    const partner = await buy('', 'buyer@example.com');
    expect(await h.storage.orders.get(partner)).toMatchObject({
      customerEmail: 'buyer@example.com',
    });
  });
});

describe('an order racing the fan deletion', () => {
  it('is erased after it was stored when the fan was recorded as deleted after its screening', async () => {
    const h = harness();
    // The deletion is recorded between the order's screening and its write.
    const erasure = {
      screen: async (order: Parameters<typeof h.erasure.screen>[0]) => {
        const screened = await h.erasure.screen(order);
        await h.erasure.eraseFan('fan-4');
        return screened;
      },
      recheck: (order: Parameters<typeof h.erasure.recheck>[0]) => h.erasure.recheck(order),
    };
    const confirm = orderConfirmedHandler({
      entry: h.entry,
      erasure,
      logger,
      contactKeys: DEVELOPMENT_CONTACT_KEYS,
    });
    const { message } = confirmedOrder({ fanId: 'fan-4', customerEmail: 'fan-4@example.com' });
    await confirm(record('order-confirmed', message.orderId, message));
    const order = await h.storage.orders.get(message.orderId);
    expect(order).toMatchObject({ customerEmail: '', thirdPartyAccountId: '' });
    expect(order).not.toHaveProperty('fanId');
  });
});
