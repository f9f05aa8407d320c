import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient, runAsService } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService, type HostedService } from '@marquee/platform/service';
import {
  describeIntegration,
  startGroupsAtEnd,
  uniqueName,
  waitFor,
} from '@marquee/platform/testing';
import {
  ConnectorServiceService,
  PartnerOperation,
  PartnerOrderStatus,
  type ListOrdersRequest,
  type OrderActionRequest,
  type PartnerOrder,
  type ReleaseBookingRequest,
} from '@marquee/proto/partner/v1';
import {
  CaseTrigger,
  Outcome,
  ReconcilerServiceClient,
  type ReconciliationCase,
} from '@marquee/proto/reconciliation/v1';
import {
  bookingHeldTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  partnerCallFailedTopic,
  paymentCapturedTopic,
  reconciliationResolvedTopic,
} from '@marquee/proto/topics';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadReconcilerConfig } from '../src/config.js';
import { composeReconciler } from '../src/service.js';
import { reconcilerService } from '../src/index.js';

/**
 * reconciler as one process sees it: cart's and the connector's records in from real Kafka,
 * `reconciliation-resolved` out to it, a real Mongo-wire database, gRPC in front. The partner
 * (3p-connector's ConnectorService) is a stand-in answering from `partnerOrders`.
 */
describeIntegration('reconciler service with Kafka and Mongo', ({ kafka, mongoUrl }) => {
  const logger = createLogger({ service: 'reconciler-int', level: 'warn' });
  const suffix = uniqueName('r').replace(/-/g, '');
  const dbName = `reconcilerint_${suffix}`;
  const partnerId = `partner-${suffix}`;
  const eventId = `event-${suffix}`;
  let mongo: Connection;
  let bus: EventBus;
  let testBus: EventBus;
  let hosted: HostedService;
  let connector: HostedService;
  let client: ReconcilerServiceClient;
  const resolved: ReconciliationCase[] = [];
  const partnerOrders: PartnerOrder[] = [];
  const releases: ReleaseBookingRequest[] = [];
  const actions: OrderActionRequest[] = [];

  const order = (cartId: string, token: string, createdAt: Date): PartnerOrder => ({
    partnerId,
    eventId,
    partnerEventId: 'pe-1',
    inventoryToken: token,
    inventoryOrderId: '',
    status: PartnerOrderStatus.PARTNER_ORDER_STATUS_BOOKED,
    cartId,
    orderId: '',
    tickets: [],
    ticketsAmount: undefined,
    createdAt,
    updatedAt: createdAt,
    expiresAt: undefined,
  });

  beforeAll(async () => {
    testBus = createKafkaBus({
      ...kafka,
      clientId: 'reconciler-int-test',
      source: 'marquee/test',
      logger,
    });
    await testBus.subscribe(
      reconciliationResolvedTopic,
      { group: uniqueName('reconciler-int-observer'), fromBeginning: true },
      async (e) => {
        if (e.value?.case?.partnerId === partnerId) resolved.push(e.value.case);
      },
    );
    await testBus.start();

    const connectorInfra = { name: 'connector-fake', logger, bus: testBus, mongo: undefined };
    connector = await hostService(
      connectorInfra,
      {
        grpc: [
          {
            definition: ConnectorServiceService,
            implementation: {
              listOrders: (
                call: ServerUnaryCall<ListOrdersRequest, unknown>,
                callback: sendUnaryData<{ orders: PartnerOrder[] }>,
              ) => {
                const r = call.request;
                const orders = partnerOrders.filter((o) =>
                  r.inventoryToken
                    ? o.inventoryToken === r.inventoryToken
                    : o.eventId === r.eventId,
                );
                callback(null, { orders });
              },
              releaseBooking: (
                call: ServerUnaryCall<ReleaseBookingRequest, unknown>,
                callback: sendUnaryData<object>,
              ) => {
                releases.push(call.request);
                for (const o of partnerOrders) {
                  if (o.inventoryToken === call.request.inventoryToken) {
                    o.status = PartnerOrderStatus.PARTNER_ORDER_STATUS_RELEASED;
                  }
                }
                callback(null, {});
              },
              orderAction: (
                call: ServerUnaryCall<OrderActionRequest, unknown>,
                callback: sendUnaryData<{ queued: boolean }>,
              ) => {
                actions.push(call.request);
                callback(null, { queued: false });
              },
            },
          },
        ],
      },
      {
        host: '127.0.0.1',
        httpPort: 0,
        grpcPort: 0,
        // 3p-connector's declaration for the RPCs the reconciler calls.
        callers: {
          'marquee.partner.v1.ConnectorService': {
            ListOrders: ['reconciler'],
            ReleaseBooking: ['cart', 'reconciler'],
            OrderAction: ['cart', 'reconciler'],
          },
        },
      },
    );

    mongo = await connectMongo({ url: mongoUrl, dbName, logger, appName: 'reconciler-int' });
    bus = createKafkaBus({
      ...kafka,
      clientId: 'reconciler-int',
      source: 'marquee/reconciler',
      logger,
    });
    // The service's group is this run's own: started at the end of its topics, as a deployed
    // reconciler's group is, instead of reading every record of earlier runs on this broker.
    const group = `reconciler-int-${suffix}`;
    await startGroupsAtEnd(
      kafka,
      [
        bookingHeldTopic,
        orderConfirmedTopic,
        orderCancelledTopic,
        partnerCallFailedTopic,
        paymentCapturedTopic,
      ].map((topic) => ({ groupId: group, topic: topic.name })),
    );
    const config = loadReconcilerConfig({
      MONGO_DB: dbName,
      LOG_LEVEL: 'warn',
      GRPC_ADDR_3P_CONNECTOR: `127.0.0.1:${connector.grpcPort}`,
      CONSUMER_GROUP: group,
      RECONCILE_GRACE_MS: '1000',
      RECONCILE_INTERVAL_MS: '200',
      REPORT_INTERVAL_MS: '0',
    });
    const infra = { name: 'reconciler', logger, bus, mongo };
    // Composed as its runner composes it: its connector client speaks for the reconciler.
    const parts = await runAsService('reconciler', () => composeReconciler(infra, config));
    hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: reconcilerService.callers!,
    });
    await bus.start();
    client = createGrpcClient(ReconcilerServiceClient, `127.0.0.1:${hosted.grpcPort}`, {
      deadlineMs: 5_000,
      caller: 'edge-gateway',
    });
  });

  afterAll(async () => {
    client?.close();
    await hosted?.stop();
    await bus?.close();
    await connector?.stop();
    await testBus?.close();
    if (mongo) {
      await mongo.dropDatabase();
      await closeMongo(mongo, logger);
    }
  });

  it('releases orphan bookings: an unknown-outcome booking create and a stale hold', async () => {
    const now = new Date();
    const timedOutCart = `cart-timeout-${suffix}`;
    const staleCart = `cart-stale-${suffix}`;
    partnerOrders.push(order(timedOutCart, `tok-timeout-${suffix}`, now));
    partnerOrders.push(order(staleCart, `tok-stale-${suffix}`, now));

    await testBus.publish(partnerCallFailedTopic, [
      {
        key: timedOutCart,
        value: {
          partnerId,
          operation: PartnerOperation.PARTNER_OPERATION_CREATE_BOOKING,
          cartId: timedOutCart,
          orderId: '',
          eventId,
          inventoryToken: '',
          inventoryOrderId: '',
          httpStatus: 0,
          partnerErrorId: 0,
          message: 'partner did not answer within 5000 ms',
          attempt: 1,
          willRetry: false,
          outcomeUnknown: true,
          correlationId: 'corr-1',
          failedAt: now,
        },
      },
    ]);
    await testBus.publish(bookingHeldTopic, [
      {
        key: staleCart,
        value: {
          cartId: staleCart,
          eventId,
          partnerId,
          inventoryToken: `tok-stale-${suffix}`,
          items: [],
          total: undefined,
          heldAt: now,
          expiresAt: new Date(now.getTime() + 500),
          appId: 'app-1',
        },
      },
    ]);

    await waitFor(() => resolved.length >= 2, {
      timeoutMs: 30_000,
      description: 'two reconciliation-resolved records',
    });
    const byCart = new Map(resolved.map((c) => [c.cartId, c]));
    expect(byCart.get(timedOutCart)).toMatchObject({
      trigger: CaseTrigger.CASE_TRIGGER_PARTNER_CALL_FAILED,
      outcome: Outcome.OUTCOME_BOOKING_RELEASED,
      eventId,
    });
    expect(byCart.get(staleCart)).toMatchObject({
      trigger: CaseTrigger.CASE_TRIGGER_STALE_BOOKING,
      outcome: Outcome.OUTCOME_BOOKING_RELEASED,
    });
    expect(releases.filter((r) => r.inventoryToken === `tok-timeout-${suffix}`)).toHaveLength(1);
    expect(releases.filter((r) => r.inventoryToken === `tok-stale-${suffix}`)).toHaveLength(1);

    const listed = await callUnary(client, 'listCases', {
      openOnly: false,
      partnerId,
      page: { offset: 0, limit: 10 },
    });
    expect(listed.page?.total).toBe(2);
    expect(listed.cases.map((c) => c.cartId).sort()).toEqual([staleCart, timedOutCart].sort());
    const { case: one } = await callUnary(client, 'getCase', { id: `rc-${timedOutCart}` });
    expect(one?.outcome).toBe(Outcome.OUTCOME_BOOKING_RELEASED);
    expect(one?.resolvedAt).toBeInstanceOf(Date);
  });

  it('reports a payment captured without a confirmed order, with the operator action', async () => {
    const cartId = `cart-captured-${suffix}`;
    await testBus.publish(paymentCapturedTopic, [
      {
        key: cartId,
        value: {
          cartId,
          orderId: `order-captured-${suffix}`,
          eventId,
          partnerId,
          appId: 'app-1',
          provider: 'stripe',
          paymentId: `pi_${suffix}`,
          amount: { amountMinor: 10_100, currency: 'GBP' },
          capturedAt: new Date(),
          sandbox: false,
        },
      },
    ]);
    const found = await waitFor(
      () =>
        callUnary(client, 'getCase', { id: `rc-pay-${cartId}` }).then(
          (r) => r.case,
          () => undefined,
        ),
      { timeoutMs: 30_000, intervalMs: 300, description: 'the money case of the capture' },
    );
    expect(found).toMatchObject({
      trigger: CaseTrigger.CASE_TRIGGER_CAPTURE_WITHOUT_ORDER,
      outcome: Outcome.OUTCOME_MANUAL,
      cartId,
      paymentId: `pi_${suffix}`,
      operatorAction: expect.stringContaining(`refund payment pi_${suffix}`),
    });
    await waitFor(() => resolved.find((c) => c.id === `rc-pay-${cartId}`), {
      timeoutMs: 15_000,
      description: 'reconciliation-resolved for the money case',
    });
  });

  it('flags an order paid on the platform but missing at the partner (MANUAL)', async () => {
    const cartId = `cart-paid-${suffix}`;
    const orderId = `order-paid-${suffix}`;
    await testBus.publish(orderConfirmedTopic, [
      {
        key: orderId,
        value: {
          orderId,
          cartId,
          eventId,
          partnerId,
          inventoryToken: `tok-paid-${suffix}`,
          inventoryOrderId: `inv-paid-${suffix}`,
          appId: 'app-1',
          tickets: [],
          ticketsAmount: undefined,
          fees: undefined,
          taxes: undefined,
          delivery: undefined,
          grandTotal: undefined,
          paymentMethod: 0 as never,
          deliveryMethod: 0 as never,
          secureEntryEnabled: false,
          confirmedAt: new Date(),
          orderTokenSha256: '',
          thirdPartyAccountId: '',
          customerEmail: '',
          fanId: '',
          sealedContact: Buffer.alloc(0),
          deliveryOption: undefined,
          sandbox: false,
          resoldTicketIds: [],
          resoldFromOrderId: '',
        },
      },
    ]);

    // The consumer may not have recorded the order yet: run until the report sees it.
    const report = await waitFor(
      async () => {
        const { report } = await callUnary(client, 'reconcileEvent', { eventId });
        return report && report.missingAtPartner === 1 ? report : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, description: 'a report with the missing order' },
    );
    expect(report).toMatchObject({ eventId, partnerId, missingAtPartner: 1, orphansCancelled: 0 });
    expect(report.caseIds).toEqual([`rc-${cartId}`]);

    const { case: flagged } = await callUnary(client, 'getCase', { id: `rc-${cartId}` });
    expect(flagged).toMatchObject({
      trigger: CaseTrigger.CASE_TRIGGER_ORDER_MISMATCH,
      outcome: Outcome.OUTCOME_MANUAL,
      orderId,
    });
    expect(flagged?.detail).toContain('paid on the platform');
    await waitFor(() => resolved.find((c) => c.cartId === cartId), {
      timeoutMs: 15_000,
      description: 'reconciliation-resolved for the flagged order',
    });
    expect(actions).toEqual([]);
    const latest = await callUnary(client, 'getEventReport', { eventId });
    expect(latest.report?.generatedAt).toEqual(report.generatedAt);
  });
});
