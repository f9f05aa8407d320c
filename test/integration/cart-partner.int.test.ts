import { DEVELOPMENT_CONTACT_KEYS, openOrderContact } from '@marquee/proto/order-contact';
import { createHash, randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type IncomingEvent } from '@marquee/platform/bus';
import { callUnary, createGrpcClient, runAsService } from '@marquee/platform/grpc';
import {
  describeIntegration,
  startGroupsAtEnd,
  uniqueName,
  waitFor,
  testLogger,
} from '@marquee/platform/testing';
import { cartV1, partnerV1 } from '@marquee/proto';
import {
  availabilityChangedTopic,
  bookingExpiredTopic,
  eventChangedTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  paymentRefundedTopic,
} from '@marquee/proto/topics';
import { cartService } from '@marquee/cart';
// composeCart's options (this run's own topics) are for tests: cart's package exports its
// ServiceDefinition only.
import { composeCart } from '../../services/cart/src/service.js';
import { partnerStack, seatedVenue } from './support/partner-stack.js';

/**
 * The purchase path for real: cart on Kafka and FerretDB, 3p-connector on Kafka and FerretDB,
 * partner-reference over HTTP (in-process, its own database). The event reaches cart as the
 * connector imports it (relayed onto a topic of this run so the fresh database does not replay the
 * shared broker). Concurrent reserves for few seats, expiry at the partner, a declined payment then
 * a release, and a commit that publishes `order-confirmed` with the token's hash.
 */
describeIntegration(
  'cart against 3p-connector and partner-reference',
  ({ kafka: broker, mongoUrl }) => {
    const logger = testLogger('cart-int');
    const suffix = randomBytes(4).toString('hex');
    const adminToken = randomBytes(24).toString('base64url');
    const client = { id: `marquee-${suffix}`, secret: randomBytes(24).toString('base64url') };
    const venueId = `VCRT${suffix}`;
    const partnerEventId = `ECRT${suffix}`;
    const SEATS = 10;
    const eventTopic = { ...eventChangedTopic, name: uniqueName('cart-event-changed') };
    const availabilityTopic = {
      ...availabilityChangedTopic,
      name: uniqueName('cart-availability'),
    };
    const confirmed: IncomingEvent<cartV1.OrderConfirmed>[] = [];
    const expired: IncomingEvent<cartV1.BookingExpired>[] = [];
    const refunded: IncomingEvent<cartV1.PaymentRefunded>[] = [];
    const stack = partnerStack({ broker, mongoUrl, logger, suffix, adminToken, client });
    const { kafka } = stack;
    let connectorAddress = '';
    let cart: cartV1.CartServiceClient;
    let connector: partnerV1.ConnectorServiceClient;
    let eventId = '';
    let cartDb: Connection | undefined;

    const available = async () =>
      (
        await callUnary(connector, 'getAvailability', {
          eventId,
          levelId: '',
          sectionId: '',
          withSeats: false,
        })
      ).totalAvailable;

    beforeAll(async () => {
      // partner-reference: short holds so expiry can be watched.
      await stack.hostPartner('cpr', { BOOKING_TIMEOUT_MS: '15000' });
      await stack.back(
        'POST',
        '/venues',
        seatedVenue(venueId, 'Cart Hall', [
          { row: '1', seats: SEATS / 2 },
          { row: '2', seats: SEATS / 2 },
        ]),
      );
      await stack.back('POST', '/events', {
        event_id: partnerEventId,
        venue_id: venueId,
        manifest_id: 'M1',
        text_infos: [{ lang: 'en-us', name: 'Cart Night' }],
        date_time: '2031-06-01T18:30:00Z',
        currency: 'GBP',
        maximum_tickets_quantity: 8,
        price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Category 1' }] }],
        price_types: [
          { id: '000001', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] },
        ],
        face_value_prices: [
          {
            price_period: {
              id: 'PP1',
              start_date_time: '2026-01-01T00:00:00Z',
              end_date_time: '2031-06-01T18:00:00Z',
            },
            prices: [{ price_level_id: 'PL1', price_type_id: '000001', amount: '5000' }],
          },
        ],
      });

      // 3p-connector. Its order-cancelled group is this run's own: started at the end of the topic,
      // or it would first call the partner for every order cancelled by earlier runs on this broker.
      const cancelGroup = `cart-int-cancel-${suffix}`;
      await startGroupsAtEnd(broker, [{ groupId: cancelGroup, topic: orderCancelledTopic.name }]);
      connectorAddress = await stack.hostConnector('ccp', cancelGroup);
      connector = createGrpcClient(partnerV1.ConnectorServiceClient, connectorAddress, {
        caller: 'cart',
      });

      // The test's own consumers: our event onto this run's topic, and cart's topics to check.
      const watch = kafka('cart-int-watch');
      await watch.subscribe(
        eventChangedTopic,
        { group: `cart-int-${suffix}`, fromBeginning: true },
        async (e) => {
          if (e.value?.event?.origin?.kind?.$case !== 'partnerImport') return;
          if (e.value.event.origin.kind.value.partnerEventId !== partnerEventId) return;
          eventId = e.value.event.id;
          await watch.publish(eventTopic, [{ key: e.key, value: e.value }]);
        },
      );
      await watch.subscribe(
        orderConfirmedTopic,
        { group: `cart-int-${suffix}`, fromBeginning: false },
        async (e) => {
          confirmed.push(e);
        },
      );
      await watch.subscribe(
        paymentRefundedTopic,
        { group: `cart-int-${suffix}`, fromBeginning: false },
        async (e) => {
          refunded.push(e);
        },
      );
      await watch.subscribe(
        bookingExpiredTopic,
        { group: `cart-int-${suffix}`, fromBeginning: false },
        async (e) => {
          expired.push(e);
        },
      );
      await watch.start();

      // cart.
      const cartBus = kafka('cart');
      const cartConfig = cartService.loadConfig({
        GRPC_ADDR_3P_CONNECTOR: connectorAddress,
        CART_ORDER_TOKEN_KEY: randomBytes(32).toString('base64'),
        CONNECTOR_DEADLINE_MS: '25000',
        CART_MAINTENANCE_WINDOW: 'off',
        CART_SWEEP_INTERVAL_MS: '200',
        CART_OWED_RETRY_MS: '500',
        LOG_LEVEL: 'silent',
      });
      cartDb = await stack.db('crt');
      const cartInfra = { name: 'cart', logger, bus: cartBus, mongo: cartDb };
      // Composed as its runner composes it: its connector client speaks for cart.
      const cartParts = await runAsService('cart', () =>
        composeCart(cartInfra, cartConfig, { eventTopic, availabilityTopic }),
      );
      await cartBus.start();
      const cartHost = await stack.host(cartInfra, cartParts, cartService.callers!);
      cart = createGrpcClient(cartV1.CartServiceClient, `127.0.0.1:${cartHost.grpcPort}`, {
        deadlineMs: 30_000,
        caller: 'edge-gateway',
      });

      await stack.registerPartner(connectorAddress, 'Cart Partner', venueId);
      // The event is sellable once cart's projection has it (availability answers).
      await waitFor(
        async () =>
          eventId !== '' &&
          (
            await callUnary(cart, 'getEventAvailability', {
              appId: 'app-1',
              eventId,
              sandbox: false,
            })
          ).onSale,
        { timeoutMs: 60_000, description: 'event in the cart projection' },
      );
    }, 120_000);

    afterAll(async () => {
      cart?.close();
      connector?.close();
      await stack.close();
    });

    const reserve = (
      appId: string,
      quantity: number,
      extra: Partial<cartV1.ReserveCartRequest> = {},
    ) =>
      callUnary(cart, 'reserveCart', {
        appId,
        eventId,
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
        idempotencyKey: '',
        forceAsync: false,
        language: '',
        ...extra,
      });
    /** The cart once it is no longer pending. */
    const settled = (appId: string, cartId: string) =>
      waitFor(
        async () => {
          const { cart: c } = await callUnary(cart, 'getCart', {
            appId,
            cartId,
            eventId,
            sandbox: false,
          });
          return c && c.status !== cartV1.CartStatus.CART_STATUS_PENDING ? c : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200, description: `cart ${cartId} settled` },
      );
    const billing = (amountMinor: number, nonce: string) => ({
      firstName: 'Ada',
      lastName: 'Lovelace',
      homePhone: '',
      type: 'CC',
      reference: '',
      address: undefined,
      amount: { amountMinor, currency: 'GBP' },
      cardNonce: nonce,
      cin: '123',
      expireMonth: 12,
      expireYear: 2032,
      emailAddress: 'ada@example.test',
      thirdPartyAccountId: 'fan-1',
    });

    it('never oversells under concurrent reserves, and every seat comes back after release', async () => {
      const attempts = 30;
      const results = await Promise.allSettled(
        Array.from({ length: attempts }, (_, i) => reserve(`app-c${i % 3}`, 1)),
      );
      const carts: { appId: string; cartId: string }[] = [];
      results.forEach((r, i) => {
        if (r.status === 'fulfilled')
          carts.push({ appId: `app-c${i % 3}`, cartId: r.value.cart!.id });
        else
          expect(['resource_exhausted', 'unavailable']).toContain(
            (r.reason as { kind: string }).kind,
          );
      });
      const final = await Promise.all(carts.map((c) => settled(c.appId, c.cartId)));
      const held = final.filter((c) => c.status === cartV1.CartStatus.CART_STATUS_HELD);
      // Never more than the seats, never a seat twice, and the partner agrees with the carts.
      // (Carts the slow partner did not answer in time end FAILED 20001; their possible bookings
      // are released for them.)
      expect(held.length).toBeGreaterThan(0);
      expect(held.length).toBeLessThanOrEqual(SEATS);
      const seats = held.flatMap((c) =>
        c.ticketItems.flatMap((line) => line.seats.map((s) => `${line.row}-${s}`)),
      );
      expect(new Set(seats).size).toBe(held.length);
      for (const c of final.filter((f) => f.status !== cartV1.CartStatus.CART_STATUS_HELD))
        expect(['20052', '20001']).toContain(c.failureCode);
      await waitFor(async () => (await available()) === SEATS - held.length, {
        timeoutMs: 60_000,
        description: 'partner availability equals the held carts',
      });
      await Promise.all(
        carts.map((c) =>
          callUnary(cart, 'releaseCart', {
            appId: c.appId,
            eventId,
            cartId: c.cartId,
            sandbox: false,
          }),
        ),
      );
      await waitFor(async () => (await available()) === SEATS, {
        timeoutMs: 60_000,
        description: 'every seat back on sale',
      });
    }, 300_000);

    it('a declined payment leaves the cart held; its release leaves nothing held', async () => {
      const { cart: held } = await reserve('app-d', 2);
      const c = await settled('app-d', held!.id);
      await expect(
        callUnary(cart, 'addPayment', {
          appId: 'app-d',
          eventId,
          cartId: c.id,
          sandbox: false,
          idempotencyKey: '',
          billing: billing(c.totals!.unpaid!.amountMinor, 'fake-processor-declined-nonce'),
        }),
      ).rejects.toMatchObject({ kind: 'failed_precondition', details: { reason: '20122' } });
      expect(await available()).toBe(SEATS - 2);
      await callUnary(cart, 'releaseCart', {
        appId: 'app-d',
        eventId,
        cartId: c.id,
        sandbox: false,
      });
      await waitFor(async () => (await available()) === SEATS, {
        timeoutMs: 20_000,
        description: 'released',
      });
    }, 60_000);

    it('commits: the partner order exists, order-confirmed carries the token hash, a retry answers the same token', async () => {
      const { cart: held } = await reserve('app-o', 2, { idempotencyKey: `reserve-${suffix}` });
      const again = await reserve('app-o', 2, { idempotencyKey: `reserve-${suffix}` });
      expect(again.cart!.id).toBe(held!.id);
      await expect(
        reserve('app-o', 3, { idempotencyKey: `reserve-${suffix}` }),
      ).rejects.toMatchObject({
        kind: 'failed_precondition',
        details: { reason: 'idempotency-key-reused' },
      });
      const c = await settled('app-o', held!.id);
      await expect(
        callUnary(cart, 'getCart', { appId: 'app-other', cartId: c.id, eventId, sandbox: false }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      await callUnary(cart, 'addPayment', {
        appId: 'app-o',
        eventId,
        cartId: c.id,
        sandbox: false,
        idempotencyKey: `pay-${suffix}`,
        billing: billing(c.totals!.unpaid!.amountMinor, 'fake-valid-nonce'),
      });
      const commit = () =>
        callUnary(cart, 'commitCart', {
          appId: 'app-o',
          eventId,
          cartId: c.id,
          sandbox: false,
          idempotencyKey: '',
        });
      const first = await commit();
      const second = await commit();
      expect(first.orderToken).not.toBe('');
      expect(second.orderToken).toBe(first.orderToken);
      // Under an Idempotency-Key the token is recorded for a retry, sealed: the raw documents of
      // the idempotency collection (packed fields included) never hold it in clear.
      const keyed = () =>
        callUnary(cart, 'commitCart', {
          appId: 'app-o',
          eventId,
          cartId: c.id,
          sandbox: false,
          idempotencyKey: `commit-${suffix}`,
        });
      expect((await keyed()).orderToken).toBe(first.orderToken);
      expect((await keyed()).orderToken).toBe(first.orderToken);
      // The payment's and the commit's keys (the reserve's key is claimed by its cart).
      const raw = await cartDb!.db!.collection('idempotency').find({}).toArray();
      expect(raw.length).toBeGreaterThanOrEqual(2);
      for (const doc of raw) {
        const bytes = Buffer.from(mongoose.mongo.BSON.serialize(doc));
        expect(bytes.includes(Buffer.from(first.orderToken))).toBe(false);
      }
      expect(first.cart!.status).toBe(cartV1.CartStatus.CART_STATUS_COMMITTED);
      const message = await waitFor(() => confirmed.find((e) => e.key === first.order!.orderId), {
        timeoutMs: 20_000,
        description: 'order-confirmed',
      });
      expect(message.value).toMatchObject({
        cartId: c.id,
        eventId,
        appId: 'app-o',
        orderTokenSha256: createHash('sha256').update(first.orderToken).digest('hex'),
        customerEmail: '',
        thirdPartyAccountId: '',
        sandbox: false,
      });
      // The record as any reader of the topic (analytics) sees it: no e-mail, no account id in
      // clear; the services given the contact keys open them.
      const record = Buffer.from(orderConfirmedTopic.codec.encode(message.value!));
      expect(record.includes('ada@example.test')).toBe(false);
      expect(record.includes('fan-1')).toBe(false);
      expect(
        openOrderContact(message.value!.sealedContact, message.key, DEVELOPMENT_CONTACT_KEYS),
      ).toMatchObject({ customerEmail: 'ada@example.test', thirdPartyAccountId: 'fan-1' });
      expect(message.value!.tickets).toHaveLength(2);
      const partnerOrder = await callUnary(connector, 'getOrder', {
        eventId,
        inventoryOrderId: message.value!.inventoryOrderId,
      });
      expect(partnerOrder.order!.status).toBe(
        partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CONFIRMED,
      );

      // Cancel: order-cancelled → 3p-connector → the partner.
      const cancelled = await callUnary(cart, 'cancelOrder', {
        ticketIds: [],
        orderId: first.order!.orderId,
        reason: cartV1.CancelReason.CANCEL_REASON_REQUESTED,
        detail: 'test',
      });
      expect(cancelled.order!.status).toBe(cartV1.OrderStatus.ORDER_STATUS_CANCELLED);
      // The capture is refunded (through the processor that took it) and published.
      const grand = cancelled.order!.grandTotal!;
      expect(cancelled.order!.payment).toMatchObject({ refunded: grand, refundPending: false });
      const refund = await waitFor(() => refunded.find((e) => e.key === first.order!.orderId), {
        timeoutMs: 20_000,
        description: 'payment-refunded',
      });
      expect(refund.value).toMatchObject({
        orderId: first.order!.orderId,
        refundId: cancelled.order!.payment!.refunds[0]!.refundId,
        amount: grand,
        source: 'cancel',
      });
      await waitFor(
        async () =>
          (
            await callUnary(connector, 'getOrder', {
              eventId,
              inventoryOrderId: message.value!.inventoryOrderId,
            })
          ).order!.status === partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CANCELLED,
        { timeoutMs: 30_000, description: 'cancelled at the partner' },
      );
    }, 90_000);

    it('expires a hold: EXPIRED, booking-expired, the seats back at the partner', async () => {
      const before = await available();
      const { cart: held } = await reserve('app-e', 3);
      const c = await settled('app-e', held!.id);
      expect(c.status).toBe(cartV1.CartStatus.CART_STATUS_HELD);
      expect(await available()).toBe(before - 3);
      await waitFor(
        async () =>
          (
            await callUnary(cart, 'getCart', {
              appId: 'app-e',
              cartId: c.id,
              eventId,
              sandbox: false,
            })
          ).cart!.status === cartV1.CartStatus.CART_STATUS_EXPIRED,
        { timeoutMs: 40_000, intervalMs: 200, description: 'cart expired' },
      );
      await waitFor(() => expired.find((e) => e.key === c.id), {
        timeoutMs: 20_000,
        description: 'booking-expired',
      });
      await waitFor(async () => (await available()) === before, {
        timeoutMs: 20_000,
        description: 'seats back',
      });
    }, 90_000);
  },
);
