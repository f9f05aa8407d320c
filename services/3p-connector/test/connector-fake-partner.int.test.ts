import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService } from '@marquee/platform/service';
import { describeIntegration, waitFor, testLogger } from '@marquee/platform/testing';
import { partnerV1, type catalogV1 } from '@marquee/proto';
import { eventChangedTopic, partnerCallFailedTopic } from '@marquee/proto/topics';
import { threePConnectorService } from '../src/index.js';
import { FakePartner } from './support/fake-partner.js';
import { availability, confirmedOrder, manifest, partnerEvent } from './support/fixtures.js';

/**
 * The connector as distributed mode runs it (Mongo-wire store, outbox relay to real Kafka) against
 * a fake 3P server: the import reaches Kafka, and a cancel queued while the partner is down
 * survives a restart of the connector and is delivered once the partner is back.
 */
describeIntegration('3p-connector with real Kafka and Mongo', ({ kafka, mongoUrl }) => {
  const logger = testLogger('3p-connector-int');
  const suffix = randomBytes(4).toString('hex');
  const key = randomBytes(32).toString('base64');
  const changed: IncomingEvent<catalogV1.EventChanged>[] = [];
  const failed: IncomingEvent<partnerV1.PartnerCallFailed>[] = [];
  let connection: Connection;
  let consumer: EventBus;
  let fake: FakePartner;
  let cancels = 0;

  const start = async () => {
    const bus = createKafkaBus({
      ...kafka,
      clientId: '3p-connector',
      source: '//marquee/3p-connector',
      logger,
    });
    const config = threePConnectorService.loadConfig({
      PARTNER_CREDENTIALS_KEY: key,
      QUEUE_POLL_MS: '100',
      HEALTH_INTERVAL_MS: '60000',
      PARTNER_CALL_TIMEOUT_MS: '1000',
      // The fake partner listens on loopback, which partner calls refuse unless listed.
      PARTNER_ALLOWED_HOSTS: '127.0.0.1',
      ORDER_CANCELLED_GROUP: `3p-connector-int-${suffix}`,
    });
    const infra = { name: '3p-connector', logger, bus, mongo: connection };
    const parts = await threePConnectorService.compose(infra, config);
    await bus.start();
    const hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: threePConnectorService.callers!,
    });
    const address = `127.0.0.1:${hosted.grpcPort}`;
    return {
      hosted,
      bus,
      admin: createGrpcClient(partnerV1.PartnerAdminServiceClient, address, {
        caller: 'edge-gateway',
      }),
      connector: createGrpcClient(partnerV1.ConnectorServiceClient, address, { caller: 'cart' }),
      async stop() {
        this.admin.close();
        this.connector.close();
        await hosted.stop();
        await bus.close();
      },
    };
  };
  let running: Awaited<ReturnType<typeof start>> | undefined;

  const routes = (partner: FakePartner) =>
    partner
      .on('GET', /^\/healthcheck$/, { status: 200, body: { id: 0, message: 'ok' } })
      .on('GET', /^\/events$/, {
        status: 200,
        body: {
          events_info: [{ event: partnerEvent(), status: 'ON_SALE', mod_list: ['NEW'] }],
          page: { size: 100, total_elements: 1, total_pages: 1, number: 0 },
        },
      })
      .on('GET', /^\/manifests\/M1$/, { status: 200, body: { manifest } })
      .on('GET', /^\/events\/EV1\/availability$/, { status: 200, body: availability() })
      .on('POST', /^\/orders\/O1$/, () => {
        cancels += 1;
        return cancels === 1
          ? {
              status: 200,
              body: { action: 'CANCEL', order: { ...confirmedOrder, status: 'CANCELLED' } },
            }
          : { status: 410, body: { id: 315, message: 'already cancelled' } };
      });

  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: `connector_int_${suffix}`,
      logger,
      appName: '3p-connector-int',
    });
    consumer = createKafkaBus({
      ...kafka,
      clientId: '3p-connector-int',
      source: '//marquee/test',
      logger,
    });
    await consumer.subscribe(
      eventChangedTopic,
      { group: `3p-int-${suffix}`, fromBeginning: true },
      async (e) => {
        changed.push(e);
      },
    );
    await consumer.subscribe(
      partnerCallFailedTopic,
      { group: `3p-int-${suffix}`, fromBeginning: true },
      async (e) => {
        failed.push(e);
      },
    );
    await consumer.start();
    fake = await routes(new FakePartner()).start();
    running = await start();
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await consumer?.close();
    await fake?.stop();
    if (connection) {
      await connection.dropDatabase();
      await closeMongo(connection);
    }
  });

  it('imports, queues a cancel while the partner is down, and delivers it once after a restart', async () => {
    const { id: partnerId } = await callUnary(running!.admin, 'registerPartner', {
      name: `Fake ${suffix}`,
      baseUrl: fake.baseUrl,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      venues: ['V1'],
    });
    const imported = await waitFor(
      () => changed.find((e) => e.value?.event?.source?.id === partnerId),
      { timeoutMs: 20_000, description: 'event-changed on Kafka' },
    );
    const event = imported.value!.event!;
    expect(event).toMatchObject({ version: 1, ticketing: { manifestId: 'M1', currency: 'EUR' } });

    const port = fake.port;
    await fake.stop();
    const answer = await callUnary(running!.connector, 'orderAction', {
      eventId: event.id,
      inventoryOrderId: 'O1',
      action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
      orderId: `order-${suffix}`,
      language: '',
      channelType: '',
      printMessages: [],
      ticketIds: [],
    });
    expect(answer.queued).toBe(true);
    await waitFor(() => failed.find((e) => e.key === `order-${suffix}` && e.value?.willRetry), {
      timeoutMs: 20_000,
      description: 'partner-call-failed (will retry) on Kafka',
    });

    await running!.stop();
    running = await start();
    expect((await callUnary(running.admin, 'listQueuedCalls', { partnerId })).calls).toMatchObject([
      { inventoryOrderId: 'O1', orderId: `order-${suffix}` },
    ]);
    fake = await routes(new FakePartner()).start(port);
    await waitFor(
      async () =>
        (await callUnary(running!.admin, 'listQueuedCalls', { partnerId })).calls.length === 0,
      {
        timeoutMs: 20_000,
        description: 'queued cancel delivered',
      },
    );
    expect(cancels).toBe(1);
  }, 90_000);
});
