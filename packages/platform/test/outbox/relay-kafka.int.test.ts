/**
 * End to end on real infrastructure: a write to the Mongo-wire server records an EventChanged in its
 * outbox inside a request's trace; the relay publishes it to real Kafka; a consumer on another bus
 * receives the same message with the id, type and trace it was written with.
 */
import { EventChanged } from '@marquee/proto/catalog/v1';
import { eventChangedTopic } from '@marquee/proto/topics';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKafkaBus, type EventBus, type IncomingEvent } from '../../src/bus/index.js';
import { createLogger, runWithCorrelationId } from '../../src/logger/index.js';
import { busRawPublisher } from '../../src/outbox/bus-publisher.js';
import { createOutboxEvent } from '../../src/outbox/outbox-event.js';
import { createOutboxRelay } from '../../src/outbox/relay.js';
import { createMongoStore } from '../../src/store/mongo-store.js';
import { describeIntegration, uniqueName, waitFor } from '../../src/testing/index.js';
import { openMongoTestDb, type MongoTestDb } from '../store/mongo-test-db.js';
import { recordingTracing } from '../support/tracing.js';

interface PublishedEvent {
  id: string;
  version: number;
  name: string;
}

describeIntegration('outbox relay to Kafka', ({ mongoUrl, kafka }) => {
  const tracing = recordingTracing();
  const { exporter, provider } = tracing;
  const logger = createLogger({ service: 'relay-kafka-test', level: 'silent' });
  const buses: EventBus[] = [];
  let db: MongoTestDb;

  beforeAll(async () => {
    tracing.install();
    db = await openMongoTestDb(mongoUrl, 'relay_kafka');
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await db?.drop();
    tracing.uninstall();
    await provider.shutdown();
  });

  it('delivers a stored EventChanged to a Kafka consumer with its id, bytes and the writing request trace', async () => {
    // The catalog's definition under a fresh name, so the run never touches the real topic.
    const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
    const store = createMongoStore<PublishedEvent>({
      connection: db.connection,
      collection: uniqueName('events').replace(/-/g, '_'),
    });
    await store.ensureIndexes();
    const producerBus = createKafkaBus({
      ...kafka,
      clientId: 'publisher',
      source: '//marquee/publisher',
      logger,
    });
    const consumerBus = createKafkaBus({
      ...kafka,
      clientId: 'catalog-indexer',
      source: '//marquee/catalog-indexer',
      logger,
    });
    buses.push(producerBus, consumerBus);
    const received: IncomingEvent<EventChanged>[] = [];
    await consumerBus.subscribe(topic, { group: uniqueName('catalog-indexer') }, async (event) => {
      received.push(event);
    });
    await consumerBus.start();
    const relay = createOutboxRelay({
      sources: [store],
      publish: busRawPublisher(producerBus, [topic]),
      logger,
      pollIntervalMs: 100,
    });
    relay.start();

    const message = EventChanged.fromPartial({
      event: { id: 'G5vYZ9s1n2A3b4C', version: 1, publisherVersion: 1, active: true, test: false },
      changedAt: new Date('2025-07-01T12:00:00.000Z'),
    });
    const { traceId, eventId } = await trace
      .getTracer('e2e')
      .startActiveSpan('PUT /publish/v2/events', async (span) => {
        const event = runWithCorrelationId('corr-e2e', () =>
          createOutboxEvent(topic, { key: 'G5vYZ9s1n2A3b4C', value: message }),
        );
        await store.insert({ id: 'G5vYZ9s1n2A3b4C', name: 'Concert' }, { events: [event] });
        span.end();
        return { traceId: span.spanContext().traceId, eventId: event.id };
      });

    await waitFor(() => received.length >= 1, {
      timeoutMs: 30_000,
      description: 'the EventChanged consumed',
    });
    await relay.stop();
    const [event] = received;
    expect(event?.value).toEqual(message);
    expect(event?.id).toBe(eventId);
    expect(event?.type).toBe(eventChangedTopic.type);
    expect(event?.key).toBe('G5vYZ9s1n2A3b4C');
    expect(event?.headers['x-correlation-id']).toBe('corr-e2e');
    const processSpan = await waitFor(
      () => exporter.getFinishedSpans().find((s) => s.name === `${topic.name} process`),
      {
        description: 'the consumer span',
      },
    );
    expect(processSpan.spanContext().traceId).toBe(traceId);
    expect(await store.pendingOutbox(10)).toEqual([]);
  });
});
