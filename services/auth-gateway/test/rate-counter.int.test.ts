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
  rateCounterContract('mongo rate counter', async () => {
    connection ??= await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('authrate').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    return createMongoRateCounter(connection);
  });

  it('writes a burst of one key in a few group commits, not one write per call', async () => {
    connection ??= await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('authrate').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    const collection = connection.collection('rate_counters');
    const spy = vi.spyOn(collection, 'findOneAndUpdate');
    const counting = { collection: () => collection } as unknown as Connection;
    const sut = createMongoRateCounter(counting);
    const key = `burst-${Math.random()}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, () => sut.add(key, 1, Date.now() + 60_000)),
    );
    expect(Math.max(...results)).toBe(200);
    expect(new Set(results).size).toBe(200);
    // The first call writes alone; the other 199 arrive while it is in flight.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(3);
  });

  it('with a lease, counts a busy key mostly from units taken ahead, without writes', async () => {
    connection ??= await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('authrate').replace(/-/g, '_'),
      logger,
      appName: 'auth-gateway-test',
    });
    const collection = connection.collection('rate_counters');
    const spy = vi.spyOn(collection, 'findOneAndUpdate');
    const counting = { collection: () => collection } as unknown as Connection;
    const sut = createMongoRateCounter(counting);
    const key = `lease-${Math.random()}`;
    const results: number[] = [];
    for (let i = 0; i < 200; i += 1)
      results.push(await sut.add(key, 1, Date.now() + 60_000, { lease: 64 }));
    expect(new Set(results).size).toBe(200);
    // One call after the other, each a write without a lease: 200 writes.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(20);
  });
});
