import { describe, expect, it } from 'vitest';
import { createMemoryBroker, createMemoryBus } from '../../src/bus/index.js';
import { uniqueName, waitFor } from '../../src/testing/index.js';
import { busContract, type BusContractHarness } from './bus-contract.js';
import { globalSubscriptionContract } from './global-contract.js';
import { aPing, pingTopic, recordingLogger, type Ping, collect } from './fixtures.js';

/**
 * Memory buses on one broker for the suite (retaining as asked): every bus a test creates is
 * another "process" on the same cluster.
 */
const memoryCluster =
  (options?: Parameters<typeof createMemoryBroker>[0]) => (): BusContractHarness => {
    const broker = createMemoryBroker(options);
    return {
      newBus: ({ source, retry, logger }) => createMemoryBus({ source, retry, logger, broker }),
      // Deliveries take milliseconds; the margin is for a loaded machine (waitFor returns at once).
      deliveryTimeoutMs: 10_000,
    };
  };

busContract('memory', memoryCluster());

// The embedded default's retention keeps Kafka's semantics too.
busContract('memory, retaining only unconsumed records', memoryCluster({ retain: 'unconsumed' }));

globalSubscriptionContract('memory', memoryCluster());

// A global reader holds what it has not read yet, as a group does.
globalSubscriptionContract(
  'memory, retaining only unconsumed records',
  memoryCluster({ retain: 'unconsumed' }),
);

describe('memory bus retention', () => {
  /** Pings with these sequence numbers, all under key `k` (one partition, in order). */
  const keyed = (...seqs: number[]) => seqs.map((seq) => ({ key: 'k', value: aPing({ seq }) }));

  it('keeps every record by default', async () => {
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test' });
    const seen = await collect(sut, topic);
    await sut.publish(topic, keyed(1, 2, 3));
    await waitFor(() => seen.length === 3);

    expect(sut.records(topic.name)).toHaveLength(3);
    await sut.close();
  });

  it('releases a record once every group that joined its topic has committed past it', async () => {
    const broker = createMemoryBroker({ retain: 'unconsumed', partitions: 1 });
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test', broker });
    const fast: number[] = [];
    let letSlowGo!: () => void;
    const slowGate = new Promise<void>((resolve) => (letSlowGo = resolve));
    const slow: number[] = [];
    await sut.subscribe(topic, { group: uniqueName('fast') }, async (event) => {
      fast.push(event.value!.seq);
    });
    await sut.subscribe(topic, { group: uniqueName('slow') }, async (event) => {
      await slowGate;
      slow.push(event.value!.seq);
    });
    await sut.start();

    await sut.publish(topic, keyed(1, 2, 3));
    await waitFor(() => fast.length === 3);
    // The slow group has read nothing yet: all three are held for it.
    expect(sut.records(topic.name).map((r) => r.offset)).toEqual(['0', '1', '2']);

    letSlowGo();
    await waitFor(() => slow.length === 3);
    await waitFor(() => sut.records(topic.name).length === 0);
    expect(broker.startOffset(topic.name, 0)).toBe(3);
    expect(broker.endOffset(topic.name, 0)).toBe(3);

    // Offsets go on from where they were; the groups read the new record as usual.
    await sut.publish(topic, keyed(4));
    await waitFor(() => fast.length === 4 && slow.length === 4);
    expect(fast).toEqual([1, 2, 3, 4]);
    expect(slow).toEqual([1, 2, 3, 4]);
    await waitFor(() => broker.startOffset(topic.name, 0) === 4);
    await sut.close();
  });

  it('starts a group that joins later at the oldest record still held', async () => {
    const broker = createMemoryBroker({ retain: 'unconsumed', partitions: 1 });
    const topic = pingTopic();
    const first = createMemoryBus({ source: '//marquee/test', broker });
    const seenFirst: number[] = [];
    await first.subscribe(topic, { group: uniqueName('first') }, async (event) => {
      seenFirst.push(event.value!.seq);
    });
    await first.start();
    await first.publish(topic, keyed(1, 2));
    await waitFor(() => broker.startOffset(topic.name, 0) === 2);
    await first.close();
    const second = createMemoryBus({ source: '//marquee/test', broker });
    await second.publish(topic, keyed(3));

    const seenLater: number[] = [];
    await second.subscribe(topic, { group: uniqueName('later') }, async (event) => {
      seenLater.push(event.value!.seq);
    });
    await second.start();

    await waitFor(() => seenLater.length === 1);
    expect(seenLater).toEqual([3]);
    expect(seenFirst).toEqual([1, 2]);
    await second.close();
  });

  it('switches to releasing consumed records when asked, keeping what a group has not read', async () => {
    const broker = createMemoryBroker({ partitions: 1 });
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test', broker });
    const seen = await collect(sut, topic);
    await sut.publish(topic, keyed(1, 2));
    await waitFor(() => seen.length === 2);
    expect(sut.records(topic.name)).toHaveLength(2);

    broker.retainUnconsumed();

    expect(broker.retain).toBe('unconsumed');
    expect(sut.records(topic.name)).toEqual([]);
    expect(broker.startOffset(topic.name, 0)).toBe(2);
    await sut.publish(topic, keyed(3));
    await waitFor(() => seen.length === 3);
    await waitFor(() => broker.startOffset(topic.name, 0) === 3);
    await sut.close();
  });

  it('keeps the records of a topic that no group has joined', async () => {
    const broker = createMemoryBroker({ retain: 'unconsumed' });
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test', broker });
    await sut.publish(topic, keyed(1, 2));
    broker.commit('nobody-joined', topic.name, 0, 2);

    expect(sut.records(topic.name)).toHaveLength(2);
  });
});

describe('memory bus specifics', () => {
  it('exposes the stored records of a topic, keeping a key in one partition', async () => {
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test' });

    await sut.publish(topic, [
      { key: 'a', value: aPing({ seq: 1 }) },
      { key: 'b', value: aPing({ seq: 2 }) },
      { key: 'a', value: null },
    ]);

    const records = sut.records(topic.name);
    expect(
      records.map((record) => [record.key, record.value && topic.codec.decode(record.value).seq]),
    ).toEqual([
      ['a', 1],
      ['b', 2],
      ['a', null],
    ]);
    expect(records[2]!.partition).toBe(records[0]!.partition);
    // Offsets count per partition: the tombstone follows `a`'s value, and `b`'s too if it shares the partition.
    const sharesPartition = records[1]!.partition === records[0]!.partition;
    expect(records[2]!.offset).toBe(sharesPartition ? '2' : '1');
    expect(records[0]!.headers['ce_type']).toBe(topic.type);
    expect(sut.records('no-such-topic')).toEqual([]);
  });

  it('publishes nothing when one event of the call cannot be encoded', async () => {
    const topic = pingTopic({
      codec: {
        ...pingTopic().codec,
        encode: (message: Ping) => {
          if (message.seq === 2) throw new Error('unencodable');
          return pingTopic().codec.encode(message);
        },
      },
    });
    const sut = createMemoryBus({ source: '//marquee/test' });

    await expect(
      sut.publish(topic, [
        { key: 'a', value: aPing({ seq: 1 }) },
        { key: 'a', value: aPing({ seq: 2 }) },
      ]),
    ).rejects.toThrow('unencodable');
    expect(sut.records(topic.name)).toEqual([]);
  });

  it('lets a second member of a group take over only when the first leaves', async () => {
    const broker = createMemoryBroker();
    const topic = pingTopic();
    const group = uniqueName('g');
    const first = createMemoryBus({ source: '//marquee/a', broker });
    const sut = createMemoryBus({ source: '//marquee/b', broker });
    const byFirst: string[] = [];
    const bySecond: string[] = [];
    await first.subscribe(topic, { group }, async (event) => {
      byFirst.push(event.id);
    });
    await sut.subscribe(topic, { group }, async (event) => {
      bySecond.push(event.id);
    });
    await first.start();
    await sut.start();

    await first.publish(topic, [{ key: 'k', value: aPing(), id: 'one' }]);
    await waitFor(() => byFirst.length === 1);
    await first.close();
    await sut.publish(topic, [{ key: 'k', value: aPing(), id: 'two' }]);
    await waitFor(() => bySecond.length === 1);

    const partition = sut.records(topic.name)[0]!.partition;
    await waitFor(() => broker.committedOffset(group, topic.name, partition) === '2');
    expect(byFirst).toEqual(['one']);
    expect(bySecond).toEqual(['two']);
    await sut.close();
  });

  it('starts a group without commits at the end of the log when fromBeginning is false', async () => {
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test' });
    await sut.publish(topic, [{ key: 'k', value: aPing(), id: 'old' }]);
    const seen: string[] = [];
    await sut.subscribe(topic, { group: uniqueName('g'), fromBeginning: false }, async (event) => {
      seen.push(event.id);
    });
    await sut.start();

    await sut.publish(topic, [{ key: 'k', value: aPing(), id: 'new' }]);

    await waitFor(() => seen.length === 1);
    expect(seen).toEqual(['new']);
    await sut.close();
  });

  it('works with no OpenTelemetry SDK registered and writes no trace headers then', async () => {
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test', logger: recordingLogger() });
    const seen = await collect(sut, topic);

    await sut.publish(topic, [{ key: 'k', value: aPing() }]);

    await waitFor(() => seen.length === 1);
    expect(seen[0]!.headers['traceparent']).toBeUndefined();
    await sut.close();
  });

  it('reads a foreign record without CloudEvents headers using fallbacks', async () => {
    const topic = pingTopic();
    const sut = createMemoryBus({ source: '//marquee/test' });
    const stored = sut.broker.append(topic.name, {
      key: 'k',
      value: topic.codec.encode(aPing()),
      headers: {},
    });
    const seen = await collect(sut, topic);

    await waitFor(() => seen.length === 1);
    expect(seen[0]).toMatchObject({
      id: `${topic.name}/${stored.partition}/0`,
      type: topic.type,
      source: '',
      time: stored.timestamp,
      value: aPing(),
    });
    await sut.close();
  });
});
