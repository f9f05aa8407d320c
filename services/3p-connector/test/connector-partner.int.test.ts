import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createKafkaBus,
  createMemoryBus,
  type EventBus,
  type IncomingEvent,
} from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService, type HostedService } from '@marquee/platform/service';
import { describeIntegration, waitFor, testLogger } from '@marquee/platform/testing';
import { partnerV1, type catalogV1 } from '@marquee/proto';
import { eventChangedTopic, partnerCallFailedTopic } from '@marquee/proto/topics';
import { partnerReferenceService } from '@marquee/partner-reference';
import { threePConnectorService } from '../src/index.js';

/**
 * The connector against partner-reference over real HTTP (partner-reference hosted in-process on
 * its own Mongo database, so it keeps its orders across a restart), the connector on real Kafka and
 * Mongo: import, change and re-import, the booking round trip, a cancel queued while the partner is
 * down and delivered once, and a booking whose answer comes after the caller's deadline.
 */
describeIntegration('3p-connector against partner-reference', ({ kafka, mongoUrl }) => {
  const logger = testLogger('connector-partner-int');
  const suffix = randomBytes(4).toString('hex');
  const adminToken = randomBytes(24).toString('base64url');
  const client = { id: `marquee-${suffix}`, secret: randomBytes(24).toString('base64url') };
  const venueId = `VINT${suffix}`;
  const eventId = `EINT${suffix}`;
  const changed: IncomingEvent<catalogV1.EventChanged>[] = [];
  const failed: IncomingEvent<partnerV1.PartnerCallFailed>[] = [];
  let connectorDb: Connection;
  let partnerDb: Connection;
  let consumer: EventBus;
  let connectorBus: EventBus;
  let connector: HostedService;
  let partner: HostedService | undefined;
  let partnerPort = 0;
  let admin: partnerV1.PartnerAdminServiceClient;
  let runtime: partnerV1.ConnectorServiceClient;

  const startPartner = async () => {
    const config = partnerReferenceService.loadConfig({
      HTTP_PORT: String(partnerPort),
      GRPC_PORT: '0',
      PARTNER_ADMIN_TOKEN: adminToken,
      PARTNER_CLIENT_ID: client.id,
      PARTNER_CLIENT_SECRET: client.secret,
      PARTNER_SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
    });
    const infra = {
      name: 'partner-reference',
      logger,
      bus: createMemoryBus({ source: 'partner' }),
      mongo: partnerDb,
    };
    const parts = await partnerReferenceService.compose(infra, config);
    const hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: config.HTTP_PORT,
      grpcPort: 0,
    });
    partnerPort = hosted.httpPort;
    return hosted;
  };
  const back = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${partnerPort}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<unknown>;
  };

  beforeAll(async () => {
    connectorDb = await connectMongo({
      url: mongoUrl,
      dbName: `cp_int_${suffix}`,
      logger,
      appName: 'cp-int',
    });
    partnerDb = await connectMongo({
      url: mongoUrl,
      dbName: `pr_int_${suffix}`,
      logger,
      appName: 'pr-int',
    });
    consumer = createKafkaBus({
      ...kafka,
      clientId: 'cp-int',
      source: '//marquee/test',
      logger,
    });
    await consumer.subscribe(
      eventChangedTopic,
      { group: `cp-int-${suffix}`, fromBeginning: true },
      async (e) => {
        changed.push(e);
      },
    );
    await consumer.subscribe(
      partnerCallFailedTopic,
      { group: `cp-int-${suffix}`, fromBeginning: true },
      async (e) => {
        failed.push(e);
      },
    );
    await consumer.start();
    partner = await startPartner();
    await back('POST', '/venues', {
      venue_id: venueId,
      name: 'Integration Hall',
      city: 'Paris',
      country: 'FR',
      timezone: 'Europe/Paris',
      manifests: [
        {
          manifest_id: 'M1',
          name: 'Integration Hall',
          levels: [{ id: 'L1', name: 'Floor', position: 1 }],
          sections: [{ id: 'S1', name: 'A' }],
          price_levels: [{ id: 'PL1', name: 'Cat 1' }],
          areas: [
            {
              id: 'A1',
              name: 'Floor A',
              level_id: 'L1',
              section_id: 'S1',
              price_level_id: 'PL1',
              general_admission: false,
              rows: [{ row: '1', seats: 10 }],
            },
          ],
        },
      ],
    });
    await back('POST', '/events', {
      event_id: eventId,
      venue_id: venueId,
      manifest_id: 'M1',
      text_infos: [{ lang: 'en-us', name: 'Integration Night' }],
      date_time: '2027-06-01T18:30:00Z',
      currency: 'EUR',
      maximum_tickets_quantity: 8,
      price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Category 1' }] }],
      price_types: [{ id: 'ADULT', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] }],
      face_value_prices: [
        {
          price_period: {
            id: 'PP1',
            start_date_time: '2026-01-01T00:00:00Z',
            end_date_time: '2027-06-01T18:00:00Z',
          },
          prices: [{ price_level_id: 'PL1', price_type_id: 'ADULT', amount: '5000' }],
        },
      ],
    });
    connectorBus = createKafkaBus({
      ...kafka,
      clientId: '3p-connector',
      source: '//marquee/3p-connector',
      logger,
    });
    const config = threePConnectorService.loadConfig({
      PARTNER_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      QUEUE_POLL_MS: '100',
      HEALTH_INTERVAL_MS: '60000',
      PARTNER_CALL_TIMEOUT_MS: '1500',
      // partner-reference listens on loopback, which partner calls refuse unless listed.
      PARTNER_ALLOWED_HOSTS: '127.0.0.1',
      ORDER_CANCELLED_GROUP: `cp-int-order-cancelled-${suffix}`,
      LOG_LEVEL: 'silent',
    });
    const infra = { name: '3p-connector', logger, bus: connectorBus, mongo: connectorDb };
    const parts = await threePConnectorService.compose(infra, config);
    await connectorBus.start();
    connector = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: threePConnectorService.callers!,
    });
    admin = createGrpcClient(
      partnerV1.PartnerAdminServiceClient,
      `127.0.0.1:${connector.grpcPort}`,
      { caller: 'edge-gateway' },
    );
    runtime = createGrpcClient(
      partnerV1.ConnectorServiceClient,
      `127.0.0.1:${connector.grpcPort}`,
      {
        caller: 'cart',
      },
    );
  }, 60_000);

  afterAll(async () => {
    admin?.close();
    runtime?.close();
    await connector?.stop();
    await connectorBus?.close();
    await partner?.stop();
    await consumer?.close();
    for (const db of [connectorDb, partnerDb]) {
      if (!db) continue;
      await db.dropDatabase();
      await closeMongo(db);
    }
  });

  const ours = (partnerId: string) =>
    changed.filter((e) => e.value?.event?.source?.id === partnerId);
  let partnerId = '';
  let platformEventId = '';

  it('registers, imports and publishes the mapped event; a change at the partner is the next version', async () => {
    ({ id: partnerId } = await callUnary(admin, 'registerPartner', {
      name: 'Partner Reference',
      baseUrl: `http://127.0.0.1:${partnerPort}/v1`,
      authUrl: `http://127.0.0.1:${partnerPort}/oauth/token`,
      clientId: client.id,
      clientSecret: client.secret,
      venues: [venueId],
    }));
    const first = await waitFor(() => ours(partnerId)[0], {
      timeoutMs: 20_000,
      description: 'imported event',
    });
    const event = first.value!.event!;
    platformEventId = event.id;
    expect(event).toMatchObject({
      version: 1,
      names: { values: { 'en-US': 'Integration Night' } },
      ticketing: { manifestId: 'M1', currency: 'EUR', maximumTicketsQuantity: 8 },
      // partner-reference describes its venue (venue_info): a place with its city and country.
      location: {
        $case: 'place',
        value: { cityNames: { values: { 'en-US': 'Paris' } }, country: { countryCode: 'FR' } },
      },
    });

    await back('PATCH', `/events/${eventId}`, {
      text_infos: [{ lang: 'en-us', name: 'Integration Night II' }],
    });
    await callUnary(admin, 'startImport', { partnerId, venues: [] });
    const second = await waitFor(() => ours(partnerId)[1], {
      timeoutMs: 20_000,
      description: 'changed event',
    });
    expect(second.value!.event).toMatchObject({
      id: platformEventId,
      version: 2,
      names: { values: { 'en-US': 'Integration Night II' } },
    });
  }, 60_000);

  it('books, orders, prints, rolls back and cancels through the gRPC port', async () => {
    const held = await callUnary(runtime, 'createBooking', {
      eventId: platformEventId,
      cartId: `cart-${suffix}`,
      lines: [
        {
          areaId: 'A1',
          priceLevelId: '',
          priceTypeId: 'ADULT',
          quantity: 2,
          seatIds: [],
          accessCode: '',
        },
      ],
      language: 'en-us',
      channelType: 'INTERNET',
    });
    expect(held.tickets).toHaveLength(2);
    const order = await callUnary(runtime, 'createOrder', {
      eventId: platformEventId,
      inventoryToken: held.inventoryToken,
      orderId: `order-${suffix}`,
      ticketsAmount: held.total,
      ticketsQuantity: 2,
      paymentMethodType: 'CARD',
      deliveryMethodType: 'PH',
      channelType: 'INTERNET',
    });
    const act = (action: partnerV1.OrderActionType) =>
      callUnary(runtime, 'orderAction', {
        eventId: platformEventId,
        inventoryOrderId: order.inventoryOrderId,
        action,
        orderId: `order-${suffix}`,
        language: '',
        channelType: 'INTERNET',
        printMessages: [],
        ticketIds: [],
      });
    expect((await act(partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT)).order!.status).toBe(
      'PARTNER_ORDER_STATUS_PRINTED',
    );
    expect(
      (await act(partnerV1.OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT)).order!.status,
    ).toBe('PARTNER_ORDER_STATUS_CONFIRMED');
    expect((await act(partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL)).order!.status).toBe(
      'PARTNER_ORDER_STATUS_CANCELLED',
    );
  }, 30_000);

  it('queues a cancel while the partner is stopped and delivers it once after its restart', async () => {
    const held = await callUnary(runtime, 'createBooking', {
      eventId: platformEventId,
      cartId: `cart2-${suffix}`,
      lines: [
        {
          areaId: 'A1',
          priceLevelId: '',
          priceTypeId: 'ADULT',
          quantity: 1,
          seatIds: [],
          accessCode: '',
        },
      ],
      language: 'en-us',
      channelType: 'INTERNET',
    });
    const order = await callUnary(runtime, 'createOrder', {
      eventId: platformEventId,
      inventoryToken: held.inventoryToken,
      orderId: `order2-${suffix}`,
      ticketsAmount: held.total,
      ticketsQuantity: 1,
      paymentMethodType: 'CARD',
      deliveryMethodType: 'PH',
      channelType: 'INTERNET',
    });
    await partner!.stop();
    partner = undefined;
    const answer = await callUnary(runtime, 'orderAction', {
      eventId: platformEventId,
      inventoryOrderId: order.inventoryOrderId,
      action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
      orderId: `order2-${suffix}`,
      language: '',
      channelType: 'INTERNET',
      printMessages: [],
      ticketIds: [],
    });
    expect(answer).toEqual({ order: undefined, queued: true });
    expect((await callUnary(admin, 'listQueuedCalls', { partnerId })).calls).toHaveLength(1);
    partner = await startPartner();
    await waitFor(
      async () => (await callUnary(admin, 'listQueuedCalls', { partnerId })).calls.length === 0,
      {
        timeoutMs: 30_000,
        description: 'queued cancel delivered',
      },
    );
    const after = await callUnary(runtime, 'getOrder', {
      eventId: platformEventId,
      inventoryOrderId: order.inventoryOrderId,
    });
    expect(after.order!.status).toBe('PARTNER_ORDER_STATUS_CANCELLED');
  }, 60_000);

  it('reports a booking answered after the deadline as outcome unknown', async () => {
    await back('PUT', '/drills', { delay_ms: 3_000, operations: ['POST /bookings'] });
    try {
      await expect(
        callUnary(
          runtime,
          'createBooking',
          {
            eventId: platformEventId,
            cartId: `slow-${suffix}`,
            lines: [
              {
                areaId: '',
                priceLevelId: '',
                priceTypeId: 'ADULT',
                quantity: 1,
                seatIds: [],
                accessCode: '',
              },
            ],
            language: 'en-us',
            channelType: 'INTERNET',
          },
          { deadlineMs: 1_000 },
        ),
      ).rejects.toMatchObject({ kind: 'deadline_exceeded' });
      const report = await waitFor(() => failed.find((e) => e.key === `slow-${suffix}`), {
        timeoutMs: 20_000,
        description: 'partner-call-failed',
      });
      expect(report.value).toMatchObject({
        partnerId,
        outcomeUnknown: true,
        operation: 'PARTNER_OPERATION_CREATE_BOOKING',
      });
    } finally {
      await back('PUT', '/drills', { delay_ms: 0, operations: [] });
    }
  }, 60_000);
});
