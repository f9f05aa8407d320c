import { createLogger } from '@marquee/platform/logger';
import { openServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import { createCartStorage } from '../src/adapters/stores.js';
import { EraseFanContact } from '../src/app/commands/erase-fan-contact.js';
import { fanDeletedHandler } from '../src/ports/kafka/fan-deleted.js';
import { anOrder } from './cart-storage-contract.js';

const logger = createLogger({ service: 'cart-test', level: 'silent' });
const now = new Date('2030-07-01T00:00:00.000Z');

async function setUp() {
  const { storage } = await openServiceStores({ mongo: undefined, logger }, (stores) =>
    createCartStorage(stores, { sandboxAreaCapacity: 100 }),
  );
  const sut = new EraseFanContact({ orders: storage.orders, clock: { now: () => now } });
  return { orders: storage.orders, sut };
}

const fanOrder = (id: string, fanId: string) =>
  anOrder(id, {
    fanId,
    channel: 'commerce',
    customerEmail: `${fanId}@example.com`,
    thirdPartyAccountId: `acct-${fanId}`,
  });

describe('EraseFanContact', () => {
  it('blanks e-mail, partner account id and fan id of every order of the fan, keeping the orders', async () => {
    const { orders, sut } = await setUp();
    // More orders than one pass reads.
    const ids = Array.from({ length: 105 }, (_, i) => `o${i}`);
    for (const id of ids) await orders.insertConfirmed(fanOrder(id, 'fan-1'));
    await orders.insertConfirmed(fanOrder('other', 'fan-2'));

    expect(await sut.handle('fan-1')).toBe(105);

    for (const id of ['o0', 'o104']) {
      const order = await orders.get(id);
      expect(order).toMatchObject({
        id,
        status: 'CONFIRMED',
        grandMinor: 5_500,
        customerEmail: '',
        thirdPartyAccountId: '',
        contactErasedAt: now,
      });
      expect(order).not.toHaveProperty('fanId');
    }
    expect(await orders.get('other')).toMatchObject({
      fanId: 'fan-2',
      customerEmail: 'fan-2@example.com',
      thirdPartyAccountId: 'acct-fan-2',
    });
  });

  it('changes nothing on a second delivery, nor for a fan without orders or without an id', async () => {
    const { orders, sut } = await setUp();
    await orders.insertConfirmed(fanOrder('o1', 'fan-1'));
    expect(await sut.handle('fan-1')).toBe(1);
    const once = await orders.get('o1');
    expect(await sut.handle('fan-1')).toBe(0);
    expect(await orders.get('o1')).toEqual(once);
    expect(await sut.handle('fan-unknown')).toBe(0);
    expect(await sut.handle('')).toBe(0);
  });
});

describe('fan-deleted handler', () => {
  it('erases by the fan id of the record (its key when the value lacks it) and skips one naming no fan', async () => {
    const erased: string[] = [];
    const handle = fanDeletedHandler({
      app: {
        eraseFan: async (fanId) => (erased.push(fanId), { carts: 0, released: 0, orders: 1 }),
      },
      log: { info: () => undefined },
    });
    const record = (key: string, fanId: string | undefined) =>
      ({
        key,
        value: fanId === undefined ? null : { fanId, deletedAt: now },
      }) as Parameters<typeof handle>[0];
    await handle(record('fan-1', 'fan-1'));
    await handle(record('fan-2', ''));
    await handle(record('', undefined));
    expect(erased).toEqual(['fan-1', 'fan-2']);
  });
});
