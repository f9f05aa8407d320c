import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { createMongoStore, openServiceStores } from '@marquee/platform/store';
import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { expect, it } from 'vitest';
import { createCartStorage } from '../src/adapters/stores.js';
import type { Cart } from '../src/domain/cart.js';
import { aCart, cartStorageContract } from './cart-storage-contract.js';

describeIntegration('cart storage on the Mongo-wire server', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'cart-test');

  cartStorageContract('mongo', async () => {
    // As the service opens it: Mongo collections with their indexes built.
    const { storage } = await openServiceStores(
      { mongo: mongo.fresh('cart'), logger: mongo.logger },
      (stores) => createCartStorage(stores, { sandboxAreaCapacity: 100 }),
    );
    return storage;
  });

  it('finds a cart stored before fanId was kept a field once relayout ran, two replicas at once', async () => {
    const db = mongo.fresh('cart');
    const logger = mongo.logger;
    // The carts collection as the build before it indexed `fanId` declared it; that build
    // recorded no layout either.
    const older = createMongoStore<Cart & { version: number }>({
      connection: db,
      collection: 'carts',
      indexes: [
        { fields: { sweepAt: 1 }, due: true },
        { fields: { endedAt: 1 } },
        { fields: { appId: 1, eventId: 1, status: 1 } },
      ],
      pack: { keep: ['status', 'appId', 'eventId'] },
    });
    const cart = aCart('old-layout', { fanId: 'fan-old', status: 'RELEASED', endedAt: new Date() });
    await older.insert(cart);
    await db.collection('carts').updateOne({ _id: cart.id as never }, { $unset: { layout: '' } });

    const open = (on: Connection) =>
      openServiceStores({ mongo: on, logger }, (stores) =>
        createCartStorage(stores, { sandboxAreaCapacity: 100 }),
      );
    const first = await open(db);
    expect(await first.storage.carts.listByFan('fan-old', 10)).toEqual([]);
    // A second replica: its own connection to the same database.
    const other = await connectMongo({
      url: mongoUrl,
      dbName: db.name,
      logger,
      appName: 'cart-test-replica',
    });
    try {
      const second = await open(other);
      const rewritten = await Promise.all([first.relayout(), second.relayout()]);
      expect(rewritten[0] + rewritten[1]).toBeGreaterThanOrEqual(1);
    } finally {
      await closeMongo(other, logger);
    }
    expect(await first.storage.carts.listByFan('fan-old', 10)).toEqual([{ ...cart, version: 1 }]);
    expect(await first.relayout()).toBe(0);
  });
});
