import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  BusLogger,
  EventBus,
  IncomingEvent,
  RetryPolicy,
  TopicDef,
} from '../../src/bus/index.js';
import { metricValue, uniqueName, waitFor } from '../../src/testing/index.js';
import {
  aPing,
  deadLetterTopicOf,
  deferred,
  pingTopic,
  recordingLogger,
  type Ping,
  collect,
} from './fixtures.js';
import { recordingTracing } from '../support/tracing.js';

/**
 * The event-bus contract (docs/architecture.md, Event bus), one suite for every adapter: the
 * memory bus of the embedded default must behave as the Kafka bus does, or the embedded mode would
 * hide bugs the distributed one shows.
 */
export interface BusContractHarness {
  /**
   * A new bus — think "a new process" — attached to the same broker as every other bus the suite
   * creates, so that a second bus with the same consumer group continues where the first stopped.
   */
  newBus(options: { source: string; retry: Partial<RetryPolicy>; logger: BusLogger }): EventBus;
  /** How long to wait for a delivery (real Kafka needs a group join first). */
  deliveryTimeoutMs: number;
  /** Releases shared resources after the suite. */
  dispose?(): Promise<void>;
}

/** Fast retries: the tests are about counts and order, not about waiting. */
const FAST_RETRY: Partial<RetryPolicy> = { initialBackoffMs: 10, maxBackoffMs: 40, multiplier: 2 };

/** The ids of the `events` received so far, read at each call. */
const ids = (events: { id: string }[]) => () => events.map((event) => event.id);

export function busContract(adapter: string, makeHarness: () => BusContractHarness): void {
  describe(`event bus contract: ${adapter}`, () => {
    let harness: BusContractHarness;
    let buses: EventBus[] = [];
    let logger: ReturnType<typeof recordingLogger>;
    const tracing = recordingTracing();
    const { exporter, provider: tracerProvider } = tracing;

    const newBus = (source = '//marquee/contract-test'): EventBus => {
      const bus = harness.newBus({ source, retry: FAST_RETRY, logger });
      buses.push(bus);
      return bus;
    };
    const arrival = (description: string) => ({
      timeoutMs: harness.deliveryTimeoutMs,
      description,
    });

    beforeAll(() => {
      harness = makeHarness();
      // What the NodeSDK registers in a service: a tracer provider, async context, W3C propagation.
      tracing.install();
    });

    afterAll(async () => {
      tracing.uninstall();
      await tracerProvider.shutdown();
      await harness.dispose?.();
    });

    beforeEach(() => {
      logger = recordingLogger();
      exporter.reset();
    });

    afterEach(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      buses = [];
    });

    it('delivers the published protobuf message with its CloudEvents attributes', async () => {
      const topic = pingTopic();
      const producer = newBus('//marquee/producer-service');
      const sut = newBus('//marquee/consumer-service');
      const received = await collect(sut, topic);
      const sent = aPing({ id: 'evt-42', seq: 300, note: 'Ünïcødé seats' });
      const time = new Date('2025-03-01T10:00:00.123Z');

      await producer.publish(topic, [
        {
          key: 'evt-42',
          value: sent,
          id: 'ce-id-1',
          time,
          // A caller cannot override the attributes the bus owns; other headers pass through.
          headers: { 'x-correlation-id': 'corr-7', ce_id: 'spoofed', 'content-type': 'text/plain' },
        },
      ]);

      await waitFor(() => received.length === 1, arrival('the event'));
      const [event] = received;
      expect(event).toMatchObject({
        topic: topic.name,
        key: 'evt-42',
        value: sent,
        id: 'ce-id-1',
        type: 'marquee.test.v1.Ping',
        source: '//marquee/producer-service',
        time,
        attempt: 1,
      });
      expect(topic.codec.encode(event!.value!)).toEqual(topic.codec.encode(sent));
      expect(event!.headers).toMatchObject({
        ce_specversion: '1.0',
        ce_id: 'ce-id-1',
        ce_source: '//marquee/producer-service',
        ce_type: 'marquee.test.v1.Ping',
        ce_time: '2025-03-01T10:00:00.123Z',
        'content-type': 'application/protobuf',
        'x-correlation-id': 'corr-7',
      });
      expect(Number.isInteger(event!.partition) && event!.partition >= 0).toBe(true);
      expect(event!.offset).toMatch(/^\d+$/);
    });

    it('fills in a UUID id, the current time and the bus source when the event does not say', async () => {
      const topic = pingTopic();
      const sut = newBus('//marquee/defaults');
      const received = await collect(sut, topic);
      const before = Date.now();

      await sut.publish(topic, [
        { key: 'k', value: aPing({ seq: 1 }) },
        { key: 'k', value: aPing({ seq: 2 }) },
      ]);

      await waitFor(() => received.length === 2, arrival('both events'));
      const [first, second] = received;
      expect(first!.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(second!.id).not.toBe(first!.id);
      expect(first!.source).toBe('//marquee/defaults');
      expect(first!.time.getTime()).toBeGreaterThanOrEqual(before);
      expect(first!.time.getTime()).toBeLessThanOrEqual(Date.now());
    });

    it('keeps the order of each key, even with partitions processed in parallel', async () => {
      const topic = pingTopic();
      const sut = newBus();
      const seen = new Map<string, number[]>();
      let total = 0;
      await sut.subscribe(topic, { group: uniqueName('g'), concurrency: 3 }, async (event) => {
        // Uneven handler times would reorder records if anything processed a key in parallel.
        await new Promise((resolve) => setTimeout(resolve, event.value!.seq % 3));
        seen.set(event.key, [...(seen.get(event.key) ?? []), event.value!.seq]);
        total += 1;
      });
      await sut.start();
      const keys = ['order-a', 'order-b', 'order-c', 'order-d'];
      const perKey = 12;

      for (let seq = 1; seq <= perKey; seq += 3) {
        // Mix single and batched publishes, interleaving keys.
        await sut.publish(
          topic,
          keys.flatMap((key) =>
            [seq, seq + 1, seq + 2].map((s) => ({ key, value: aPing({ id: key, seq: s }) })),
          ),
        );
      }

      await waitFor(() => total === keys.length * perKey, arrival('every event'));
      const expected = Array.from({ length: perKey }, (_, i) => i + 1);
      for (const key of keys) expect(seen.get(key)).toEqual(expected);
    });

    it('handles records of different keys at once with keysInParallel, each key in order', async () => {
      const topic = pingTopic();
      const sut = newBus();
      const seen = new Map<string, number[]>();
      let inFlight = 0;
      let mostAtOnce = 0;
      let total = 0;
      await sut.subscribe(topic, { group: uniqueName('g'), keysInParallel: 4 }, async (event) => {
        inFlight += 1;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        // Wait (up to 200 ms) for another record to start: one taken together with this one does;
        // a consumer handling one record at a time never starts one.
        const until = Date.now() + 200;
        while (inFlight < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
        await new Promise((resolve) => setTimeout(resolve, event.value!.seq % 3));
        seen.set(event.key, [...(seen.get(event.key) ?? []), event.value!.seq]);
        inFlight -= 1;
        total += 1;
      });
      const keys = Array.from({ length: 16 }, (_, i) => `cart-${i}`);
      const perKey = 3;
      await sut.publish(
        topic,
        Array.from({ length: perKey }, (_, i) => i + 1).flatMap((seq) =>
          keys.map((key) => ({ key, value: aPing({ id: key, seq }) })),
        ),
      );
      await sut.start();

      await waitFor(() => total === keys.length * perKey, arrival('every event'));
      expect(mostAtOnce).toBeGreaterThanOrEqual(2);
      expect(mostAtOnce).toBeLessThanOrEqual(4);
      for (const key of keys) expect(seen.get(key)).toEqual([1, 2, 3]);
    });

    it('delivers a tombstone as a null value after the value it deletes', async () => {
      const topic = pingTopic({ compacted: true });
      const sut = newBus();
      const received = await collect(sut, topic);

      await sut.publish(topic, [{ key: 'event-9', value: aPing({ id: 'event-9' }) }]);
      await sut.publish(topic, [{ key: 'event-9', value: null, id: 'deleted-9' }]);

      await waitFor(() => received.length === 2, arrival('value and tombstone'));
      expect(received.map((event) => event.value)).toEqual([aPing({ id: 'event-9' }), null]);
      const tombstone = received[1]!;
      expect(tombstone).toMatchObject({ key: 'event-9', id: 'deleted-9', type: topic.type });
      expect(tombstone.headers['ce_id']).toBe('deleted-9');
      // No data, so no data content type.
      expect(tombstone.headers['content-type']).toBeUndefined();
    });

    it('retries a failing handler with an increasing attempt count, then moves on in order', async () => {
      const topic = pingTopic();
      const sut = newBus();
      const attempts: { seq: number; attempt: number; id: string }[] = [];
      const handled: number[] = [];
      await sut.subscribe(topic, { group: uniqueName('g'), maxAttempts: 5 }, async (event) => {
        attempts.push({ seq: event.value!.seq, attempt: event.attempt, id: event.id });
        if (event.value!.seq === 1 && event.attempt < 3)
          throw new Error('database not reachable yet');
        handled.push(event.value!.seq);
      });
      await sut.start();

      await sut.publish(topic, [
        { key: 'cart-1', value: aPing({ seq: 1 }), id: 'first' },
        { key: 'cart-1', value: aPing({ seq: 2 }), id: 'second' },
      ]);

      await waitFor(() => handled.length === 2, arrival('both events handled'));
      expect(handled).toEqual([1, 2]);
      expect(attempts).toEqual([
        { seq: 1, attempt: 1, id: 'first' },
        { seq: 1, attempt: 2, id: 'first' },
        { seq: 1, attempt: 3, id: 'first' },
        { seq: 2, attempt: 1, id: 'second' },
      ]);
      expect(
        logger.entries.filter(
          (entry) => entry.level === 'warn' && entry.message?.includes('retry'),
        ),
      ).toHaveLength(2);
    });

    it('dead-letters a poison record to <topic>.dlq after maxAttempts, with the failure in headers', async () => {
      const topic = pingTopic();
      const sut = newBus();
      const attempts: IncomingEvent<Ping>[] = [];
      const handled: number[] = [];
      const group = uniqueName('g');
      const deadLetters = `marquee_dead_letters_total{topic="${topic.name}",group="${group}"}`;
      expect(await metricValue(deadLetters)).toBeUndefined();
      await sut.subscribe(topic, { group, maxAttempts: 3 }, async (event) => {
        attempts.push(event);
        if (event.value!.seq === 1) throw new Error('cannot apply ping 1');
        handled.push(event.value!.seq);
      });
      const dead: IncomingEvent<Uint8Array>[] = [];
      await sut.subscribe(
        deadLetterTopicOf(topic),
        { group: uniqueName('dlq-reader') },
        async (event) => {
          dead.push(event);
        },
      );
      await sut.start();
      const poison = aPing({ seq: 1, note: 'personal data that must not reach logs' });

      await sut.publish(topic, [
        {
          key: 'order-7',
          value: poison,
          id: 'poison-1',
          headers: { 'x-correlation-id': 'corr-poison' },
        },
        { key: 'order-7', value: aPing({ seq: 2 }) },
      ]);

      // The next record of the same key is processed: the poison was set aside and committed.
      await waitFor(
        () => handled.includes(2) && dead.length === 1,
        arrival('dead letter and next record'),
      );
      // Counted once, when the dead-letter write succeeded.
      expect(await metricValue(deadLetters)).toBe(1);
      expect(
        attempts.filter((event) => event.value!.seq === 1).map((event) => event.attempt),
      ).toEqual([1, 2, 3]);
      const original = attempts[0]!;
      const letter = dead[0]!;
      expect(letter.key).toBe('order-7');
      expect(letter.value).toEqual(topic.codec.encode(poison));
      expect(letter.id).toBe('poison-1');
      expect(letter.type).toBe(topic.type);
      expect(letter.headers).toMatchObject({
        'x-dlq-error': 'Error: cannot apply ping 1',
        'x-dlq-attempts': '3',
        'x-dlq-original-topic': topic.name,
        'x-dlq-original-partition': String(original.partition),
        'x-dlq-original-offset': original.offset,
        ce_id: 'poison-1',
        ce_specversion: '1.0',
        'x-correlation-id': 'corr-poison',
      });
      expect(JSON.stringify(logger.entries)).not.toContain('personal data');
    });

    it('dead-letters a record whose value does not decode without calling the handler', async () => {
      const topic = pingTopic();
      const corrupting: TopicDef<Ping> = {
        ...topic,
        codec: { ...topic.codec, encode: () => Uint8Array.of(0x0a, 0xff) },
      };
      const sut = newBus();
      const handled: IncomingEvent<Ping>[] = [];
      await sut.subscribe(topic, { group: uniqueName('g') }, async (event) => {
        handled.push(event);
      });
      const dead: IncomingEvent<Uint8Array>[] = [];
      await sut.subscribe(
        deadLetterTopicOf(corrupting),
        { group: uniqueName('dlq-reader') },
        async (event) => {
          dead.push(event);
        },
      );
      await sut.start();

      await sut.publish(corrupting, [{ key: 'k', value: aPing(), id: 'garbled' }]);
      await sut.publish(topic, [{ key: 'k', value: aPing({ seq: 2 }), id: 'fine' }]);

      await waitFor(
        () => handled.length === 1 && dead.length === 1,
        arrival('dead letter and next record'),
      );
      expect(handled.map((event) => event.id)).toEqual(['fine']);
      expect(dead[0]!.value).toEqual(Uint8Array.of(0x0a, 0xff));
      expect(dead[0]!.id).toBe('garbled');
      expect(dead[0]!.headers['x-dlq-attempts']).toBe('0');
      expect(dead[0]!.headers['x-dlq-error']).toMatch(
        /^UndecodableRecordError: cannot decode marquee\.test\.v1\.Ping/,
      );
    });

    it('never commits a record whose handler failed: a restarted consumer receives it again', async () => {
      const topic = pingTopic();
      const group = uniqueName('g');
      const first = newBus();
      const failures: IncomingEvent<Ping>[] = [];
      await first.subscribe(topic, { group, maxAttempts: 1_000 }, async (event) => {
        failures.push(event);
        throw new Error('downstream unavailable');
      });
      await first.start();
      await first.publish(topic, [{ key: 'k', value: aPing({ seq: 1 }), id: 'unlucky' }]);
      await waitFor(() => failures.length >= 2, arrival('a retried failure'));

      await first.close();
      const sut = newBus();
      const received = await collect(sut, topic, group);

      await waitFor(() => received.length === 1, arrival('the redelivery'));
      expect(received[0]).toMatchObject({ id: 'unlucky', value: aPing({ seq: 1 }), attempt: 1 });
    });

    it('resumes a restarted consumer after its last commit: nothing twice, nothing lost', async () => {
      const topic = pingTopic();
      const group = uniqueName('g');
      const producer = newBus();
      const first = newBus();
      const firstSeen: string[] = [];
      await first.subscribe(topic, { group }, async (event) => {
        firstSeen.push(event.id);
      });
      await first.start();
      await producer.publish(topic, [{ key: 'k', value: aPing({ seq: 1 }), id: 'm1' }]);
      await waitFor(() => firstSeen.length === 1, arrival('m1'));
      await first.close();

      // Published while the group has no running consumer.
      await producer.publish(topic, [
        { key: 'k', value: aPing({ seq: 2 }), id: 'm2' },
        { key: 'k', value: aPing({ seq: 3 }), id: 'm3' },
      ]);
      const seen = ids(await collect(newBus(), topic, group));

      // One key, so a redelivered m1 would arrive before m3.
      await waitFor(() => seen().includes('m3'), arrival('m3'));
      expect(seen()).toEqual(['m2', 'm3']);
    });

    it('close() lets the in-flight handler finish and commits it', async () => {
      const topic = pingTopic();
      const group = uniqueName('g');
      const first = newBus();
      const gate = deferred();
      const started: string[] = [];
      const finished: string[] = [];
      await first.subscribe(topic, { group }, async (event) => {
        started.push(event.id);
        await gate.promise;
        finished.push(event.id);
      });
      await first.start();
      await first.publish(topic, [{ key: 'k', value: aPing(), id: 'slow' }]);
      await waitFor(() => started.length === 1, arrival('the handler to start'));

      let closed = false;
      const closing = first.close().then(() => {
        closed = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(closed).toBe(false);
      gate.resolve();
      await closing;
      expect(finished).toEqual(['slow']);

      const producer = newBus();
      await producer.publish(topic, [{ key: 'k', value: aPing({ seq: 2 }), id: 'next' }]);
      const seen = ids(await collect(newBus(), topic, group));
      await waitFor(() => seen().includes('next'), arrival('the next record'));
      expect(seen()).toEqual(['next']);
    });

    it("parents the consumer's process span on the producer's publish span across the bus", async () => {
      const topic = pingTopic();
      const producer = newBus('//marquee/producer-service');
      const sut = newBus('//marquee/consumer-service');
      let activeInHandler: string | undefined;
      const received: IncomingEvent<Ping>[] = [];
      await sut.subscribe(topic, { group: uniqueName('g') }, async (event) => {
        activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
        received.push(event);
      });
      await sut.start();
      const tracer = trace.getTracer('contract-test');

      await tracer.startActiveSpan('POST /publish', async (request) => {
        await producer.publish(topic, [{ key: 'k', value: aPing({ note: 'do not trace me' }) }]);
        request.end();
      });

      await waitFor(() => received.length === 1, arrival('the event'));
      const spans = await waitFor(() => {
        const finished = exporter.getFinishedSpans();
        const publish = finished.find((span) => span.name === `${topic.name} publish`);
        const process = finished.find((span) => span.name === `${topic.name} process`);
        return publish && process
          ? { publish, process, request: finished.find((s) => s.name === 'POST /publish') }
          : undefined;
      }, arrival('both spans'));
      const { publish, process, request } = spans;
      expect(publish.kind).toBe(SpanKind.PRODUCER);
      expect(process.kind).toBe(SpanKind.CONSUMER);
      expect(publish.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
      expect(process.spanContext().traceId).toBe(publish.spanContext().traceId);
      expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
      expect(activeInHandler).toBe(process.spanContext().spanId);
      expect(received[0]!.headers['traceparent']).toBe(
        `00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`,
      );
      expect(publish.attributes).toMatchObject({
        'messaging.destination.name': topic.name,
        'messaging.operation.type': 'send',
        'messaging.kafka.message.key': 'k',
      });
      expect(process.attributes).toMatchObject({
        'messaging.destination.name': topic.name,
        'messaging.operation.type': 'process',
        'messaging.message.id': received[0]!.id,
      });
      expect(JSON.stringify([publish.attributes, process.attributes])).not.toContain(
        'do not trace me',
      );
    });

    it('consumes a subscription added after start(), also as a second topic of a running group', async () => {
      const first = pingTopic();
      const second = pingTopic();
      const group = uniqueName('g');
      const sut = newBus();
      const seen: string[] = [];
      await sut.subscribe(first, { group }, async (event) => {
        seen.push(`first:${event.id}`);
      });
      await sut.start();
      await sut.publish(first, [{ key: 'k', value: aPing(), id: 'a' }]);
      await waitFor(() => seen.length === 1, arrival('the first topic'));

      await sut.subscribe(second, { group }, async (event) => {
        seen.push(`second:${event.id}`);
      });
      await sut.publish(second, [{ key: 'k', value: aPing(), id: 'b' }]);
      await sut.publish(first, [{ key: 'k', value: aPing(), id: 'c' }]);

      await waitFor(() => seen.length === 3, arrival('both topics'));
      // Restarting the group to add a topic must not replay what it had committed.
      expect(seen.sort()).toEqual(['first:a', 'first:c', 'second:b']);
    });

    it('shares a group between two running members: every record handled, each key in order', async () => {
      const topic = pingTopic();
      const group = uniqueName('g');
      const handled: { member: string; key: string; seq: number }[] = [];
      const members = [newBus('//marquee/replica-1'), newBus('//marquee/replica-2')];
      for (const [index, member] of members.entries()) {
        await member.subscribe(topic, { group }, async (event) => {
          handled.push({ member: `m${index}`, key: event.key, seq: event.value!.seq });
        });
        await member.start();
      }
      const keys = ['a', 'b', 'c', 'd', 'e', 'f'];

      for (let seq = 1; seq <= 5; seq++) {
        await members[seq % 2]!.publish(
          topic,
          keys.map((key) => ({ key, value: aPing({ seq }) })),
        );
      }

      const all = keys.flatMap((key) => [1, 2, 3, 4, 5].map((seq) => `${key}:${seq}`));
      await waitFor(
        () => all.every((id) => handled.some((h) => `${h.key}:${h.seq}` === id)),
        arrival('every record'),
      );
      // At least once: a rebalance may replay a record, but never skip one or reorder a key.
      for (const key of keys) {
        const firstSeen = [...new Set(handled.filter((h) => h.key === key).map((h) => h.seq))];
        expect(firstSeen).toEqual([1, 2, 3, 4, 5]);
      }
    });

    it('rejects a bad or duplicate subscription and leaves the group working', async () => {
      const topic = pingTopic();
      const group = uniqueName('g');
      const sut = newBus();
      const seen: string[] = [];

      await expect(sut.subscribe(topic, { group, maxAttempts: 0 }, async () => {})).rejects.toThrow(
        RangeError,
      );
      await sut.subscribe(topic, { group }, async (event) => {
        seen.push(event.id);
      });
      await expect(sut.subscribe(topic, { group }, async () => {})).rejects.toThrow(
        /already subscribes/,
      );
      await sut.start();
      await sut.publish(topic, [{ key: 'k', value: aPing(), id: 'ok' }]);

      await waitFor(() => seen.length === 1, arrival('the event'));
      expect(seen).toEqual(['ok']);
    });

    it('closes a bus that was never started', async () => {
      const sut = newBus();
      await sut.subscribe(pingTopic(), { group: uniqueName('g') }, async () => {});

      await sut.close();

      expect(await sut.ready()).toBe(false);
      await expect(sut.start()).rejects.toThrow(/closed/);
    });

    it('is ready once started, closes idempotently, and refuses to publish after close', async () => {
      const topic = pingTopic();
      const sut = newBus();
      await sut.subscribe(topic, { group: uniqueName('g') }, async () => {});
      await sut.start();

      expect(await sut.ready()).toBe(true);
      await Promise.all([sut.close(), sut.close()]);
      await sut.close();

      expect(await sut.ready()).toBe(false);
      await expect(sut.publish(topic, [{ key: 'k', value: aPing() }])).rejects.toThrow(/closed/);
    });
  });
}
