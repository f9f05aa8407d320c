import { EventChanged } from '@marquee/proto/catalog/v1';
import { allTopics, eventChangedTopic } from '@marquee/proto/topics';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus, type IncomingEvent } from '../../src/bus/index.js';
import { createLogger, runWithCorrelationId } from '../../src/logger/index.js';
import { busRawPublisher } from '../../src/outbox/bus-publisher.js';
import { createOutboxEvent } from '../../src/outbox/outbox-event.js';
import { createOutboxRelay } from '../../src/outbox/relay.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { uniqueName, waitFor } from '../../src/testing/index.js';
import { aPing, pingTopic, type Ping } from '../bus/fixtures.js';
import { aShow, type Show } from '../store/store-contract.js';

const logger = createLogger({ service: 'bus-publisher-test', level: 'silent' });
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('createOutboxEvent', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    context.disable();
    propagation.disable();
  });

  it('encodes the message now and captures the trace context and correlation id of the write', () => {
    const topic = pingTopic();
    const parent = propagation.extract(context.active(), { traceparent: TRACEPARENT });

    const sut = context.with(parent, () =>
      runWithCorrelationId('corr-7', () =>
        createOutboxEvent(topic, { key: 'ping-1', value: aPing({ note: 'n' }) }),
      ),
    );

    expect(sut).toMatchObject({
      topic: topic.name,
      key: 'ping-1',
      type: topic.type,
      traceparent: TRACEPARENT,
      correlationId: 'corr-7',
    });
    expect(topic.codec.decode(sut.value as Uint8Array)).toEqual(aPing({ note: 'n' }));
    expect(sut.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sut.time).toBeInstanceOf(Date);
  });

  it('writes a tombstone for a null value and leaves out what is unknown', () => {
    const sut = createOutboxEvent(pingTopic(), {
      key: 'ping-1',
      value: null,
      id: 'fixed-id',
      time: new Date(5),
    });
    expect(sut).toEqual({
      id: 'fixed-id',
      topic: expect.any(String),
      key: 'ping-1',
      type: 'marquee.test.v1.Ping',
      value: null,
      time: new Date(5),
    });
  });
});

describe('busRawPublisher', () => {
  it('relays stored events through the bus port with the bytes, id, time, type and headers they were written with', async () => {
    const topic = pingTopic();
    const bus = createMemoryBus({ source: '//marquee/test', logger });
    const received: IncomingEvent<Ping>[] = [];
    await bus.subscribe(topic, { group: uniqueName('consumer') }, async (event) => {
      received.push(event);
    });
    await bus.start();
    const store = createMemoryStore<Show>({ name: 'shows' });
    const draft = aShow();
    const created = {
      ...createOutboxEvent(topic, {
        key: draft.id,
        value: aPing({ seq: 1 }),
        correlationId: 'corr-1',
      }),
      traceparent: TRACEPARENT,
    };
    const renamed = {
      ...createOutboxEvent(topic, { key: draft.id, value: aPing({ seq: 2 }) }),
      type: 'marquee.test.v1.PingRenamed',
    };
    const deleted = createOutboxEvent(topic, { key: draft.id, value: null });
    await store.insert(draft, { events: [created, renamed, deleted] });
    const sut = busRawPublisher(bus, [topic]);

    await createOutboxRelay({ sources: [store], publish: sut, logger }).relayOnce();

    await waitFor(() => received.length === 3, { description: 'three events consumed' });
    expect(received.map((e) => [e.id, e.type, e.key, e.value?.seq ?? null])).toEqual([
      [created.id, topic.type, draft.id, 1],
      [renamed.id, 'marquee.test.v1.PingRenamed', draft.id, 2],
      [deleted.id, topic.type, draft.id, null],
    ]);
    expect(received[0]?.time).toEqual(created.time);
    expect(received[0]?.headers).toMatchObject({
      'x-correlation-id': 'corr-1',
      ce_source: '//marquee/test',
    });
    expect(Buffer.from(bus.records(topic.name)[0]?.value as Uint8Array)).toEqual(
      Buffer.from(created.value as Uint8Array),
    );
    expect(await store.pendingOutbox(10)).toEqual([]);
    await bus.close();
  });

  it('takes the real topic catalog and publishes under its definitions', async () => {
    const bus = createMemoryBus({ source: '//marquee/publisher', logger });
    const sut = busRawPublisher(bus, allTopics);
    const message = EventChanged.fromPartial({ event: { id: 'G5vYZ9s1n2A3b4C', version: 2 } });
    const event = createOutboxEvent(eventChangedTopic, { key: 'G5vYZ9s1n2A3b4C', value: message });

    await sut(eventChangedTopic.name, [
      {
        id: event.id,
        key: event.key,
        type: event.type,
        value: event.value,
        time: event.time,
        headers: {},
      },
    ]);

    const [record] = bus.records(eventChangedTopic.name);
    expect(record?.headers).toMatchObject({
      ce_id: event.id,
      ce_type: 'marquee.catalog.v1.EventChanged',
    });
    expect(eventChangedTopic.codec.decode(record?.value as Uint8Array)).toEqual(message);
    await bus.close();
  });

  it('fails the publish for a topic outside the catalog, so the relay keeps the events', async () => {
    const bus = createMemoryBus({ source: '//marquee/test', logger });
    const sut = busRawPublisher(bus, [pingTopic()]);
    await expect(
      sut('not-in-catalog', [
        { id: 'e1', key: 'k', type: 't', value: null, time: new Date(), headers: {} },
      ]),
    ).rejects.toThrow('not-in-catalog');
    await bus.close();
  });
});
