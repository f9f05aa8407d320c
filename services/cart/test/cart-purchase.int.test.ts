import { DEVELOPMENT_CONTACT_KEYS, openOrderContact } from '@marquee/proto/order-contact';
import { createHash, randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService, type HostedService } from '@marquee/platform/service';
import {
  describeIntegration,
  startGroupsAtEnd,
  testLogger,
  uniqueName,
  waitFor,
} from '@marquee/platform/testing';
import { cartV1 } from '@marquee/proto';
import {
  availabilityChangedTopic,
  eventChangedTopic,
  orderConfirmedTopic,
} from '@marquee/proto/topics';
import { cartService } from '../src/index.js';
import { composeCart } from '../src/service.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const NOW = new Date('2030-06-01T12:00:00Z');

/**
 * cart alone on real Kafka and the Mongo-wire server, the partner behind the connector port being
 * the in-process fake (support/fake-connector.ts): the event and its availability arrive on
 * topics of this run, a reserve is held, paid and committed under Idempotency-Keys, and the order
 * is published on `order-confirmed` for any reader of the topic. The same path against the real
 * 3p-connector and partner-reference is the cross-service tier's (test/integration).
 */
describeIntegration(
  'cart alone on Kafka and the Mongo-wire server',
  ({ kafka: broker, mongoUrl }) => {
    const logger = testLogger('cart-purchase-int');
    const suffix = randomBytes(4).toString('hex');
    const eventTopic = { ...eventChangedTopic, name: uniqueName('cart-alone-event-changed') };
    const availabilityTopic = {
      ...availabilityChangedTopic,
      name: uniqueName('cart-alone-availability'),
    };
    const connector = new FakeConnector(10, () => NOW);
    const confirmed: IncomingEvent<cartV1.OrderConfirmed>[] = [];
    const buses: EventBus[] = [];
    let cartDb: Connection;
    let hosted: HostedService | undefined;
    let cart: cartV1.CartServiceClient;

    const kafka = (clientId: string) => {
      const bus = createKafkaBus({ ...broker, clientId, source: `//marquee/${clientId}`, logger });
      buses.push(bus);
      return bus;
    };

    beforeAll(async () => {
      // The test's own bus: the partner event onto this run's topics, and order-confirmed read from
      // its end as of now.
      const feed = kafka('cart-alone-feed');
      const group = `cart-alone-${suffix}`;
      await startGroupsAtEnd(broker, [{ groupId: group, topic: orderConfirmedTopic.name }]);
      await feed.subscribe(orderConfirmedTopic, { group, fromBeginning: false }, async (e) => {
        confirmed.push(e);
      });
      await feed.start();
      await feed.publish(eventTopic, [
        { key: EVENT_ID, value: { event: partnerEvent(), changedAt: NOW } },
      ]);
      await feed.publish(availabilityTopic, [
        { key: EVENT_ID, value: availability(1, [area({ available: 10 })]) },
      ]);

      cartDb = await connectMongo({
        url: mongoUrl,
        dbName: `cart_alone_${suffix}`,
        logger,
        appName: 'cart',
      });
      const bus = kafka('cart');
      const infra = { name: 'cart', logger, bus, mongo: cartDb };
      const config = cartService.loadConfig({
        CART_ORDER_TOKEN_KEY: randomBytes(32).toString('base64'),
        CART_MAINTENANCE_WINDOW: 'off',
        MONGO_DB: `cart_alone_${suffix}`,
        LOG_LEVEL: 'silent',
      });
      const parts = await composeCart(infra, config, {
        connector,
        clock: { now: () => NOW },
        eventTopic,
        availabilityTopic,
      });
      await bus.start();
      hosted = await hostService(infra, parts, {
        host: '127.0.0.1',
        httpPort: 0,
        grpcPort: 0,
        callers: cartService.callers!,
      });
      cart = createGrpcClient(cartV1.CartServiceClient, `127.0.0.1:${hosted.grpcPort}`, {
        deadlineMs: 30_000,
        caller: 'edge-gateway',
      });
      // Sellable once cart's projection, read from Kafka, has the event.
      await waitFor(
        async () =>
          (
            await callUnary(cart, 'getEventAvailability', {
              appId: 'app-1',
              eventId: EVENT_ID,
              sandbox: false,
            }).catch(() => undefined)
          )?.onSale,
        { timeoutMs: 60_000, description: 'event in the cart projection' },
      );
    }, 120_000);

    afterAll(async () => {
      cart?.close();
      await hosted?.stop();
      for (const bus of buses) await bus.close();
      if (cartDb) {
        await cartDb.dropDatabase();
        await closeMongo(cartDb);
      }
    });

    const reserve = (appId: string, quantity: number, idempotencyKey = '') =>
      callUnary(cart, 'reserveCart', {
        appId,
        eventId: EVENT_ID,
        reserves: [
          {
            tickets: [{ id: '000001', quantity, priceId: '', amount: undefined }],
            areaIds: [],
            section: '',
            row: '',
            beginSeat: 0,
            endSeat: 0,
            acceptBestAvailable: true,
          },
        ],
        fanSessionId: '',
        sandbox: false,
        idempotencyKey,
        forceAsync: false,
        language: '',
      });

    it('commits a paid cart once: order-confirmed on Kafka with the token hash and the contact sealed, the token sealed in storage', async () => {
      const { cart: held } = await reserve('app-o', 2, `reserve-${suffix}`);
      expect(held!.status).toBe(cartV1.CartStatus.CART_STATUS_HELD);
      expect((await reserve('app-o', 2, `reserve-${suffix}`)).cart!.id).toBe(held!.id);
      await expect(reserve('app-o', 3, `reserve-${suffix}`)).rejects.toMatchObject({
        kind: 'failed_precondition',
        details: { reason: 'idempotency-key-reused' },
      });
      await callUnary(cart, 'addPayment', {
        appId: 'app-o',
        eventId: EVENT_ID,
        cartId: held!.id,
        sandbox: false,
        idempotencyKey: `pay-${suffix}`,
        billing: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          homePhone: '',
          type: 'CC',
          reference: '',
          address: undefined,
          amount: held!.totals!.unpaid,
          cardNonce: 'fake-valid-nonce',
          cin: '123',
          expireMonth: 12,
          expireYear: 2032,
          emailAddress: 'ada@example.test',
          thirdPartyAccountId: 'fan-1',
        },
      });
      const commit = () =>
        callUnary(cart, 'commitCart', {
          appId: 'app-o',
          eventId: EVENT_ID,
          cartId: held!.id,
          sandbox: false,
          idempotencyKey: `commit-${suffix}`,
        });
      const first = await commit();
      expect(first.cart!.status).toBe(cartV1.CartStatus.CART_STATUS_COMMITTED);
      expect(first.orderToken).not.toBe('');
      expect((await commit()).orderToken).toBe(first.orderToken);
      // One partner order, confirmed once.
      expect(connector.calls.createOrder).toBe(1);
      expect([...connector.bookings.values()].map((b) => b.status)).toEqual(['CONFIRMED']);

      // The idempotency store on the Mongo-wire server never holds the token in clear. It holds
      // the payment's and the commit's keys; the reserve's key is claimed by its cart.
      const raw = await cartDb.db!.collection('idempotency').find({}).toArray();
      expect(raw.length).toBeGreaterThanOrEqual(2);
      for (const doc of raw)
        expect(Buffer.from(mongoose.mongo.BSON.serialize(doc)).includes(first.orderToken)).toBe(
          false,
        );

      const message = await waitFor(() => confirmed.find((e) => e.key === first.order!.orderId), {
        timeoutMs: 30_000,
        description: 'order-confirmed',
      });
      expect(message.value).toMatchObject({
        cartId: held!.id,
        eventId: EVENT_ID,
        appId: 'app-o',
        orderTokenSha256: createHash('sha256').update(first.orderToken).digest('hex'),
        customerEmail: '',
        thirdPartyAccountId: '',
        sandbox: false,
      });
      expect(message.value!.tickets).toHaveLength(2);
      const record = Buffer.from(orderConfirmedTopic.codec.encode(message.value!));
      expect(record.includes('ada@example.test')).toBe(false);
      expect(record.includes('fan-1')).toBe(false);
      expect(record.includes(first.orderToken)).toBe(false);
      expect(
        openOrderContact(message.value!.sealedContact, message.key, DEVELOPMENT_CONTACT_KEYS),
      ).toMatchObject({ customerEmail: 'ada@example.test', thirdPartyAccountId: 'fan-1' });
    }, 90_000);

    it('releases a held cart: RELEASED in the store, the booking released at the partner', async () => {
      const { cart: held } = await reserve('app-r', 1);
      expect(held!.status).toBe(cartV1.CartStatus.CART_STATUS_HELD);
      const booking = [...connector.bookings.values()].find((b) => b.cartId === held!.id);
      expect(booking?.status).toBe('BOOKED');
      await callUnary(cart, 'releaseCart', {
        appId: 'app-r',
        eventId: EVENT_ID,
        cartId: held!.id,
        sandbox: false,
      });
      await waitFor(() => booking!.status === 'RELEASED' || undefined, {
        timeoutMs: 20_000,
        description: 'booking released',
      });
      const { cart: released } = await callUnary(cart, 'getCart', {
        appId: 'app-r',
        cartId: held!.id,
        eventId: EVENT_ID,
        sandbox: false,
      });
      expect(released!.status).toBe(cartV1.CartStatus.CART_STATUS_RELEASED);
      // Another app does not see it.
      await expect(
        callUnary(cart, 'getCart', {
          appId: 'app-other',
          cartId: held!.id,
          eventId: EVENT_ID,
          sandbox: false,
        }),
      ).rejects.toMatchObject({ kind: 'not_found' });
    }, 60_000);
  },
);
