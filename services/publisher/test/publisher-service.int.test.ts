import { randomBytes } from 'node:crypto';
import type { Server } from '@grpc/grpc-js';
import type { Connection } from 'mongoose';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import {
  callUnary,
  createGrpcClient,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
} from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import type { ServiceParts } from '@marquee/platform/service';
import { describeIntegration, waitFor } from '@marquee/platform/testing';
import { publishingV1, type catalogV1 } from '@marquee/proto';
import { eventChangedTopic } from '@marquee/proto/topics';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadPublisherConfig } from '../src/config.js';
import { publisherService } from '../src/index.js';
import { composePublisher } from '../src/service.js';

/**
 * publisher as distributed mode runs it: FerretDB store, outbox relay to real Kafka, gRPC in front.
 * A consumer on its own bus reads back what each call put on `event-changed`.
 */
describeIntegration('publisher with real Kafka and Mongo', ({ kafka, mongoUrl }) => {
  const logger = createLogger({ service: 'publisher-int', level: 'silent' });
  const suffix = randomBytes(4).toString('hex');
  const received: IncomingEvent<catalogV1.EventChanged>[] = [];
  let connection: Connection;
  let producer: EventBus;
  let consumer: EventBus;
  let parts: ServiceParts;
  let server: Server;
  let sut: InstanceType<typeof publishingV1.PublisherServiceClient>;

  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: `publisher_int_${suffix}`,
      logger,
      appName: 'publisher-int',
    });
    producer = createKafkaBus({
      ...kafka,
      clientId: 'publisher',
      source: '//marquee/publisher',
      logger,
    });
    consumer = createKafkaBus({
      ...kafka,
      clientId: 'publisher-int-consumer',
      source: '//marquee/test',
      logger,
    });
    await consumer.subscribe(
      eventChangedTopic,
      { group: `publisher-int-${suffix}`, fromBeginning: true },
      async (event) => {
        received.push(event);
      },
    );
    await Promise.all([producer.start(), consumer.start()]);
    parts = await composePublisher(
      { name: 'publisher', logger, bus: producer, mongo: connection },
      loadPublisherConfig({}),
    );
    server = createGrpcServer({
      logger,
      services: parts.grpc!,
      callers: publisherService.callers!,
    });
    const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
    await parts.start?.();
    // The edge is the only service that may publish for an app (service auth).
    sut = createGrpcClient(publishingV1.PublisherServiceClient, `127.0.0.1:${port}`, {
      caller: 'edge-gateway',
    });
  });

  afterAll(async () => {
    sut?.close();
    await parts?.stop?.();
    if (server) await stopGrpcServer(server, 1_000);
    await Promise.all([producer?.close(), consumer?.close()]);
    if (connection) {
      await connection.dropDatabase();
      await closeMongo(connection);
    }
  });

  const event = {
    source: { id: 'acme', name: 'Acme' },
    names: { 'en-us': `Integration ${suffix}` },
    venue: { source: { id: 'hall-1', name: 'Acme' } },
    version: 1,
    // Keys FerretDB cannot store as document fields: the body is kept as a JSON string.
    extra: { 'dotted.key': { $dollar: [[1, 2]] } },
  };

  it('publishes, updates and deletes; each change reaches Kafka as event-changed, in order', async () => {
    const published = await callUnary(
      sut,
      'publishEvent',
      publishingV1.PublishEventRequest.fromPartial({ appId: 'app-1', event }),
    );
    const { id } = published;
    expect(published.unknownProperties).toEqual({ extra: event.extra });
    await callUnary(
      sut,
      'updateEvent',
      publishingV1.UpdateEventRequest.fromPartial({
        appId: 'app-1',
        id,
        event: { ...event, version: 2, names: { 'en-us': `Renamed ${suffix}` } },
      }),
    );
    expect(
      await callUnary(
        sut,
        'getEvent',
        publishingV1.GetEventRequest.fromPartial({ appId: 'app-1', id }),
      ),
    ).toMatchObject({ version: 2, event: { extra: event.extra } });
    await callUnary(
      sut,
      'deleteEvent',
      publishingV1.DeleteEventRequest.fromPartial({ appId: 'app-1', id }),
    );

    const records = await waitFor(
      () => {
        const mine = received.filter((record) => record.key === id);
        return mine.length >= 3 ? mine : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(records.map((r) => r.value?.event?.version ?? null)).toEqual([1, 2, null]);
    expect(records[0]!.value?.event).toMatchObject({
      id,
      names: { values: { 'en-us': `Integration ${suffix}` } },
      location: {
        $case: 'venue',
        value: { ref: { $case: 'source', value: { id: 'hall-1', name: 'Acme' } } },
      },
    });
    expect(records[1]!.value?.event?.names?.values).toEqual({ 'en-us': `Renamed ${suffix}` });
    expect(records[0]!.type).toBe('marquee.catalog.v1.EventChanged');
    expect(records[0]!.source).toBe('//marquee/publisher');
  });
});
