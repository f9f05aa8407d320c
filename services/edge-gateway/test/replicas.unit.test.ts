import type * as grpc from '@grpc/grpc-js';
import { Event, type GetEventRequest, type GetEventResponse } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { createCatalogIndexerClient } from '../src/adapters/catalog-indexer-client.js';
import { replicas, splitAddresses } from '../src/adapters/replicas.js';
import { logger, until, watchedCatalog } from './fake-catalog.js';

const unavailable = () => Object.assign(new Error('stopping'), { kind: 'unavailable' });

describe('replicas of a read service', () => {
  it('splits an address list, one address being a list of one', () => {
    expect(splitAddresses('a:1')).toEqual(['a:1']);
    expect(splitAddresses(' a:1 , b:2,')).toEqual(['a:1', 'b:2']);
    expect(() => splitAddresses(' , ')).toThrow(/no gRPC address/);
  });

  it('takes the replicas in turn', async () => {
    const sut = replicas(['a', 'b', 'c']);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) await sut.call(async (replica) => order.push(replica));
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('tries a read once more on the next replica when one is unavailable, never a write', async () => {
    const sut = replicas(['down', 'up']);
    const tried: string[] = [];
    const answer = await sut.call(async (replica) => {
      tried.push(replica);
      if (replica === 'down') throw unavailable();
      return `answer from ${replica}`;
    });
    expect(answer).toBe('answer from up');
    expect(tried).toEqual(['down', 'up']);

    const writes: string[] = [];
    const write = (replica: string) => {
      writes.push(replica);
      return Promise.reject(unavailable());
    };
    await expect(sut.once(write)).rejects.toThrow('stopping');
    expect(writes).toHaveLength(1);
    // Other errors are the answer: not retried.
    const notFound = Object.assign(new Error('no such event'), { kind: 'not_found' });
    const calls: string[] = [];
    await expect(
      sut.call(async (replica) => {
        calls.push(replica);
        throw notFound;
      }),
    ).rejects.toBe(notFound);
    expect(calls).toHaveLength(1);
  });

  it('skips replicas that do not look healthy while another does', async () => {
    const healthy = new Set(['b']);
    const sut = replicas(['a', 'b', 'c'], (replica) => healthy.has(replica));
    const order: string[] = [];
    for (let i = 0; i < 3; i++) await sut.call(async (replica) => order.push(replica));
    expect(order).toEqual(['b', 'b', 'b']);
    healthy.clear();
    // None healthy: every replica at once rather than none.
    const asked: string[] = [];
    await sut.call(async (replica) => asked.push(replica));
    expect(asked.sort()).toEqual(['a', 'b', 'c']);
  });

  it('retries on another replica, even one that does not look healthy, never the same one', async () => {
    // The only healthy-looking replica has just stopped; its stream has not been seen ending yet.
    const healthy = new Set(['b']);
    const sut = replicas(['a', 'b'], (replica) => healthy.has(replica));
    const seen: Array<[string, boolean]> = [];
    const answer = await sut.call(async (replica, options) => {
      seen.push([replica, options.waitForReady === true]);
      if (replica === 'b') throw unavailable();
      return `answer from ${replica}`;
    });
    expect(answer).toBe('answer from a');
    expect(seen).toEqual([
      ['b', false],
      ['a', true],
    ]);
  });

  it('with none healthy, answers from the first replica that answers, not the one that is gone', async () => {
    const sut = replicas(['gone', 'back', 'other'], () => false);
    const deadline = () => Object.assign(new Error('deadline'), { kind: 'deadline_exceeded' });
    let releaseGone: () => void = () => undefined;
    const goneWaits = new Promise<void>((resolve) => (releaseGone = resolve));
    const answer = await sut.call(async (replica, options) => {
      expect(options.waitForReady).toBe(true);
      if (replica === 'gone') {
        await goneWaits; // waits for a connection until its deadline
        throw deadline();
      }
      if (replica === 'other') throw unavailable();
      return `answer from ${replica}`;
    });
    expect(answer).toBe('answer from back');
    releaseGone();

    // An answer that is an error (not found) is the answer too.
    const notFound = Object.assign(new Error('no such event'), { kind: 'not_found' });
    await expect(
      sut.call(async (replica) => {
        if (replica === 'back') throw notFound;
        return new Promise<string>(() => undefined); // never answers
      }),
    ).rejects.toBe(notFound);

    // Nobody reached: the call fails once every replica has failed.
    await expect(
      sut.call(async (replica) => {
        throw replica === 'gone' ? deadline() : unavailable();
      }),
    ).rejects.toMatchObject({ kind: expect.stringMatching(/unavailable|deadline_exceeded/) });
  });

  it('asks a call to wait for the connection when no replica looks healthy, and on the retry', async () => {
    const healthy = new Set(['a', 'b']);
    const sut = replicas(['a', 'b'], (replica) => healthy.has(replica));
    const seen: Array<[string, boolean]> = [];
    await sut.call(async (replica, options) => seen.push([replica, options.waitForReady === true]));
    expect(seen).toEqual([['a', false]]);

    // The retry after `unavailable` waits: the other replica may be reconnecting.
    seen.length = 0;
    await sut.call(async (replica, options) => {
      seen.push([replica, options.waitForReady === true]);
      if (seen.length === 1) throw unavailable();
    });
    expect(seen).toEqual([
      ['b', false],
      ['a', true],
    ]);

    // None looks healthy (a rolling restart): wait for them rather than fail at once.
    healthy.clear();
    seen.length = 0;
    await sut.call(async (replica, options) => seen.push([replica, options.waitForReady === true]));
    expect(seen.sort()).toEqual([
      ['a', true],
      ['b', true],
    ]);
  });
});

/** A CatalogService replica: WatchChanges with a sequence the test moves, GetEvent naming itself. */
async function catalogReplica(instance: string) {
  return watchedCatalog(instance, {
    getEvent(
      call: grpc.ServerUnaryCall<GetEventRequest, GetEventResponse>,
      callback: grpc.sendUnaryData<GetEventResponse>,
    ) {
      callback(null, {
        event: Event.fromPartial({ id: `${call.request.id}@${instance}` }),
        venues: [],
        attractions: [],
      });
    },
  });
}

describe('catalog-indexer client over several replicas', () => {
  it('spreads calls, keys the cache on every replica together, and answers while one is down', async () => {
    const a = await catalogReplica('a');
    const b = await catalogReplica('b');
    const sut = createCatalogIndexerClient(`${a.address},${b.address}`, {
      deadlineMs: 5_000,
      logger,
    });
    try {
      expect(sut.version!()).toBeUndefined(); // the first use opens both streams
      await until(() => sut.version!() === 'a:1|b:1');
      const servedBy = async () => (await sut.getEvent('E1')).event!.id;
      expect(new Set([await servedBy(), await servedBy()])).toEqual(new Set(['E1@a', 'E1@b']));

      // A change in either replica is a new version.
      b.change();
      await until(() => sut.version!() === 'a:1|b:2');

      // One replica gone: no version (the cache stands aside), every call answered by the other.
      await a.stop();
      await until(() => sut.version!() === undefined);
      for (let i = 0; i < 4; i++) expect(await servedBy()).toBe('E1@b');
    } finally {
      sut.close();
      await a.stop();
      await b.stop();
    }
  });
});
