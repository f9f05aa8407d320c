/**
 * The outbox relay's guarantees, run against every store adapter (relay-memory.unit.test.ts,
 * relay-mongo.int.test.ts): every event published at least once, in write order per document,
 * nothing lost across a relay crash at any point, one relay per source at a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import {
  createOutboxRelay,
  type OutboxRelay,
  type OutboxRelayOptions,
} from '../../src/outbox/relay.js';
import type {
  OutboxEvent,
  OutboxSource,
  RawOutgoingEvent,
  RawPublisher,
} from '../../src/outbox/types.js';
import { metricValue, waitFor } from '../../src/testing/index.js';
import { aShow, anEvent, type ContractStore } from '../store/store-contract.js';

/** A fresh, empty store (its own collection) per call. */
export type RelaySourceFactory = () => Promise<ContractStore>;

const logger = createLogger({ service: 'outbox-relay-test', level: 'silent' });

interface Published {
  topic: string;
  event: RawOutgoingEvent;
}

/** A RawPublisher that records what it was given; `behaviour` may throw or hang to simulate failures. */
function recorder(
  behaviour: (
    topic: string,
    events: RawOutgoingEvent[],
    call: number,
  ) => Promise<void> | void = () => undefined,
) {
  const published: Published[] = [];
  let calls = 0;
  const publish: RawPublisher = async (topic, events) => {
    calls += 1;
    await behaviour(topic, events, calls);
    for (const event of events) published.push({ topic, event });
  };
  return {
    publish,
    published,
    get calls() {
      return calls;
    },
    ids: () => new Set(published.map((p) => p.event.id)),
  };
}

/**
 * Writes a history over several documents: each gets an insert and updates, each write carrying an
 * event on `show-changed`, and every other write one more on `show-audit`. Returns the events in
 * write order.
 */
async function writeHistory(
  store: ContractStore,
  documents = 4,
  updatesEach = 3,
): Promise<OutboxEvent[]> {
  const written: OutboxEvent[] = [];
  const drafts = Array.from({ length: documents }, () => aShow());
  for (const draft of drafts) {
    const events = [anEvent(draft.id), anEvent(draft.id, { topic: 'show-audit' })];
    await store.insert(draft, { events });
    written.push(...events);
  }
  for (let round = 1; round <= updatesEach; round += 1) {
    for (const draft of drafts) {
      const events =
        round % 2 === 0
          ? [anEvent(draft.id), anEvent(draft.id, { topic: 'show-audit' })]
          : [anEvent(draft.id)];
      await store.update(draft.id, round, (c) => ({ ...c, title: `${c.title}+` }), { events });
      written.push(...events);
    }
  }
  return written;
}

/** First-delivery order of each (topic, key) stream, which is what a consumer sees after dedupe on ce_id. */
function firstDeliveryOrder(published: readonly Published[]): Map<string, string[]> {
  const seen = new Set<string>();
  const streams = new Map<string, string[]>();
  for (const { topic, event } of published) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const stream = `${topic}/${event.key}`;
    streams.set(stream, [...(streams.get(stream) ?? []), event.id]);
  }
  return streams;
}

function writeOrder(written: readonly OutboxEvent[]): Map<string, string[]> {
  const streams = new Map<string, string[]>();
  for (const event of written) {
    const stream = `${event.topic}/${event.key}`;
    streams.set(stream, [...(streams.get(stream) ?? []), event.id]);
  }
  return streams;
}

/**
 * The source as a relay that will die sees it: whatever lease the relay asks for, the one it leaves
 * in the store lapses after `ttlMs`, as a crashed relay's lease does once nobody renews it. The
 * relay itself is given a long lease, so a slow pass on a loaded machine never makes it skip its
 * batch (it does not publish on a lease that may lapse meanwhile) before it "dies".
 */
function leaseLapsingAfter(source: OutboxSource, ttlMs: number): OutboxSource {
  return {
    outboxName: source.outboxName,
    pendingOutbox: (limit) => source.pendingOutbox(limit),
    ackOutbox: (docId, eventIds) => source.ackOutbox(docId, eventIds),
    deferOutbox: (docId, until) => source.deferOutbox(docId, until),
    acquireOutboxLease: (owner) => source.acquireOutboxLease(owner, ttlMs),
    releaseOutboxLease: (owner) => source.releaseOutboxLease(owner),
    onOutboxWrite: (listener) => source.onOutboxWrite(listener),
  };
}

/** A source whose process "dies" at ack time: the publish happened, the ack never does, the lease is never released. */
function crashingAtAck(source: OutboxSource): OutboxSource {
  return {
    outboxName: source.outboxName,
    pendingOutbox: (limit) => source.pendingOutbox(limit),
    ackOutbox: async () => {
      throw new Error('process died before the ack');
    },
    deferOutbox: async () => undefined, // a dead process writes nothing more
    acquireOutboxLease: (owner, ttlMs) => source.acquireOutboxLease(owner, ttlMs),
    releaseOutboxLease: async () => undefined,
    onOutboxWrite: (listener) => source.onOutboxWrite(listener),
  };
}

/** Waits until `bus` has seen every event `written`. */
const allPublished = (
  written: { id: string }[],
  bus: { ids(): Set<string> },
  description: string,
  timeoutMs: number,
) => waitFor(() => written.every((event) => bus.ids().has(event.id)), { timeoutMs, description });

/** Waits until `store` has no outbox entry left to relay. */
const outboxEmptied = (
  store: { pendingOutbox(limit: number): Promise<unknown[]> },
  description: string,
) => waitFor(async () => (await store.pendingOutbox(100)).length === 0, { description });

export function relayContract(adapter: string, newSource: RelaySourceFactory): void {
  describe(`outbox relay (${adapter})`, () => {
    const relays: OutboxRelay[] = [];
    const relay = (
      options: Partial<OutboxRelayOptions> & Pick<OutboxRelayOptions, 'sources' | 'publish'>,
    ): OutboxRelay => {
      const created = createOutboxRelay({
        logger,
        pollIntervalMs: 20,
        retryMinMs: 10,
        retryMaxMs: 50,
        // Long enough that no pass on a loaded machine outlives it (the lease would pass to the other relay).
        leaseMs: 30_000,
        ...options,
      });
      relays.push(created);
      return created;
    };

    afterEach(async () => {
      await Promise.all(relays.splice(0).map((r) => r.stop()));
    });

    it('publishes every event at least once, in write order per document and topic, then empties the outbox', async () => {
      const store = await newSource();
      const written = await writeHistory(store);
      const bus = recorder();
      const sut = relay({ sources: [store], publish: bus.publish, batchSize: 3 });

      sut.start();
      await allPublished(written, bus, 'every event published', 20_000);

      expect(firstDeliveryOrder(bus.published)).toEqual(writeOrder(written));
      await outboxEmptied(store, 'outbox acked');
    });

    it('renews its lease a few times per lease, and after a local write looks only at that source', async () => {
      const [written, quiet] = [await newSource(), await newSource()];
      const counted = (source: ContractStore) => {
        const counts = { leases: 0, scans: 0 };
        const wrapped: OutboxSource = {
          outboxName: source.outboxName,
          pendingOutbox: (limit) => {
            counts.scans += 1;
            return source.pendingOutbox(limit);
          },
          ackOutbox: (docId, ids) => source.ackOutbox(docId, ids),
          deferOutbox: (docId, until) => source.deferOutbox(docId, until),
          acquireOutboxLease: (owner, ttl) => {
            counts.leases += 1;
            return source.acquireOutboxLease(owner, ttl);
          },
          releaseOutboxLease: (owner) => source.releaseOutboxLease(owner),
          onOutboxWrite: (listener) => source.onOutboxWrite(listener),
        };
        return { wrapped, counts };
      };
      const a = counted(written);
      const b = counted(quiet);
      const bus = recorder();
      // Polls far apart: what runs in between is driven by writes.
      const sut = relay({
        sources: [a.wrapped, b.wrapped],
        publish: bus.publish,
        pollIntervalMs: 60_000,
      });
      sut.start();
      await waitFor(() => a.counts.scans >= 1 && b.counts.scans >= 1, {
        description: 'first pass',
      });
      const quietScans = b.counts.scans;

      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const draft = aShow();
        const event = anEvent(draft.id);
        ids.push(event.id);
        await written.insert(draft, { events: [event] });
        await waitFor(() => bus.ids().has(event.id), { description: `event ${i} relayed` });
      }

      expect(ids.every((id) => bus.ids().has(id))).toBe(true);
      expect(a.counts.scans).toBeGreaterThanOrEqual(6);
      expect(b.counts.scans).toBe(quietScans);
      // Not one acquisition per pass: renewed only once a third of the 30 s lease has run (at most
      // once more, on a machine slow enough to take 10 s over these writes).
      expect(a.counts.leases).toBeLessThanOrEqual(2);
    });

    it('relays on every relayOnce call, one after the other', async () => {
      const store = await newSource();
      const bus = recorder();
      const sut = relay({ sources: [store], publish: bus.publish });
      for (let round = 1; round <= 3; round++) {
        const draft = aShow();
        await store.insert(draft, { events: [anEvent(draft.id)] });
        expect(await sut.relayOnce()).toBe(1);
      }
      expect(bus.published).toHaveLength(3);
    });

    it('hands the stored bytes, CloudEvents attributes and trace headers to the publisher unchanged', async () => {
      const store = await newSource();
      const draft = aShow();
      const event = anEvent(draft.id, {
        value: new Uint8Array([0, 1, 2, 250, 251]),
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        correlationId: 'corr-42',
      });
      const tombstone = anEvent(draft.id, { value: null });
      await store.insert(draft, { events: [event, tombstone] });
      const bus = recorder();

      expect(await relay({ sources: [store], publish: bus.publish }).relayOnce()).toBe(2);

      expect(bus.published).toHaveLength(2);
      const [first, second] = bus.published;
      expect(first?.topic).toBe(event.topic);
      expect(first?.event).toMatchObject({
        id: event.id,
        key: draft.id,
        type: event.type,
        time: event.time,
      });
      expect(Buffer.from(first?.event.value as Uint8Array)).toEqual(
        Buffer.from([0, 1, 2, 250, 251]),
      );
      expect(first?.event.headers).toEqual({
        traceparent: event.traceparent,
        'x-correlation-id': 'corr-42',
      });
      expect(second?.event).toMatchObject({ id: tombstone.id, value: null, headers: {} });
    });

    it('publishes a local write at once instead of waiting for the next poll', async () => {
      const store = await newSource();
      const bus = recorder();
      const sut = relay({ sources: [store], publish: bus.publish, pollIntervalMs: 60_000 });
      sut.start();
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first, empty pass is over

      const draft = aShow();
      const event = anEvent(draft.id);
      await store.insert(draft, { events: [event] });

      // Far sooner than the next poll (60 s), with a margin for a loaded machine.
      await waitFor(() => bus.ids().has(event.id), {
        timeoutMs: 20_000,
        description: 'nudged publish',
      });
    });

    it('gathers the writes made during its linger into one publish per topic', async () => {
      const store = await newSource();
      const bus = recorder();
      // A linger far longer than the writes below take, even on a loaded machine.
      const sut = relay({
        sources: [store],
        publish: bus.publish,
        pollIntervalMs: 60_000,
        lingerMs: 500,
      });
      sut.start();
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first, empty pass is over
      const [first, ...rest] = [aShow(), aShow(), aShow(), aShow()] as const;
      const firstEvent = anEvent(first.id);
      await store.insert(first, { events: [firstEvent] });
      await waitFor(() => bus.ids().has(firstEvent.id), { description: 'the first write relayed' });
      const callsBefore = bus.calls;

      const later = rest.map((draft) => anEvent(draft.id));
      for (const [i, draft] of rest.entries()) {
        // Apart, so that without the linger each write would have a pass of its own.
        await new Promise((resolve) => setTimeout(resolve, 30));
        await store.insert(draft, { events: [later[i]!] });
      }

      await waitFor(() => later.every((event) => bus.ids().has(event.id)), {
        timeoutMs: 20_000,
        description: 'the later writes relayed',
      });
      expect(bus.calls - callsBefore).toBe(1);
    });

    it('retries failed publishes with backoff and still delivers in order', async () => {
      const store = await newSource();
      const written = await writeHistory(store, 3, 2);
      const bus = recorder((_topic, _events, call) => {
        if (call <= 4) throw new Error('broker unavailable');
      });
      const sut = relay({ sources: [store], publish: bus.publish });

      sut.start();
      await allPublished(written, bus, 'every event published', 20_000);

      expect(bus.calls).toBeGreaterThan(4);
      expect(firstDeliveryOrder(bus.published)).toEqual(writeOrder(written));
      await outboxEmptied(store, 'outbox acked');
    });

    it('waits out an unreachable bus without backing off each document, then relays it all', async () => {
      const store = await newSource();
      const written = await writeHistory(store, 3, 1);
      let defers = 0;
      const counted: OutboxSource = {
        outboxName: store.outboxName,
        pendingOutbox: (limit) => store.pendingOutbox(limit),
        ackOutbox: (docId, eventIds) => store.ackOutbox(docId, eventIds),
        deferOutbox: (docId, until) => {
          defers += 1;
          return store.deferOutbox(docId, until);
        },
        acquireOutboxLease: (owner, ttlMs) => store.acquireOutboxLease(owner, ttlMs),
        releaseOutboxLease: (owner) => store.releaseOutboxLease(owner),
        onOutboxWrite: (listener) => store.onOutboxWrite(listener),
      };
      // What kafkajs throws while the broker is down.
      const down = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
        name: 'KafkaJSConnectionError',
      });
      const bus = recorder((_topic, _events, call) => {
        if (call <= 6) throw down;
      });
      const sut = relay({ sources: [counted], publish: bus.publish, outageRetryMaxMs: 40 });

      sut.start();
      await allPublished(written, bus, 'every event published once the bus is back', 20_000);
      expect(bus.calls).toBeGreaterThan(6);
      // The bus was down, not the documents: none was given a later due time.
      expect(defers).toBe(0);
      expect(firstDeliveryOrder(bus.published)).toEqual(writeOrder(written));
    });

    it('reports its backlog and its oldest event while the bus is down, and none once relayed', async () => {
      const store = await newSource();
      // Written a minute ago (their write time, which the age is measured from), then one now.
      const minuteAgo = new Date(Date.now() - 60_000);
      const old = aShow();
      const written = [anEvent(old.id, { time: minuteAgo }), anEvent(old.id, { time: minuteAgo })];
      await store.insert(old, { events: written });
      const recent = aShow();
      const now = [anEvent(recent.id, { time: new Date() })];
      await store.insert(recent, { events: now });
      written.push(...now);
      const series = (name: string) =>
        `${name}{service="outbox-relay-test",source="${store.outboxName}"}`;
      const down = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
        name: 'KafkaJSConnectionError',
      });
      let reachable = false;
      const bus = recorder(() => {
        if (!reachable) throw down;
      });
      const sut = relay({ sources: [store], publish: bus.publish, outageRetryMaxMs: 40 });

      sut.start();
      await waitFor(
        async () => (await metricValue(series('marquee_outbox_pending_events'))) === 3,
        { timeoutMs: 10_000, description: 'the backlog reported while the bus is down' },
      );
      expect(
        await metricValue(series('marquee_outbox_oldest_pending_age_seconds')),
      ).toBeGreaterThanOrEqual(60);
      expect(bus.ids().size).toBe(0);

      reachable = true;
      await waitFor(
        async () =>
          (await metricValue(series('marquee_outbox_pending_events'))) === 0 &&
          (await metricValue(series('marquee_outbox_oldest_pending_age_seconds'))) === 0,
        { timeoutMs: 10_000, description: 'no backlog once the bus is back' },
      );
      expect(written.every((event) => bus.ids().has(event.id))).toBe(true);
      expect(await metricValue(series('marquee_outbox_published_events_total'))).toBe(3);
    });

    it("goes again as soon as the publisher's probe says the bus is back, not after its wait", async () => {
      const store = await newSource();
      const written = await writeHistory(store, 2, 1);
      let up = false;
      let probes = 0;
      const bus = recorder(() => {
        if (!up)
          throw Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
            name: 'KafkaJSConnectionError',
          });
      });
      const publish: RawPublisher = Object.assign(bus.publish, {
        ready: async () => {
          probes += 1;
          return up;
        },
      });
      // Without the probe the relay would sleep at least 30 s after its first failed pass.
      const sut = relay({
        sources: [store],
        publish,
        retryMinMs: 60_000,
        outageRetryMaxMs: 60_000,
      });
      sut.start();
      await waitFor(() => probes >= 2, { timeoutMs: 10_000, description: 'the bus probed' });
      const callsWhileDown = bus.calls;
      up = true;
      await allPublished(written, bus, 'every event published once the probe says yes', 10_000);
      // While down it probed instead of trying batches.
      expect(callsWhileDown).toBeLessThanOrEqual(2);
    });

    it('keeps relaying other documents while one topic keeps failing, and keeps the failing events', async () => {
      const store = await newSource();
      const poisoned = aShow();
      const healthy = aShow();
      const stuck = anEvent(poisoned.id, { topic: 'show-poison' });
      const fine = anEvent(healthy.id);
      await store.insert(poisoned, { events: [stuck] });
      await store.insert(healthy, { events: [fine] });
      const bus = recorder((topic) => {
        if (topic === 'show-poison') throw new Error('message too large');
      });
      const sut = relay({ sources: [store], publish: bus.publish });

      sut.start();
      await waitFor(() => bus.ids().has(fine.id), {
        timeoutMs: 5_000,
        description: 'healthy document relayed',
      });
      await waitFor(() => bus.calls >= 4, {
        timeoutMs: 5_000,
        description: 'poisoned topic retried',
      });
      await sut.stop();
      await new Promise((resolve) => setTimeout(resolve, 80)); // past the last backoff (retryMaxMs 50)

      const pending = await store.pendingOutbox(100);
      expect(pending.map((p) => [p.docId, p.events.map((e) => e.id)])).toEqual([
        [poisoned.id, [stuck.id]],
      ]);
    });

    it('loses nothing when the relay dies after publishing and before acking: the next relay re-publishes', async () => {
      const store = await newSource();
      const written = await writeHistory(store, 3, 2);
      const first = recorder();
      const crashed = relay({
        sources: [crashingAtAck(leaseLapsingAfter(store, 400))],
        publish: first.publish,
        owner: 'relay-1',
      });

      await crashed.relayOnce();
      expect(first.ids()).toEqual(new Set(written.map((e) => e.id)));
      expect((await store.pendingOutbox(100)).flatMap((p) => p.events)).toHaveLength(
        written.length,
      ); // nothing acked

      const second = recorder();
      const sut = relay({ sources: [store], publish: second.publish, owner: 'relay-2' });
      sut.start();

      // relay-1 never released its lease: relay-2 takes over once it lapses, and publishes it all again.
      await allPublished(written, second, 'republished after crash', 10_000);
      expect(firstDeliveryOrder([...first.published, ...second.published])).toEqual(
        writeOrder(written),
      );
      await outboxEmptied(store, 'outbox acked by relay-2');
    });

    it('loses nothing when the relay dies in the middle of a batch', async () => {
      const store = await newSource();
      const written = await writeHistory(store, 3, 2);
      // relay-1 gets `show-changed` to the broker, then hangs forever on `show-audit` (the process is gone).
      const first = recorder((topic) =>
        topic === 'show-audit' ? new Promise<void>(() => undefined) : undefined,
      );
      const dying = createOutboxRelay({
        sources: [leaseLapsingAfter(store, 400)],
        publish: first.publish,
        logger,
        leaseMs: 30_000,
        owner: 'relay-1',
      });
      void dying.relayOnce(); // never settles; deliberately not stopped
      await waitFor(() => first.calls >= 2, { description: 'relay-1 mid-batch' });
      expect(first.published.length).toBeGreaterThan(0);

      const second = recorder();
      relay({ sources: [store], publish: second.publish, owner: 'relay-2' }).start();

      await allPublished(written, second, 'everything republished', 10_000);
      expect(firstDeliveryOrder([...first.published, ...second.published])).toEqual(
        writeOrder(written),
      );
      await outboxEmptied(store, 'outbox acked by relay-2');
    });

    it('lets only one of two running relays publish a source, so each event goes out once', async () => {
      const store = await newSource();
      const a = recorder();
      const b = recorder();
      relay({ sources: [store], publish: a.publish, owner: 'relay-a' }).start();
      relay({ sources: [store], publish: b.publish, owner: 'relay-b' }).start();

      const written = await writeHistory(store, 3, 2);
      await waitFor(
        () => written.every((event) => a.ids().has(event.id) || b.ids().has(event.id)),
        {
          timeoutMs: 10_000,
          description: 'every event published',
        },
      );

      const all = [...a.published, ...b.published];
      expect(all).toHaveLength(written.length);
      expect(a.published.length === 0 || b.published.length === 0).toBe(true);
    });

    it('finishes the batch in flight on stop, acking it, and publishes nothing afterwards', async () => {
      const store = await newSource();
      let releasePublish!: () => void;
      const gate = new Promise<void>((resolve) => {
        releasePublish = resolve;
      });
      const bus = recorder(() => gate);
      const sut = relay({ sources: [store], publish: bus.publish });
      const draft = aShow();
      const event = anEvent(draft.id);
      await store.insert(draft, { events: [event] });
      sut.start();
      await waitFor(() => bus.calls === 1, { description: 'publish in flight' });

      const stopped = sut.stop();
      setTimeout(releasePublish, 50);
      await stopped;

      expect(bus.ids()).toEqual(new Set([event.id]));
      expect(await store.pendingOutbox(100)).toEqual([]);
      await store.update(draft.id, 1, draft, { events: [anEvent(draft.id)] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(bus.calls).toBe(1);
    });

    it('relays a deletion tombstone after the events before it, then purges the record', async () => {
      const store = await newSource();
      const draft = aShow();
      const created = anEvent(draft.id);
      const deleted = anEvent(draft.id, { value: null });
      await store.insert(draft, { events: [created] });
      await store.delete(draft.id, 1, { events: [deleted] });
      const bus = recorder();

      await relay({ sources: [store], publish: bus.publish }).relayOnce();

      expect(bus.published.map((p) => [p.event.id, p.event.value])).toEqual([
        [created.id, expect.anything()],
        [deleted.id, null],
      ]);
      expect(await store.pendingOutbox(100)).toEqual([]);
      await expect(store.insert(draft)).resolves.toMatchObject({ version: 1 }); // purged, not a tombstone
    });
  });
}
