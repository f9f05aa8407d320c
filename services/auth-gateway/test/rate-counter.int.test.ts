import { afterAll, expect, it, vi } from 'vitest';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoRateCounter } from '../src/adapters/rate-counters.js';
import { rateCounterContract } from './rate-counter-contract.js';

const logger = createLogger({ service: 'auth-gateway-test', level: 'silent' });

describeIntegration('auth-gateway rate counter on the Mongo-wire server', ({ mongoUrl }) => {
  let connection: Connection | undefined;
  afterAll(async () => {
    if (!connection) return;
    await connection.dropDatabase();
    await closeMongo(connection, logger);
  });
  const open = async (): Promise<Connection> =>
    (connection ??= await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('authrate').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    }));
  /** A counter over the test database whose writes (findAndModify calls) are counted. */
  const countedCounter = async () => {
    const collection = (await open()).collection('rate_counters');
    const spy = vi.spyOn(collection, 'findOneAndUpdate');
    const before = spy.mock.calls.length;
    const counting = { collection: () => collection } as unknown as Connection;
    return { sut: createMongoRateCounter(counting), writes: () => spy.mock.calls.length - before };
  };

  rateCounterContract('mongo rate counter', async () => createMongoRateCounter(await open()));

  it('writes a burst of one key in a few group commits, not one write per call', async () => {
    const { sut, writes } = await countedCounter();
    const key = `burst-${Math.random()}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, () => sut.add(key, 1, Date.now() + 60_000)),
    );
    expect(Math.max(...results)).toBe(200);
    expect(new Set(results).size).toBe(200);
    // The first call writes alone; the other 199 arrive while it is in flight.
    expect(writes()).toBeLessThanOrEqual(3);
  });

  it('with a lease, counts a busy key mostly from units taken ahead, without writes', async () => {
    const { sut, writes } = await countedCounter();
    const key = `lease-${Math.random()}`;
    const results: number[] = [];
    for (let i = 0; i < 200; i += 1)
      results.push(await sut.add(key, 1, Date.now() + 60_000, { lease: 64 }));
    expect(new Set(results).size).toBe(200);
    // One call after the other, each a write without a lease: 200 writes.
    expect(writes()).toBeLessThanOrEqual(20);
  });
});
