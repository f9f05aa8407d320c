import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventBus, IncomingEvent, RetryPolicy } from '../../src/bus/index.js';
import { uniqueName, waitFor } from '../../src/testing/index.js';
import type { BusContractHarness } from './bus-contract.js';
import {
  aPing,
  deadLetterTopicOf,
  deferred,
  pingTopic,
  recordingLogger,
  type Ping,
} from './fixtures.js';

const FAST_RETRY: Partial<RetryPolicy> = { initialBackoffMs: 10, maxBackoffMs: 40, multiplier: 2 };

/**
 * The contract of `subscribeGlobal` (a read model every replica holds whole), one suite for every
 * adapter: each bus is a replica reading the whole topic, whatever groups and other replicas do, and
 * is caught up once it has handled everything the topic held when it started.
 */
/** A global subscription of `bus` to `topic` (a fresh name) pushing each event's id to `handled`. */
async function subscribeIds(bus: EventBus, topic: ReturnType<typeof pingTopic>) {
  const handled: string[] = [];
  const subscription = await bus.subscribeGlobal(
    topic,
    { name: uniqueName('table') },
    async (event) => {
      handled.push(event.id);
    },
  );
  return { handled, subscription };
}

export function globalSubscriptionContract(
  adapter: string,
  makeHarness: () => BusContractHarness,
): void {
  describe(`global subscription contract: ${adapter}`, () => {
    let harness: BusContractHarness;
    let buses: EventBus[] = [];
    let logger: ReturnType<typeof recordingLogger>;

    const newBus = (source = '//marquee/global-contract'): EventBus => {
      const bus = harness.newBus({ source, retry: FAST_RETRY, logger });
      buses.push(bus);
      return bus;
    };
    const arrival = (description: string) => ({
      timeoutMs: harness.deliveryTimeoutMs,
      description,
    });
    /** `pings` of `keys`, each key with sequence numbers `from`..`to`. */
    const pings = (keys: string[], from: number, to: number) =>
      keys.flatMap((key) =>
        Array.from({ length: to - from + 1 }, (_, i) => ({
          key,
          value: aPing({ id: key, seq: from + i }),
          id: `${key}-${from + i}`,
        })),
      );

    beforeAll(() => {
      harness = makeHarness();
    });
    afterAll(async () => {
      await harness.dispose?.();
    });
    beforeEach(() => {
      logger = recordingLogger();
    });
    afterEach(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      buses = [];
    });

    it('gives every replica every record of every partition, history and live, beside a group', async () => {
      const topic = pingTopic({ compacted: true });
      const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
      const producer = newBus('//marquee/producer');
      await producer.publish(topic, pings(keys, 1, 5));

      const replicas = [newBus('//marquee/replica-1'), newBus('//marquee/replica-2')];
      const seen = replicas.map(() => [] as IncomingEvent<Ping>[]);
      for (const [index, replica] of replicas.entries()) {
        await replica.subscribeGlobal(topic, { name: uniqueName('table') }, async (event) => {
          seen[index]!.push(event);
        });
        await replica.start();
      }
      // A consumer group on the same topic still gets everything: global readers are not members.
      const worker = newBus('//marquee/worker');
      const worked: string[] = [];
      await worker.subscribe(topic, { group: uniqueName('g') }, async (event) => {
        worked.push(event.id);
      });
      await worker.start();
      await producer.publish(topic, pings(keys, 6, 10));

      const all = pings(keys, 1, 10).map((record) => record.id);
      for (const [index, events] of seen.entries()) {
        await waitFor(
          () => all.every((id) => events.some((event) => event.id === id)),
          arrival(`every record at replica ${index + 1}`),
        );
        for (const key of keys) {
          expect(
            events.filter((event) => event.key === key).map((event) => event.value!.seq),
          ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        }
        expect(new Set(events.map((event) => event.partition)).size).toBeGreaterThan(1);
      }
      await waitFor(() => all.every((id) => worked.includes(id)), arrival('the group too'));
    });

    it('is caught up only once everything the topic held at start has been handled', async () => {
      const topic = pingTopic({ compacted: true });
      const keys = ['k1', 'k2', 'k3', 'k4'];
      const producer = newBus();
      await producer.publish(topic, pings(keys, 1, 5));
      const sut = newBus();
      const gate = deferred();
      const handled: string[] = [];
      const subscription = await sut.subscribeGlobal(
        topic,
        { name: uniqueName('table'), concurrency: 2 },
        async (event) => {
          await gate.promise;
          handled.push(event.id);
        },
      );
      let handledWhenCaughtUp: string[] | undefined;
      void subscription.whenCaughtUp().then(() => {
        handledWhenCaughtUp = [...handled];
      });

      expect(subscription.caughtUp()).toBe(false);
      await sut.start();
      // Held by the gate: nothing handled, so not caught up.
      expect(subscription.caughtUp()).toBe(false);
      gate.resolve();

      await waitFor(() => handledWhenCaughtUp, arrival('catching up'));
      expect(handledWhenCaughtUp!.sort()).toEqual(
        pings(keys, 1, 5)
          .map((r) => r.id)
          .sort(),
      );
      expect(subscription.caughtUp()).toBe(true);

      // Records published afterwards keep coming; the subscription stays caught up.
      await producer.publish(topic, pings(['k1'], 6, 6));
      await waitFor(() => handled.includes('k1-6'), arrival('a live record'));
      expect(subscription.caughtUp()).toBe(true);
    });

    it('is caught up at once on an empty topic', async () => {
      const topic = pingTopic({ compacted: true });
      const sut = newBus();
      const { handled, subscription } = await subscribeIds(sut, topic);
      await sut.start();

      await waitFor(() => subscription.caughtUp(), arrival('caught up'));
      await sut.publish(topic, pings(['only'], 1, 1));
      await waitFor(() => handled.length === 1, arrival('the first record'));
      expect(handled).toEqual(['only-1']);
    });

    it('retries a failing record, then logs and skips it without dead-lettering it', async () => {
      const topic = pingTopic({ compacted: true });
      const producer = newBus();
      await producer.publish(topic, [
        { key: 'k', value: aPing({ seq: 1, note: 'poison' }), id: 'poison' },
        { key: 'k', value: aPing({ seq: 2 }), id: 'fine' },
      ]);
      const sut = newBus();
      const attempts: { id: string; attempt: number }[] = [];
      const handled: string[] = [];
      const subscription = await sut.subscribeGlobal(
        topic,
        { name: uniqueName('table'), maxAttempts: 2 },
        async (event) => {
          attempts.push({ id: event.id, attempt: event.attempt });
          if (event.id === 'poison') throw new Error('cannot apply the poison');
          handled.push(event.id);
        },
      );
      await sut.start();

      await subscription.whenCaughtUp();
      expect(handled).toEqual(['fine']);
      expect(attempts).toEqual([
        { id: 'poison', attempt: 1 },
        { id: 'poison', attempt: 2 },
        { id: 'fine', attempt: 1 },
      ]);
      const skipped = logger.entries.filter(
        (entry) => entry.level === 'error' && entry.message?.includes('skipped'),
      );
      expect(skipped).toHaveLength(1);
      expect(skipped[0]!.fields).toMatchObject({ topic: topic.name, eventId: 'poison' });

      // A dead letter would have been written before `fine` was handled (one key, one partition):
      // a reader of the dead-letter topic that starts now is caught up on an empty topic.
      const reader = newBus();
      const dead: string[] = [];
      const letters = await reader.subscribeGlobal(
        deadLetterTopicOf(topic),
        { name: uniqueName('dlq') },
        async (event) => {
          dead.push(event.id);
        },
      );
      await reader.start();
      await waitFor(() => letters.caughtUp(), arrival('the dead-letter reader'));
      expect(dead).toEqual([]);
    });

    it('refuses a bad or late subscription and stops reading at close', async () => {
      const topic = pingTopic({ compacted: true });
      const sut = newBus();
      const { handled, subscription } = await subscribeIds(sut, topic);
      await expect(
        sut.subscribeGlobal(topic, { name: uniqueName('bad'), maxAttempts: 0 }, async () => {}),
      ).rejects.toThrow(RangeError);
      await sut.start();
      await waitFor(() => subscription.caughtUp(), arrival('caught up'));
      await sut.close();

      await expect(
        sut.subscribeGlobal(topic, { name: uniqueName('late') }, async () => {}),
      ).rejects.toThrow(/closed/);
      const producer = newBus();
      await producer.publish(topic, pings(['after'], 1, 1));
      // A second replica sees it; the closed one does not.
      const other = newBus();
      const otherSeen: string[] = [];
      await other.subscribeGlobal(topic, { name: uniqueName('table') }, async (event) => {
        otherSeen.push(event.id);
      });
      await other.start();
      await waitFor(() => otherSeen.includes('after-1'), arrival('the other replica'));
      expect(handled).toEqual([]);
    });
  });
}
