import { DEVELOPMENT_CONTACT_KEYS, openOrderContact } from '@marquee/proto/order-contact';
import { createHash, randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type IncomingEvent } from '@marquee/platform/bus';
import { callUnary, createGrpcClient, runAsService } from '@marquee/platform/grpc';
import { type ServiceDefinition } from '@marquee/platform/service';
import { describeIntegration, uniqueName, waitFor, testLogger } from '@marquee/platform/testing';
import { authV1, cartV1 } from '@marquee/proto';
import {
  availabilityChangedTopic,
  eventChangedTopic,
  orderConfirmedTopic,
} from '@marquee/proto/topics';
import { authGatewayService } from '@marquee/auth-gateway';
import { composeSecureEntry, secureEntryService } from '@marquee/secure-entry';
import { cartService } from '@marquee/cart';
// composeCart's options (this run's own topics) and the offer ids' format are cart's own: its
// package exports its ServiceDefinition only.
import { offerId } from '../../services/cart/src/domain/offer-ids.js';
import { composeCart } from '../../services/cart/src/service.js';
import { partnerStack, seatedVenue } from './support/partner-stack.js';

/**
 * A commerce purchase for real: cart and 3p-connector on Kafka and FerretDB, partner-reference over
 * HTTP. The event has a password-protected price type: its offers appear only with the password
 * (checked by the real connector's VerifyAccessCode), the partner accepts the booking with it, and
 * the purchase publishes `order-confirmed` with the fan and the hash of the redemption token.
 * auth-gateway and secure-entry run on the same Kafka and FerretDB for the fan's deletion: its
 * `fan-deleted` leaves no contact on the fan's order in cart's and secure-entry's stores.
 */
describeIntegration(
  'commerce purchase against 3p-connector and partner-reference',
  ({ kafka: broker, mongoUrl }) => {
    const logger = testLogger('commerce-int');
    const suffix = randomBytes(4).toString('hex');
    const adminToken = randomBytes(24).toString('base64url');
    const client = { id: `marquee-${suffix}`, secret: randomBytes(24).toString('base64url') };
    const venueId = `VCOM${suffix}`;
    const partnerEventId = `ECOM${suffix}`;
    const PASSWORD = `presale-${suffix}`;
    const eventTopic = { ...eventChangedTopic, name: uniqueName('commerce-event-changed') };
    const availabilityTopic = {
      ...availabilityChangedTopic,
      name: uniqueName('commerce-availability'),
    };
    // This run's orders only, for secure-entry (relayed by the watch below).
    const ordersTopic = { ...orderConfirmedTopic, name: uniqueName('commerce-order-confirmed') };
    const confirmed: IncomingEvent<cartV1.OrderConfirmed>[] = [];
    const stack = partnerStack({ broker, mongoUrl, logger, suffix, adminToken, client });
    const { db, kafka } = stack;
    let commerce: cartV1.CommerceServiceClient;
    let topPicks: cartV1.TopPicksServiceClient;
    let auth: InstanceType<typeof authV1.AuthServiceClient>;
    let cartDb: Connection;
    let entryDb: Connection;
    let eventId = '';

    /** A service composed on its own Kafka bus and database, hosted on free ports. */
    const hostOn = async <C>(
      service: ServiceDefinition<C>,
      env: Record<string, string>,
      mongo: Connection,
      compose = service.compose,
    ) => {
      const bus = kafka(service.name);
      const infra = { name: service.name, logger, bus, mongo };
      const parts = await compose(infra, service.loadConfig({ LOG_LEVEL: 'silent', ...env }));
      await bus.start();
      return stack.host(infra, parts, service.callers!);
    };
    const offers = (passwords: string[]) =>
      callUnary(commerce, 'getEventOffers', { appId: 'app-c', eventId, fanId: '', passwords });

    beforeAll(async () => {
      await stack.hostPartner('cmp');
      await stack.back(
        'POST',
        '/venues',
        seatedVenue(venueId, 'Commerce Hall', [{ row: '1', seats: 10 }]),
      );
      await stack.back('POST', '/events', {
        event_id: partnerEventId,
        venue_id: venueId,
        manifest_id: 'M1',
        text_infos: [{ lang: 'en-us', name: 'Commerce Night' }],
        date_time: '2031-06-01T18:30:00Z',
        currency: 'GBP',
        maximum_tickets_quantity: 6,
        price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Category 1' }] }],
        price_types: [
          { id: '000001', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] },
          {
            id: '000009',
            regular: false,
            access_code: PASSWORD,
            text_infos: [{ lang: 'en-us', name: 'Presale', description: 'Fan club presale' }],
          },
        ],
        face_value_prices: [
          {
            price_period: {
              id: 'PP1',
              start_date_time: '2026-01-01T00:00:00Z',
              end_date_time: '2031-06-01T18:00:00Z',
            },
            prices: [
              { price_level_id: 'PL1', price_type_id: '000001', amount: '5000' },
              { price_level_id: 'PL1', price_type_id: '000009', amount: '4000' },
            ],
          },
        ],
      });

      const connectorAddress = await stack.hostConnector('cmc', `commerce-int-cancel-${suffix}`);

      const watch = kafka('commerce-int-watch');
      await watch.subscribe(
        eventChangedTopic,
        { group: `commerce-int-${suffix}`, fromBeginning: true },
        async (e) => {
          if (e.value?.event?.origin?.kind?.$case !== 'partnerImport') return;
          if (e.value.event.origin.kind.value.partnerEventId !== partnerEventId) return;
          eventId = e.value.event.id;
          await watch.publish(eventTopic, [{ key: e.key, value: e.value }]);
        },
      );
      await watch.subscribe(
        availabilityChangedTopic,
        { group: `commerce-int-${suffix}`, fromBeginning: true },
        async (e) => {
          if (eventId === '' || e.key !== eventId) return;
          await watch.publish(availabilityTopic, [{ key: e.key, value: e.value }]);
        },
      );
      await watch.subscribe(
        orderConfirmedTopic,
        { group: `commerce-int-${suffix}`, fromBeginning: false },
        async (e) => {
          confirmed.push(e);
          if (e.value?.appId === 'app-c' && e.value.eventId === eventId)
            await watch.publish(ordersTopic, [{ key: e.key, value: e.value }]);
        },
      );
      await watch.start();

      const cartBus = kafka('cart');
      const cartConfig = cartService.loadConfig({
        GRPC_ADDR_3P_CONNECTOR: connectorAddress,
        CART_ORDER_TOKEN_KEY: randomBytes(32).toString('base64'),
        CONNECTOR_DEADLINE_MS: '25000',
        CART_MAINTENANCE_WINDOW: 'off',
        // Its database's name: the fan-deleted consumer group is named after it.
        MONGO_DB: `cmt_${suffix}`,
        LOG_LEVEL: 'silent',
      });
      cartDb = await db('cmt');
      const cartInfra = { name: 'cart', logger, bus: cartBus, mongo: cartDb };
      // As the runner does: cart's clients (VerifyAccessCode is for cart only) call as `cart`.
      const cartParts = await runAsService('cart', () =>
        composeCart(cartInfra, cartConfig, {
          eventTopic,
          availabilityTopic,
          // No gate admitted anything: resale listings need no secure-entry client.
          admittedSeats: { admitted: async () => [] },
        }),
      );
      await cartBus.start();
      const cartHost = await stack.host(cartInfra, cartParts, cartService.callers!);
      commerce = createGrpcClient(cartV1.CommerceServiceClient, `127.0.0.1:${cartHost.grpcPort}`, {
        deadlineMs: 30_000,
        caller: 'edge-gateway',
      });
      topPicks = createGrpcClient(cartV1.TopPicksServiceClient, `127.0.0.1:${cartHost.grpcPort}`, {
        caller: 'edge-gateway',
      });

      await stack.registerPartner(connectorAddress, 'Commerce Partner', venueId);

      // auth-gateway (the fans) and secure-entry (the orders' tickets), for the fan's deletion.
      const authHost = await hostOn(authGatewayService, {}, await db('cma'));
      auth = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${authHost.grpcPort}`, {
        deadlineMs: 10_000,
        caller: 'edge-gateway',
      });
      entryDb = await db('cme');
      await hostOn(
        secureEntryService,
        { CONSUMER_GROUP: `commerce-int-se-${suffix}` },
        entryDb,
        (infra, config) => composeSecureEntry(infra, config, { orderConfirmedTopic: ordersTopic }),
      );
      // Sellable once cart's projection has the event and its areas.
      await waitFor(
        async () =>
          eventId !== '' &&
          (await offers([]).catch(() => undefined))?.areas.some((a) => a.id === 'A1') === true,
        { timeoutMs: 60_000, description: 'event and areas in the cart projection' },
      );
    }, 120_000);

    afterAll(async () => {
      commerce?.close();
      topPicks?.close();
      auth?.close();
      await stack.close();
    });

    it('reveals the presale offer only with its password (checked by the connector)', async () => {
      const locked = await offers([]);
      expect(locked.offers.map((o) => o.priceTypeId)).toEqual(['000001']);
      expect(locked.passwords).toEqual([
        expect.objectContaining({ name: 'Presale', unlocked: false, offerIds: [] }),
      ]);
      expect((await offers(['wrong', PASSWORD.toUpperCase()])).offers).toHaveLength(1);
      const open = await offers(['wrong', PASSWORD]);
      expect(open.offers.map((o) => [o.priceTypeId, o.offerType])).toEqual([
        ['000001', 'STANDARD'],
        ['000009', 'SPECIAL'],
      ]);
      expect(open.limitMax).toBe(6);
      expect(JSON.stringify(open)).not.toContain(PASSWORD);
    }, 60_000);

    it('buys presale and adult tickets for a fan: order-confirmed with the fan and the token hash', async () => {
      const fan = { appId: 'app-c', fanId: `fan-${suffix}` };
      const product = (offers: cartV1.ShoppingOffer[]): cartV1.ShoppingProduct => ({
        product: eventId,
        eventId,
        qty: 0,
        offers,
        areaIds: [],
        minPriceMinor: 0,
        maxPriceMinor: 0,
        minPrice: '',
        maxPrice: '',
      });
      const presale = offerId('000009', 'PL1');
      // Without the password the presale offer is refused before the partner is asked.
      await expect(
        callUnary(commerce, 'createShoppingCart', {
          ...fan,
          products: [product([{ offer: presale, qty: 1, password: '' }])],
          holdTimeSeconds: 0,
          pollingCallbackUrl: '',
          idempotencyKey: '',
        }),
      ).rejects.toMatchObject({ kind: 'permission_denied' });
      const created = await callUnary(commerce, 'createShoppingCart', {
        ...fan,
        products: [
          product([
            { offer: presale, qty: 1, password: PASSWORD },
            { offer: offerId('000001', 'PL1'), qty: 1, password: '' },
          ]),
        ],
        holdTimeSeconds: 0,
        pollingCallbackUrl: '',
        idempotencyKey: `create-${suffix}`,
      });
      const cartId = created.cart!.cart!.id;
      const held = await waitFor(
        async () => {
          const { cart } = await callUnary(commerce, 'getShoppingCart', { ...fan, cartId });
          return cart!.cart!.status === cartV1.CartStatus.CART_STATUS_PENDING ? undefined : cart!;
        },
        { timeoutMs: 30_000, description: 'cart held' },
      );
      expect(held.cart!.status).toBe(cartV1.CartStatus.CART_STATUS_HELD);
      expect(held.offers.map((o) => o.priceTypeId).sort()).toEqual(['000001', '000009']);
      expect(held.cart!.totals!.merchandise!.amountMinor).toBe(9_000);
      await expect(
        callUnary(commerce, 'getShoppingCart', { ...fan, fanId: 'someone-else', cartId }),
      ).rejects.toMatchObject({ kind: 'not_found' });

      const { deliveries } = await callUnary(commerce, 'getCartDeliveries', {
        appId: 'app-c',
        cartId,
      });
      expect(deliveries.map((d) => d.deliveryType)).toContain('DIGITAL');
      await callUnary(commerce, 'selectShoppingCartDelivery', {
        ...fan,
        cartId,
        deliveryId: 'ETICKET',
      });
      await callUnary(commerce, 'addShoppingCartPayment', {
        ...fan,
        cartId,
        idempotencyKey: `pay-${suffix}`,
        billing: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          homePhone: '',
          type: 'CC',
          reference: '',
          address: undefined,
          amount: held!.cart!.totals!.unpaid,
          cardNonce: 'fake-valid-nonce',
          cin: '123',
          expireMonth: 12,
          expireYear: 2032,
          emailAddress: 'ada@example.test',
          thirdPartyAccountId: '',
        },
      });
      const purchase = { ...fan, cartId, idempotencyKey: `buy-${suffix}` };
      const bought = await callUnary(commerce, 'purchaseShoppingCart', purchase);
      const retried = await callUnary(commerce, 'purchaseShoppingCart', purchase);
      expect(retried.redemptionToken).toBe(bought.redemptionToken);
      expect(bought.ticketCount).toBe(2);
      const orderId = bought.order!.orderId;
      const record = await waitFor(() => confirmed.find((e) => e.key === orderId), {
        timeoutMs: 30_000,
        description: 'order-confirmed',
      });
      expect(record.value).toMatchObject({
        cartId,
        eventId,
        appId: 'app-c',
        orderTokenSha256: createHash('sha256').update(bought.redemptionToken).digest('hex'),
      });
      // The fan id travels sealed, for the services given the contact keys only.
      expect(
        openOrderContact(record.value!.sealedContact, orderId, DEVELOPMENT_CONTACT_KEYS)?.fanId,
      ).toBe(fan.fanId);
      expect(JSON.stringify(record.value)).not.toContain(fan.fanId);
      expect(JSON.stringify(record.value)).not.toContain(bought.redemptionToken);
    }, 120_000);

    it("deletes a fan: fan-deleted leaves nothing personal in the fan's orders, carts (live and ended) and listings", async () => {
      const email = `erase-${suffix}@example.test`;
      const account = `acct-erase-${suffix}`;
      const { id: fanId } = await callUnary(auth, 'createFan', { email, password: 'long enough' });
      const fan = { appId: 'app-c', fanId };
      const orderId = await buyOne(fan, email, account);
      // A second order, whose ticket the fan puts up for resale, and a cart still holding.
      const listedOrder = await buyOne(fan, email, account, 'listed');
      const sold = await cartDb
        .collection<{ _id: string; data: { tickets: { ticketId: string }[] } }>('orders')
        .findOne({ _id: listedOrder });
      const { listing } = await callUnary(topPicks, 'createResaleListing', {
        orderId: listedOrder,
        ticketIds: sold!.data.tickets.map((t) => t.ticketId),
        price: { amountMinor: 6_000, currency: 'GBP' },
        sellerNotes: `ask for ${email}`,
      });
      const liveCart = await holdOne(fan, 'live');
      type Raw = { _id: string; data: Record<string, unknown>; packed?: { buffer: Uint8Array } };
      const cartOrders = cartDb.collection<Raw>('orders');
      const entryOrders = entryDb.collection<Raw>('entry_orders');
      // Every field, the packed ones (carts) decoded.
      const plain = (doc: Raw | null) =>
        JSON.stringify({
          ...doc,
          packed: doc?.packed && mongoose.mongo.BSON.deserialize(doc.packed.buffer),
        });
      const contactIn = (doc: Raw | null) =>
        [email, account, fanId].filter((value) => plain(doc).includes(value));
      const fanCarts = async () =>
        cartDb
          .collection<Raw>('carts')
          .find({ 'data.appId': 'app-c' })
          .toArray()
          .then((docs) => docs.filter((doc) => plain(doc).includes(fanId)));
      const theirs = await fanCarts();
      expect(theirs.length).toBeGreaterThanOrEqual(3);
      const cartIds = theirs.map((doc) => doc._id);
      const resaleDocs = async () => [
        await cartDb.collection<Raw>('resale_listings').findOne({ _id: listing!.id }),
        ...(await cartDb
          .collection<Raw>('ticket_ownership')
          .find({ 'data.orderId': listedOrder })
          .toArray()),
      ];
      expect((await resaleDocs()).some((doc) => contactIn(doc).length > 0)).toBe(true);
      // Before: both stores hold the contact (secure-entry from the sealed contact).
      const before = await waitFor(async () => entryOrders.findOne({ _id: orderId }), {
        timeoutMs: 30_000,
        description: "secure-entry's order",
      });
      expect(contactIn(before)).toEqual([email, account, fanId]);
      expect(contactIn(await cartOrders.findOne({ _id: orderId }))).toEqual([
        email,
        account,
        fanId,
      ]);

      await callUnary(auth, 'deleteFan', { fanId });

      // Carts, live and ended, and the resale listing and tickets: nothing personal left.
      await waitFor(
        async () => {
          const carts = await cartDb
            .collection<Raw>('carts')
            .find({ _id: { $in: cartIds } })
            .toArray();
          const docs = [...carts, ...(await resaleDocs())];
          return docs.every((doc) => contactIn(doc).length === 0) || undefined;
        },
        { timeoutMs: 30_000, description: "the fan's carts and resale data erased" },
      );
      const live = await cartDb.collection<Raw>('carts').findOne({ _id: liveCart });
      expect(live!.data.status).toBe('RELEASED');
      for (const doc of await cartDb
        .collection<Raw>('carts')
        .find({ _id: { $in: cartIds } })
        .toArray())
        expect(plain(doc)).not.toMatch(/Grace|Hopper/);
      const [listed] = await resaleDocs();
      expect(listed!.data).toMatchObject({ state: 'WITHDRAWN', sellerNotes: '' });

      const erased = await waitFor(
        async () => {
          const docs = [
            await cartOrders.findOne({ _id: orderId }),
            await entryOrders.findOne({ _id: orderId }),
          ];
          return docs.every((doc) => contactIn(doc).length === 0) ? docs : undefined;
        },
        { timeoutMs: 30_000, description: 'contact erased in cart and secure-entry' },
      );
      // The orders stay, as commercial records, with their tickets and money.
      const [cartOrder, entryOrder] = erased;
      expect(cartOrder!.data).toMatchObject({ status: 'CONFIRMED', customerEmail: '' });
      expect(cartOrder!.data.contactErasedAt).toBeInstanceOf(Date);
      expect(entryOrder!.data).toMatchObject({ voided: false, thirdPartyAccountId: '' });
      expect(entryOrder!.data.ticketIds).toHaveLength(1);
      // The fan is gone: a second deletion is NOT_FOUND.
      await expect(callUnary(auth, 'deleteFan', { fanId })).rejects.toMatchObject({
        kind: 'not_found',
      });
    }, 120_000);

    /** A cart holding one adult ticket for the fan; its id. */
    async function holdOne(fan: { appId: string; fanId: string }, tag = ''): Promise<string> {
      const created = await callUnary(commerce, 'createShoppingCart', {
        ...fan,
        products: [
          {
            product: eventId,
            eventId,
            qty: 0,
            offers: [{ offer: offerId('000001', 'PL1'), qty: 1, password: '' }],
            areaIds: [],
            minPriceMinor: 0,
            maxPriceMinor: 0,
            minPrice: '',
            maxPrice: '',
          },
        ],
        holdTimeSeconds: 0,
        pollingCallbackUrl: '',
        idempotencyKey: `erase-create-${tag}${suffix}`,
      });
      const cartId = created.cart!.cart!.id;
      await waitFor(
        async () => {
          const { cart } = await callUnary(commerce, 'getShoppingCart', { ...fan, cartId });
          return cart!.cart!.status === cartV1.CartStatus.CART_STATUS_PENDING ? undefined : cart!;
        },
        { timeoutMs: 30_000, description: 'cart held' },
      );
      return cartId;
    }

    /** One adult ticket bought for the fan, paid with this e-mail and account; the order id. */
    async function buyOne(
      fan: { appId: string; fanId: string },
      emailAddress: string,
      thirdPartyAccountId: string,
      tag = '',
    ): Promise<string> {
      const cartId = await holdOne(fan, tag);
      const { cart: held } = await callUnary(commerce, 'getShoppingCart', { ...fan, cartId });
      await callUnary(commerce, 'selectShoppingCartDelivery', {
        ...fan,
        cartId,
        deliveryId: 'ETICKET',
      });
      await callUnary(commerce, 'addShoppingCartPayment', {
        ...fan,
        cartId,
        idempotencyKey: `erase-pay-${tag}${suffix}`,
        billing: {
          firstName: 'Grace',
          lastName: 'Hopper',
          homePhone: '',
          type: 'CC',
          reference: '',
          address: undefined,
          amount: held!.cart!.totals!.unpaid,
          cardNonce: 'fake-valid-nonce',
          cin: '123',
          expireMonth: 12,
          expireYear: 2032,
          emailAddress,
          thirdPartyAccountId,
        },
      });
      const bought = await callUnary(commerce, 'purchaseShoppingCart', {
        ...fan,
        cartId,
        idempotencyKey: `erase-buy-${tag}${suffix}`,
      });
      return bought.order!.orderId;
    }
  },
);
