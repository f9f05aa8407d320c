import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService } from '@marquee/platform/service';
import { describeIntegration, waitFor, testLogger } from '@marquee/platform/testing';
import { entryV1 } from '@marquee/proto';
import { CancelReason } from '@marquee/proto/cart/v1';
import {
  orderCancelledTopic,
  orderConfirmedTopic,
  ticketIssuedTopic,
  ticketScannedTopic,
  ticketVoidedTopic,
} from '@marquee/proto/topics';
import { decodeToken, payloadAt } from '@marquee/render-kit/format';
import { secureEntryService } from '../src/index.js';
import { confirmedOrder, device, EVENT_ID } from './support/fixtures.js';

const { ScanResult } = entryV1;

/**
 * secure-entry as distributed mode runs it: Mongo-wire store, consumers and the outbox relay on
 * real Kafka. Orders are published on `order-confirmed` by the test (the cart's producer is not
 * needed for this tier). Two instances share the database, so two gates scanning at the same
 * moment reach two processes.
 */
describeIntegration('secure-entry with real Kafka and Mongo', ({ kafka, mongoUrl }) => {
  const logger = testLogger('secure-entry-int');
  const suffix = randomBytes(4).toString('hex');
  const keys = {
    SECURE_ENTRY_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    SECURE_ENTRY_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  const issued: IncomingEvent<entryV1.TicketIssued>[] = [];
  const voided: IncomingEvent<entryV1.TicketVoided>[] = [];
  const scanned: IncomingEvent<entryV1.TicketScanned>[] = [];
  let connection: Connection;
  let producer: EventBus;
  let consumer: EventBus;

  const start = async (group: string) => {
    const bus = createKafkaBus({
      ...kafka,
      clientId: 'secure-entry',
      source: '//marquee/secure-entry',
      logger,
    });
    const config = secureEntryService.loadConfig({ ...keys, CONSUMER_GROUP: group });
    const infra = { name: 'secure-entry', logger, bus, mongo: connection };
    const parts = await secureEntryService.compose(infra, config);
    await bus.start();
    const hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: secureEntryService.callers!,
    });
    const client = createGrpcClient(
      entryV1.SecureEntryServiceClient,
      `127.0.0.1:${hosted.grpcPort}`,
      { caller: 'edge-gateway' },
    );
    return {
      client,
      async stop() {
        client.close();
        await hosted.stop();
        await bus.close();
      },
    };
  };
  let one: Awaited<ReturnType<typeof start>>;
  let two: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    connection = await connectMongo({
      url: mongoUrl,
      dbName: `secure_entry_int_${suffix}`,
      logger,
      appName: 'secure-entry-int',
    });
    producer = createKafkaBus({
      ...kafka,
      clientId: 'secure-entry-int-producer',
      source: '//marquee/cart',
      logger,
    });
    await producer.start();
    consumer = createKafkaBus({
      ...kafka,
      clientId: 'secure-entry-int',
      source: '//marquee/test',
      logger,
    });
    const group = `secure-entry-int-${suffix}`;
    await consumer.subscribe(ticketIssuedTopic, { group }, async (e) => void issued.push(e));
    await consumer.subscribe(ticketVoidedTopic, { group }, async (e) => void voided.push(e));
    await consumer.subscribe(ticketScannedTopic, { group }, async (e) => void scanned.push(e));
    await consumer.start();
    one = await start(`secure-entry-${suffix}`);
    two = await start(`secure-entry-${suffix}`);
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await consumer?.close();
    await producer?.close();
    await connection?.dropDatabase();
    await closeMongo(connection);
  });

  const publishConfirmed = async (message: ReturnType<typeof confirmedOrder>['message']) =>
    producer.publish(orderConfirmedTopic, [{ key: message.orderId, value: message }]);

  const readOrder = (
    orderToken: string,
    over: Partial<entryV1.GetOrderRequest> = {},
  ): Promise<entryV1.GetOrderResponse> =>
    callUnary(one.client, 'getOrder', {
      orderToken,
      appId: 'app-1',
      deviceId: device.id,
      deviceType: device.type,
      deviceOs: device.os,
      thirdPartyAccountId: 'user-42',
      sandbox: false,
      ...over,
    });

  /** Reads the order once the consumer has issued its tickets. */
  const readWhenIssued = async (
    orderToken: string,
    over: Partial<entryV1.GetOrderRequest> = {},
  ) => {
    let answer: entryV1.GetOrderResponse | undefined;
    await waitFor(
      async () => {
        try {
          answer = await readOrder(orderToken, over);
          return true;
        } catch (error) {
          if ((error as { kind?: string }).kind === 'not_found') return false;
          throw error;
        }
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    return answer!;
  };

  const gate = async (client = one.client) =>
    (await callUnary(client, 'createGate', { name: `gate-${suffix}`, eventId: EVENT_ID })).token;

  const scan = (gateToken: string, payload: string, client = one.client) =>
    callUnary(client, 'validateScan', { gateToken, payload });

  it('purchase -> order read -> token -> payload -> the gate admits once, refuses the replay', async () => {
    const { message, orderToken } = confirmedOrder();
    await publishConfirmed(message);
    const order = await readWhenIssued(orderToken);
    expect(order.orderId).toBe(message.orderId);
    expect(order.customerEmail).toBe('fan@example.com');
    expect(order.tickets).toHaveLength(2);
    const token = decodeToken(order.tickets[0]!.token);
    expect(token.barcode).toBe(order.tickets[0]!.barcodeId);
    const gateToken = await gate();
    const payload = payloadAt(token, Date.now());
    const first = await scan(gateToken, payload);
    expect(first.result).toBe(ScanResult.SCAN_RESULT_ADMITTED);
    expect(first.ticketId).toBe(order.tickets[0]!.ticketId);
    expect((await scan(gateToken, payload)).result).toBe(ScanResult.SCAN_RESULT_REPLAYED);

    await waitFor(() => issued.some((e) => e.key === message.orderId), { timeoutMs: 30_000 });
    await waitFor(() => scanned.filter((e) => e.value?.ticketId === first.ticketId).length >= 2, {
      timeoutMs: 30_000,
    });
    const results = scanned
      .filter((e) => e.value?.ticketId === first.ticketId)
      .map((e) => e.value!.result);
    expect(results.sort()).toEqual([
      ScanResult.SCAN_RESULT_ADMITTED,
      ScanResult.SCAN_RESULT_REPLAYED,
    ]);
    // No barcode, code or token on the topics.
    const record = JSON.stringify([...issued, ...scanned].map((e) => e.value));
    expect(record).not.toContain(token.barcode);
    expect(record).not.toContain(token.fixed);
  });

  it('refuses the tickets of a cancelled order', async () => {
    const { message, orderToken } = confirmedOrder();
    await publishConfirmed(message);
    const order = await readWhenIssued(orderToken);
    const token = decodeToken(order.tickets[0]!.token);
    await producer.publish(orderCancelledTopic, [
      {
        key: message.orderId,
        value: {
          orderId: message.orderId,
          eventId: EVENT_ID,
          partnerId: 'prt-1',
          inventoryOrderId: '',
          reason: CancelReason.CANCEL_REASON_REQUESTED,
          detail: '',
          cancelledAt: new Date(),
          sandbox: false,
          ticketIds: [],
          partial: false,
        },
      },
    ]);
    const gateToken = await gate();
    await waitFor(async () => (await readOrder(orderToken)).voided, { timeoutMs: 30_000 });
    expect((await scan(gateToken, payloadAt(token, Date.now()))).result).toBe(
      ScanResult.SCAN_RESULT_VOIDED,
    );
    await waitFor(() => voided.some((e) => e.key === message.orderId), { timeoutMs: 30_000 });
    expect(voided.find((e) => e.key === message.orderId)?.value?.ticketIds.sort()).toEqual(
      order.tickets.map((t) => t.ticketId).sort(),
    );
  });

  it('after a resale admits only the new owner', async () => {
    const seller = confirmedOrder({ seats: ['21'] });
    await publishConfirmed(seller.message);
    const sold = await readWhenIssued(seller.orderToken);
    const oldToken = decodeToken(sold.tickets[0]!.token);
    const buyer = confirmedOrder({
      seats: ['21'],
      thirdPartyAccountId: 'user-77',
      resoldTicketIds: [sold.tickets[0]!.partnerTicketId],
      resoldFromOrderId: seller.message.orderId,
    });
    await publishConfirmed(buyer.message);
    const bought = await readWhenIssued(buyer.orderToken, {
      thirdPartyAccountId: 'user-77',
      deviceId: 'buyer-phone',
    });
    const newToken = decodeToken(bought.tickets[0]!.token);
    await waitFor(async () => (await readOrder(seller.orderToken)).tickets[0]!.voided, {
      timeoutMs: 30_000,
    });
    const gateToken = await gate();
    expect((await scan(gateToken, payloadAt(oldToken, Date.now()))).result).toBe(
      ScanResult.SCAN_RESULT_VOIDED,
    );
    expect((await scan(gateToken, payloadAt(newToken, Date.now()))).result).toBe(
      ScanResult.SCAN_RESULT_ADMITTED,
    );
  });

  it('two gates on two processes scanning the same ticket at the same moment: exactly one admits', async () => {
    const { message, orderToken } = confirmedOrder({ seats: ['31', '32', '33'] });
    await publishConfirmed(message);
    const order = await readWhenIssued(orderToken);
    const gateA = await gate(one.client);
    const gateB = await gate(two.client);
    const gateIdOf = (token: string) => /^mqg_([a-z0-9]+)\./.exec(token)![1]!;
    const perGate = 8;
    for (const ticket of order.tickets) {
      const payload = payloadAt(decodeToken(ticket.token), Date.now());
      // Each gate fires its scans at once through both processes: 2 x 8 concurrent inserts of the
      // admission of one ticket into one database.
      const answers = await Promise.all(
        Array.from({ length: perGate * 2 }, (_, i) => {
          const gateToken = i % 2 === 0 ? gateA : gateB;
          return scan(gateToken, payload, i % 4 < 2 ? one.client : two.client);
        }),
      );
      const admitted = answers.filter((a) => a.result === ScanResult.SCAN_RESULT_ADMITTED);
      expect(admitted).toHaveLength(1);
      const winner = admitted[0]!.gateId;
      expect([gateIdOf(gateA), gateIdOf(gateB)]).toContain(winner);
      const refused = answers.filter((a) => a !== admitted[0]);
      expect(refused.map((a) => a.result)).toEqual(
        Array(perGate * 2 - 1).fill(ScanResult.SCAN_RESULT_REPLAYED),
      );
      // Every refusal names the one admission: the same gate and instant.
      expect(new Set(refused.map((a) => a.admittedByGateId))).toEqual(new Set([winner]));
      expect(new Set(refused.map((a) => a.admittedAt?.getTime()))).toEqual(
        new Set([admitted[0]!.admittedAt?.getTime()]),
      );
      expect(answers.every((a) => a.ticketId === ticket.ticketId)).toBe(true);
    }
    // ticket-scanned carries every scan, with exactly one admission per ticket.
    for (const ticket of order.tickets) {
      await waitFor(
        () => scanned.filter((e) => e.value?.ticketId === ticket.ticketId).length >= perGate * 2,
        { timeoutMs: 30_000 },
      );
      const results = scanned
        .filter((e) => e.value?.ticketId === ticket.ticketId)
        .map((e) => e.value!.result);
      expect(results.filter((r) => r === ScanResult.SCAN_RESULT_ADMITTED)).toHaveLength(1);
    }
  });

  it('refuses another device and another account on the order read', async () => {
    const { message, orderToken } = confirmedOrder();
    await publishConfirmed(message);
    await readWhenIssued(orderToken);
    await expect(readOrder(orderToken, { deviceId: 'someone-else' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    await expect(readOrder(orderToken, { thirdPartyAccountId: 'x' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
  });
});
