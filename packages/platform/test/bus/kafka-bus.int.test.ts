import { createHook } from 'node:async_hooks';
import { EventChanged } from '@marquee/proto/catalog/v1';
import { eventChangedTopic } from '@marquee/proto/topics';
import { trace } from '@opentelemetry/api';
import { ConfigResourceTypes, Kafka, logLevel, type Admin, type KafkaMessage } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createKafkaBus,
  ensureTopics,
  type EventBus,
  type IncomingEvent,
} from '../../src/bus/index.js';
import { metricsText } from '../../src/metrics/index.js';
import { describeIntegration, uniqueName, waitFor } from '../../src/testing/index.js';
import { busContract } from './bus-contract.js';
import { globalSubscriptionContract } from './global-contract.js';
import { aPing, deferred, pingTopic, recordingLogger } from './fixtures.js';
import { recordingTracing } from '../support/tracing.js';

describeIntegration('kafka bus', (env) => {
  busContract('kafka', () => ({
    newBus: ({ source, retry, logger }) =>
      createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('contract'),
        source,
        retry,
        logger,
        topics: { numPartitions: 3 },
        // Short fetch waits make close() quick; the suite closes many consumers.
        consumer: { maxWaitTimeMs: 250 },
      }),
    deliveryTimeoutMs: 20_000,
  }));

  globalSubscriptionContract('kafka', () => ({
    newBus: ({ source, retry, logger }) =>
      createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('global-contract'),
        source,
        retry,
        logger,
        topics: { numPartitions: 3 },
        consumer: { maxWaitTimeMs: 250 },
      }),
    deliveryTimeoutMs: 20_000,
  }));

  describe('Kafka specifics', () => {
    const kafka = new Kafka({
      clientId: 'kafka-bus-int-test',
      ...env.kafka,
      logLevel: logLevel.NOTHING,
    });
    let admin: Admin;
    const buses: EventBus[] = [];

    beforeAll(async () => {
      admin = kafka.admin();
      await admin.connect();
    });
    afterAll(async () => {
      await admin.disconnect();
    });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
    });
    /** Records a group has committed on a topic: the sum of its committed offsets. */
    const committedCount = async (groupId: string, topic: string): Promise<number> => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    };

    it('ensureTopics creates a compacted topic and its dead-letter twin, once', async () => {
      const name = uniqueName('compacted');

      const created = await ensureTopics(admin, [{ name, compacted: true, retentionMs: -1 }], {
        numPartitions: 2,
      });
      const again = await ensureTopics(admin, [{ name, compacted: true, retentionMs: -1 }]);

      expect(created.sort()).toEqual([name, `${name}.dlq`].sort());
      expect(again).toEqual([]);
      const configs = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [name, `${name}.dlq`].map((topic) => ({
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configNames: ['cleanup.policy', 'retention.ms'],
        })),
      });
      const configOf = (topic: string, key: string): string | undefined =>
        configs.resources
          .find((resource) => resource.resourceName === topic)
          ?.configEntries.find((entry) => entry.configName === key)?.configValue;
      expect(configOf(name, 'cleanup.policy')).toBe('compact');
      expect(configOf(`${name}.dlq`, 'cleanup.policy')).toBe('delete');
      const metadata = await admin.fetchTopicMetadata({ topics: [name] });
      expect(metadata.topics[0]!.partitions).toHaveLength(2);
    });

    it('writes CloudEvents binary-mode headers, a protobuf value and null tombstones on the wire', async () => {
      const topic = pingTopic({ compacted: true });
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('wire'),
        source: '//marquee/wire-test',
      });
      buses.push(sut);

      await sut.publish(topic, [
        {
          key: 'event-1',
          value: aPing({ note: 'on the wire' }),
          id: 'wire-1',
          time: new Date('2025-06-01T00:00:00Z'),
        },
        { key: 'event-1', value: null, id: 'wire-2' },
      ]);

      // Read back with a plain kafkajs consumer, as an analytics team would.
      const records = await readAll(kafka, topic.name, 2);
      const [value, tombstone] = records;
      expect(value!.key?.toString()).toBe('event-1');
      expect(topic.codec.decode(value!.value!)).toEqual(aPing({ note: 'on the wire' }));
      expect(stringHeaders(value!)).toMatchObject({
        ce_specversion: '1.0',
        ce_id: 'wire-1',
        ce_source: '//marquee/wire-test',
        ce_type: topic.type,
        ce_time: '2025-06-01T00:00:00.000Z',
        'content-type': 'application/protobuf',
      });
      expect(value!.timestamp).toBe(String(Date.parse('2025-06-01T00:00:00Z')));
      expect(tombstone!.value).toBeNull();
      expect(stringHeaders(tombstone!)['ce_id']).toBe('wire-2');
    });

    it('sends the calls of one turn in one produce request', async () => {
      const topic = pingTopic();
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('one-request'),
        source: 'test',
      });
      buses.push(sut);
      await sut.publish(topic, [{ key: 'k', value: aPing({ seq: 0 }) }]); // topic ready, producer connected

      await Promise.all(
        [1, 2, 3].map((seq) => sut.publish(topic, [{ key: 'k', value: aPing({ seq }) }])),
      );

      const records = await readAll(kafka, topic.name, 4);
      const seqs = records.map((record) => topic.codec.decode(record.value!).seq);
      expect(seqs).toEqual([0, 1, 2, 3]);
      // One request carries one record batch per partition: the three calls share the first's offset.
      const batchOf = (record: KafkaMessage) =>
        (record as KafkaMessage & { batchContext: { firstOffset: string } }).batchContext
          .firstOffset;
      expect(records.slice(1).map(batchOf)).toEqual(Array(3).fill(records[1]!.offset));
      expect(batchOf(records[0]!)).toBe(records[0]!.offset);
    });

    it('fails only the call whose records the broker refused when calls shared a request', async () => {
      const small = pingTopic();
      const fine = pingTopic();
      await admin.createTopics({
        topics: [
          {
            topic: small.name,
            numPartitions: 1,
            configEntries: [{ name: 'max.message.bytes', value: '1024' }],
          },
        ],
      });
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('isolated'),
        source: 'test',
      });
      buses.push(sut);
      await sut.publish(small, [{ key: 'k', value: aPing({ note: 'fits' }) }]);
      await sut.publish(fine, [{ key: 'k', value: aPing({ seq: 0 }) }]);

      const [tooLarge, alongside] = await Promise.allSettled([
        sut.publish(small, [{ key: 'k', value: aPing({ note: 'x'.repeat(4096) }) }]),
        sut.publish(fine, [{ key: 'k', value: aPing({ seq: 1 }) }]),
      ]);

      expect(tooLarge.status).toBe('rejected');
      expect(alongside.status).toBe('fulfilled');
      // Sent once more alone, the idempotent producer's sequence numbers keep it from being doubled.
      await sut.publish(fine, [{ key: 'k', value: aPing({ seq: 2 }) }]);
      const records = await readAll(kafka, fine.name, 3);
      expect(records.map((record) => fine.codec.decode(record.value!).seq)).toEqual([0, 1, 2]);
    });

    it('reads a global subscription through a group of its own that commits nothing and is deleted at close', async () => {
      const topic = pingTopic({ compacted: true });
      const name = uniqueName('table');
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('global'),
        source: '//marquee/global-test',
        consumer: { maxWaitTimeMs: 250 },
      });
      buses.push(sut);
      await sut.publish(topic, [{ key: 'k', value: aPing(), id: 'one' }]);
      const subscription = await sut.subscribeGlobal(topic, { name }, async () => {});
      await sut.start();
      await subscription.whenCaughtUp();

      const live = (await admin.listGroups()).groups.filter((g) =>
        g.groupId.startsWith(`${name}.`),
      );
      expect(live).toHaveLength(1);
      const offsets = await admin.fetchOffsets({ groupId: live[0]!.groupId, topics: [topic.name] });
      // -1: no committed offset in any partition.
      expect(offsets[0]!.partitions.every((p) => p.offset === '-1')).toBe(true);

      await sut.close();
      const left = (await admin.listGroups()).groups.filter((g) =>
        g.groupId.startsWith(`${name}.`),
      );
      expect(left).toEqual([]);
    });

    it('answers ready() only while the broker does', async () => {
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('ready'),
        source: '//marquee/ready',
      });
      buses.push(sut);
      const unreachable = createKafkaBus({
        brokers: ['127.0.0.1:1'],
        clientId: uniqueName('unreachable'),
        source: '//marquee/ready',
        readyTimeoutMs: 500,
        logger: recordingLogger(),
      });
      buses.push(unreachable);

      expect(await sut.ready()).toBe(true);
      const started = Date.now();
      expect(await unreachable.ready()).toBe(false);
      // Bounded by readyTimeoutMs (500) rather than by kafkajs's retries; loose for loaded machines.
      expect(Date.now() - started).toBeLessThan(5_000);
    });
    it('commits a handled record while a later record of its batch is still being handled', async () => {
      const topic = pingTopic();
      const group = uniqueName('interval');
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('interval'),
        source: '//marquee/interval',
        consumer: { maxWaitTimeMs: 250, commitIntervalMs: 100 },
      });
      buses.push(sut);
      const gate = deferred();
      const seen: string[] = [];
      await sut.subscribe(topic, { group }, async (event) => {
        seen.push(event.id);
        if (event.id === 'second') await gate.promise;
      });
      await sut.ensureTopics([topic]);
      // One key, one partition, one publish: both records arrive in the same batch.
      await sut.publish(topic, [
        { key: 'k', value: aPing({ seq: 1 }), id: 'first' },
        { key: 'k', value: aPing({ seq: 2 }), id: 'second' },
        { key: 'k', value: aPing({ seq: 3 }), id: 'third' },
      ]);
      await sut.start();

      // Offsets are not committed per record, but a record handled stays uncommitted for at most
      // commitIntervalMs even when its batch has not ended: the blocked "second" must not hold it.
      const committed = () => committedCount(group, topic.name);
      try {
        await waitFor(() => seen.includes('second'), { timeoutMs: 20_000 });
        await waitFor(async () => (await committed()) === 1, { timeoutMs: 10_000 });
      } finally {
        gate.resolve();
      }
      await waitFor(async () => (await committed()) === 3, { timeoutMs: 10_000 });
      expect(seen).toEqual(['first', 'second', 'third']);
    });

    /** A started bus whose one group records the ids it handles, on a fresh topic. */
    const recordingGroup = async (
      name: string,
      consumer: Parameters<typeof createKafkaBus>[0]['consumer'],
    ) => {
      const topic = pingTopic();
      const group = uniqueName(name);
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName(name),
        source: `//marquee/${name}`,
        consumer,
      });
      buses.push(sut);
      const seen: string[] = [];
      await sut.subscribe(topic, { group }, async (event) => {
        seen.push(event.id);
      });
      await sut.ensureTopics([topic]);
      await sut.start();
      const publish = (id: string) =>
        sut.publish(topic, [{ key: 'k', value: aPing({ seq: seen.length }), id }]);
      /** One record per publish, each handled before the next is sent: one batch each. */
      const oneByOne = async (ids: string[]) => {
        for (const id of ids) {
          await publish(id);
          await waitFor(() => seen.includes(id), { timeoutMs: 20_000 });
        }
      };
      const committed = () => committedCount(group, topic.name);
      return { sut, group, seen, publish, oneByOne, committed };
    };

    it('commits records of several batches in one go, and what is left when it closes', async () => {
      // A commit interval longer than the test: only a batch's end or close() could commit.
      const { sut, seen, oneByOne, committed } = await recordingGroup('coalesce', {
        maxWaitTimeMs: 250,
        commitIntervalMs: 600_000,
      });
      await oneByOne(['one', 'two', 'three']);
      // Three batches ended and none committed: their offsets wait for the interval.
      expect(await committed()).toBe(0);

      await sut.close();
      expect(await committed()).toBe(3);
      expect(seen).toEqual(['one', 'two', 'three']);
    });

    it("reports each group's lag per partition: records not committed yet, none once committed", async () => {
      /** The group's lag summed over its partitions, as a scrape shows it; undefined: no series. */
      const lagOf = async (group: string) => {
        const lines = (await metricsText())
          .split('\n')
          .filter((line) => line.startsWith(`marquee_kafka_consumer_lag{group="${group}",`));
        if (lines.length === 0) return undefined;
        return lines.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      };
      // Handled and never committed while the test runs (the interval is longer): a lag of three.
      const held = await recordingGroup('lag-held', {
        maxWaitTimeMs: 250,
        commitIntervalMs: 600_000,
      });
      await held.oneByOne(['one', 'two', 'three']);
      expect(await held.committed()).toBe(0);
      expect(await lagOf(held.group)).toBe(3);
      // Committed at once: no lag.
      const prompt = await recordingGroup('lag-committed', {
        maxWaitTimeMs: 250,
        commitIntervalMs: 200,
      });
      await prompt.oneByOne(['one', 'two']);
      await waitFor(async () => (await prompt.committed()) === 2, { timeoutMs: 10_000 });
      expect(await lagOf(prompt.group)).toBe(0);
    });

    it('commits a partition idle since its last record once the interval has passed', async () => {
      const { oneByOne, committed } = await recordingGroup('idle-commit', {
        maxWaitTimeMs: 250,
        commitIntervalMs: 200,
      });
      await oneByOne(['one', 'two']);
      // No later batch and no close: the timer alone commits.
      await waitFor(async () => (await committed()) === 2, { timeoutMs: 10_000 });
    });

    it('delivers what a batching consumer fetched once its wait is over, short of minBytes', async () => {
      // Far more bytes than the test publishes: every fetch ends by its wait.
      const { sut, seen, publish, committed } = await recordingGroup('min-bytes', {
        maxWaitTimeMs: 500,
        minBytes: 10 * 1024 * 1024,
      });
      for (const id of ['one', 'two', 'three']) await publish(id);
      await waitFor(() => seen.length === 3, { timeoutMs: 20_000 });
      expect(seen).toEqual(['one', 'two', 'three']);
      await sut.close();
      expect(await committed()).toBe(3);
    });

    it('keeps a member in its group while one handler call outlasts the session', async () => {
      // The broker's shortest session (6 s) and a handler call of 9 s: without heartbeats during the
      // call the coordinator drops the member, its commit fails and the record is handled again.
      const topic = pingTopic();
      const group = uniqueName('long-handler');
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: uniqueName('long-handler'),
        source: '//marquee/long-handler',
        consumer: {
          maxWaitTimeMs: 250,
          commitIntervalMs: 100,
          sessionTimeoutMs: 6_000,
          heartbeatIntervalMs: 1_000,
        },
      });
      buses.push(sut);
      const seen: string[] = [];
      await sut.subscribe(topic, { group }, async (event) => {
        seen.push(event.id);
        if (event.id === 'slow') await new Promise((resolve) => setTimeout(resolve, 9_000));
      });
      await sut.ensureTopics([topic]);
      await sut.publish(topic, [
        { key: 'k', value: aPing({ seq: 1 }), id: 'slow' },
        { key: 'k', value: aPing({ seq: 2 }), id: 'after' },
      ]);
      await sut.start();
      const committed = () => committedCount(group, topic.name);
      // A dropped member would have its uncommitted "slow" delivered again before "after".
      await waitFor(async () => seen.includes('after') && (await committed()) === 2, {
        timeoutMs: 40_000,
      });
      expect(seen).toEqual(['slow', 'after']);
    }, 60_000);

    it('leaves an idle connection without timers (patches/kafkajs@2.2.4.patch)', async () => {
      // Unpatched kafkajs 2.2.4 re-arms a 1 ms timer on every connection after its first answer,
      // forever (tulios/kafkajs#1704): hundreds of timers a second per idle client.
      const client = new Kafka({
        clientId: uniqueName('idle'),
        ...env.kafka,
        logLevel: logLevel.NOTHING,
      }).admin();
      await client.connect();
      try {
        await client.fetchTopicMetadata({ topics: [] });
        let timers = 0;
        const hook = createHook({
          init: (_id, type) => {
            if (type === 'Timeout') timers += 1;
          },
        }).enable();
        await new Promise((resolve) => setTimeout(resolve, 500));
        hook.disable();
        // The wait above is one; kafkajs's request-timeout sweep (every 100 ms) is five more.
        expect(timers).toBeLessThan(20);
      } finally {
        await client.disconnect();
      }
    });
  });

  describe('end to end with a catalog topic', () => {
    const tracing = recordingTracing();
    const { exporter, provider } = tracing;
    const buses: EventBus[] = [];

    beforeAll(() => {
      tracing.install();
    });
    afterAll(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      tracing.uninstall();
      await provider.shutdown();
    });

    it('carries an EventChanged from the publisher to catalog-indexer with headers and trace', async () => {
      // The catalog's definition under a fresh name, so the run never touches the real topic.
      const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
      const publisher = createKafkaBus({
        ...env.kafka,
        clientId: 'publisher',
        source: '//marquee/publisher',
      });
      const sut = createKafkaBus({
        ...env.kafka,
        clientId: 'catalog-indexer',
        source: '//marquee/catalog-indexer',
      });
      buses.push(publisher, sut);
      const received: IncomingEvent<EventChanged>[] = [];
      await sut.subscribe(
        topic,
        { group: uniqueName('catalog-indexer.event-changed') },
        async (event) => {
          received.push(event);
        },
      );
      await sut.start();
      const changedAt = new Date('2025-07-01T12:00:00.000Z');
      const message = EventChanged.fromPartial({
        event: {
          id: 'G5vYZ9s1n2A3b4C',
          version: 3,
          publisherVersion: 2,
          active: true,
          test: false,
        },
        changedAt,
      });

      const tracer = trace.getTracer('e2e');
      const publishTraceId = await tracer.startActiveSpan(
        'PUT /publish/v2/events',
        async (span) => {
          await publisher.publish(topic, [
            { key: 'G5vYZ9s1n2A3b4C', value: message, time: changedAt },
          ]);
          span.end();
          return span.spanContext().traceId;
        },
      );

      await waitFor(() => received.length === 1, {
        timeoutMs: 20_000,
        description: 'the EventChanged',
      });
      const [event] = received;
      expect(event!.value).toEqual(message);
      expect(event!.value?.event?.id).toBe('G5vYZ9s1n2A3b4C');
      expect(event!.value?.event?.version).toBe(3);
      expect(event!.headers).toMatchObject({
        ce_specversion: '1.0',
        ce_source: '//marquee/publisher',
        ce_type: eventChangedTopic.type,
        ce_time: changedAt.toISOString(),
        'content-type': 'application/protobuf',
      });
      const process = await waitFor(
        () => exporter.getFinishedSpans().find((span) => span.name === `${topic.name} process`),
        { timeoutMs: 20_000, description: 'the process span' },
      );
      const publish = exporter
        .getFinishedSpans()
        .find((span) => span.name === `${topic.name} publish`)!;
      expect(process.spanContext().traceId).toBe(publishTraceId);
      expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    });
  });
});

/** Reads `count` records of a topic from the beginning with a throwaway consumer group. */
async function readAll(kafka: Kafka, topic: string, count: number): Promise<KafkaMessage[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), maxWaitTimeInMs: 250 });
  const records: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        records.push(message);
      },
    });
    await waitFor(() => records.length >= count, {
      timeoutMs: 20_000,
      description: `${count} records of ${topic}`,
    });
  } finally {
    await consumer.disconnect();
  }
  return records.sort((a, b) => Number(a.offset) - Number(b.offset));
}

function stringHeaders(message: KafkaMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
}
