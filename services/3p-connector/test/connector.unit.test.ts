import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryBus, type MemoryBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { hostService, type HostedService } from '@marquee/platform/service';
import { metricValue, waitFor } from '@marquee/platform/testing';
import { catalogV1, partnerV1 } from '@marquee/proto';
import { cartV1 } from '@marquee/proto';
import { orderCancelledTopic } from '@marquee/proto/topics';
import { threePConnectorService } from '../src/index.js';
import { FakePartner } from './support/fake-partner.js';
import { availability, confirmedOrder, manifest, partnerEvent } from './support/fixtures.js';

const logger = createLogger({ service: 'test', level: 'silent' });

const order = {
  ...confirmedOrder,
  tickets: [
    {
      ticket_id: 'T1',
      area_id: 'A1',
      section_id: 'S1',
      row: '1',
      seat: '2',
      general_admission: false,
      price_level_id: 'PL1',
      price_type_id: 'ADULT',
      amount: '5000',
    },
  ],
};
const booking = {
  inventory_token: 'B1',
  event_id: 'EV1',
  status: 'BOOKED',
  language: 'en-us',
  channel_type: 'INTERNET',
  external_reference: 'cart-1',
  created_at: '2026-03-02T10:00:00Z',
  expires_at: '2026-03-02T10:15:00Z',
  currency: 'EUR',
  tickets_amount: '5000',
  tickets_quantity: 1,
  tickets: order.tickets,
};

let fake: FakePartner;
let bus: MemoryBus;
let service: HostedService;
let admin: partnerV1.PartnerAdminServiceClient;
let connector: partnerV1.ConnectorServiceClient;
let currentEvent = partnerEvent();
/** The availability answers' `last_modification`; the event's own when unset. */
let availabilityStamp: string | undefined;

const decodeAll = <T>(topic: string, decode: (b: Uint8Array) => T) =>
  bus.records(topic).map((r) => decode(r.value!));

beforeEach(async () => {
  currentEvent = partnerEvent();
  availabilityStamp = undefined;
  fake = await new FakePartner().start();
  fake
    .on('GET', /^\/healthcheck$/, { status: 200, body: { id: 0, message: 'ok' } })
    .on('GET', /^\/events$/, (r) => {
      const since = Date.parse(r.query.get('last_modification') ?? '');
      const items =
        Date.parse(currentEvent.last_modification) >= since
          ? [{ event: currentEvent, status: 'ON_SALE', mod_list: ['NEW'] }]
          : [];
      return {
        status: 200,
        body: {
          events_info: items,
          page: { size: 100, total_elements: items.length, total_pages: 1, number: 0 },
        },
      };
    })
    .on('GET', /^\/events\/EV1$/, () => ({
      status: 200,
      body: { event: currentEvent, status: 'ON_SALE' },
    }))
    .on('GET', /^\/manifests\/M1$/, { status: 200, body: { manifest } })
    .on('GET', /^\/logos\/LOGO1$/, {
      status: 200,
      body: { logo: { id: 'LOGO1', format: 'png', data: 'AA==' } },
    })
    .on('GET', /^\/tax-plans\/TP1$/, {
      status: 200,
      body: { tax_plan: { id: 'TP1', name: 'VAT', rates: [{ name: 'VAT', rate: '20.00' }] } },
    })
    .on('GET', /^\/events\/EV1\/availability$/, () => ({
      status: 200,
      body: availability('EV1', availabilityStamp ?? currentEvent.last_modification),
    }))
    .on('POST', /^\/bookings$/, { status: 200, body: { booking } })
    .on('POST', /^\/orders$/, { status: 200, body: { order } })
    .on('POST', /^\/orders\/O1$/, (r) => {
      const action = (JSON.parse(r.body) as { request: { action: string } }).request.action;
      const status = { PRINT: 'PRINTED', ROLLBACK_PRINT: 'CONFIRMED', CANCEL: 'CANCELLED' }[
        action
      ]!;
      return { status: 200, body: { action, order: { ...order, status } } };
    });
  bus = createMemoryBus({ source: 'test' });
  const config = threePConnectorService.loadConfig({
    HEALTH_INTERVAL_MS: '200',
    QUEUE_POLL_MS: '50',
    PARTNER_CALL_TIMEOUT_MS: '1000',
    PARTNER_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'silent',
  });
  const infra = { name: '3p-connector', logger, bus, mongo: undefined };
  const parts = await threePConnectorService.compose(infra, config);
  await bus.start();
  service = await hostService(infra, parts, {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: threePConnectorService.callers!,
  });
  const address = `127.0.0.1:${service.grpcPort}`;
  // As in production: the edge administers partners, cart books and orders.
  admin = createGrpcClient(partnerV1.PartnerAdminServiceClient, address, {
    caller: 'edge-gateway',
  });
  connector = createGrpcClient(partnerV1.ConnectorServiceClient, address, { caller: 'cart' });
});

afterEach(async () => {
  admin.close();
  connector.close();
  await service.stop();
  await bus.close();
  await fake.stop();
});

async function registerAndImport(): Promise<{ partnerId: string; eventId: string }> {
  const { id } = await callUnary(admin, 'registerPartner', {
    name: 'Fake Partner',
    baseUrl: fake.baseUrl,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    venues: ['V1'],
  });
  const changed = await waitFor(
    () => decodeAll('event-changed', catalogV1.EventChanged.decode)[0],
    {
      timeoutMs: 5_000,
      description: 'event-changed of the imported event',
    },
  );
  return { partnerId: id, eventId: changed.event!.id };
}

describe('3p-connector with a fake partner (memory bus and stores)', () => {
  it('registers, imports the venue, publishes the mapped event and a full availability sync', async () => {
    const { partnerId, eventId } = await registerAndImport();
    const [changed] = decodeAll('event-changed', catalogV1.EventChanged.decode);
    expect(eventId).toMatch(/^[A-Za-z0-9]{15}$/);
    expect(changed!.event).toMatchObject({
      version: 1,
      source: { id: partnerId, name: 'fake-partner' },
    });
    const sync = await waitFor(
      () => decodeAll('availability-changed', catalogV1.AvailabilityChanged.decode)[0],
    );
    expect(sync).toMatchObject({
      eventId,
      scope: 'SYNC_SCOPE_FULL',
      totalAvailable: 41,
      sequence: 1,
    });
    const { partner } = await callUnary(admin, 'getPartner', { id: partnerId });
    expect(partner!.venues[0]).toMatchObject({
      venueId: 'V1',
      watermark: new Date(currentEvent.last_modification),
      lastImportEvents: 1,
      lastError: '',
    });
    expect(JSON.stringify(partner)).not.toContain(fake.clientSecret);
    expect(fake.calls('GET', /manifests\/M1/)).toHaveLength(1);
    expect(fake.calls('GET', /logos\/LOGO1/)).toHaveLength(1);
    expect(fake.calls('GET', /tax-plans\/TP1/)).toHaveLength(1);
    const health = await waitFor(
      () => decodeAll('partner-health-changed', partnerV1.PartnerHealthChanged.decode)[0],
    );
    expect(health).toMatchObject({ partnerId, current: 'PARTNER_HEALTH_HEALTHY' });
  });

  it('re-imports a changed event as the next version and skips an unchanged one', async () => {
    const { partnerId, eventId } = await registerAndImport();
    await callUnary(admin, 'startImport', { partnerId, venues: [] });
    currentEvent = partnerEvent({
      last_modification: '2026-03-05T00:00:00Z',
      text_infos: [{ lang: 'en-us', name: 'Renamed' }],
    });
    await callUnary(admin, 'startImport', { partnerId, venues: ['V1'] });
    const second = await waitFor(
      () => decodeAll('event-changed', catalogV1.EventChanged.decode)[1],
    );
    expect(second.event).toMatchObject({
      id: eventId,
      version: 2,
      names: { values: { 'en-US': 'Renamed' } },
    });
    await new Promise((r) => setTimeout(r, 1_200));
    expect(decodeAll('event-changed', catalogV1.EventChanged.decode)).toHaveLength(2); // Counted as written: created once, updated once, the unchanged re-import not at all.
    const imported = (change: string) =>
      metricValue(`marquee_imported_events_total{partner="${partnerId}",change="${change}"}`);
    expect(await imported('created')).toBe(1);
    expect(await imported('updated')).toBe(1);
  });

  it('refuses to import an event with two regular price types or a logo listed twice', async () => {
    const { partnerId, eventId } = await registerAndImport();
    const refused = () =>
      metricValue(`marquee_refused_partner_events_total{partner="${partnerId}"}`);
    const base = partnerEvent();
    currentEvent = partnerEvent({
      last_modification: '2026-03-05T00:00:00Z',
      price_types: base.price_types.map((t) => ({ ...t, regular: true })),
    });
    await callUnary(admin, 'startImport', { partnerId, venues: ['V1'] });
    await waitFor(async () => ((await refused()) === 1 ? true : undefined));
    currentEvent = partnerEvent({
      last_modification: '2026-03-06T00:00:00Z',
      logos: [
        { id: 'LOGO1', position: 'top' },
        { id: 'LOGO1', position: 'bottom' },
      ],
    });
    await callUnary(admin, 'startImport', { partnerId, venues: ['V1'] });
    await waitFor(async () => ((await refused()) === 2 ? true : undefined));
    expect(decodeAll('event-changed', catalogV1.EventChanged.decode)).toHaveLength(1);
    // Once the partner fixes the event, the next import takes it.
    currentEvent = partnerEvent({ last_modification: '2026-03-07T00:00:00Z' });
    await callUnary(admin, 'startImport', { partnerId, venues: ['V1'] });
    const fixed = await waitFor(() => decodeAll('event-changed', catalogV1.EventChanged.decode)[1]);
    expect(fixed.event).toMatchObject({ id: eventId, version: 2 });
  });

  it('re-reads the event once per new availability last_modification, not on every check', async () => {
    const { eventId } = await registerAndImport();
    const eventReads = () => fake.calls('GET', /^\/v1\/events\/EV1$/).length;
    const check = () =>
      callUnary(connector, 'getAvailability', {
        eventId,
        levelId: '',
        sectionId: '',
        withSeats: false,
      });
    await check();
    expect(eventReads()).toBe(0);
    // A sale at a partner whose availability dates its inventory (partner-reference).
    availabilityStamp = '2026-03-10T00:00:00Z';
    await check();
    await waitFor(() => eventReads() === 1);
    for (let i = 0; i < 3; i += 1) await check();
    await new Promise((r) => setTimeout(r, 200));
    expect(eventReads()).toBe(1);
    availabilityStamp = '2026-03-11T00:00:00Z';
    await check();
    await waitFor(() => eventReads() === 2);
  });

  it('books, orders, prints, rolls back and cancels through the gRPC port', async () => {
    const { eventId } = await registerAndImport();
    const held = await callUnary(connector, 'createBooking', {
      eventId,
      cartId: 'cart-1',
      lines: [
        {
          areaId: 'A1',
          priceLevelId: 'PL1',
          priceTypeId: 'ADULT',
          quantity: 1,
          seatIds: ['S1-2'],
          accessCode: '',
        },
      ],
      language: 'en-us',
      channelType: 'INTERNET',
    });
    expect(held).toMatchObject({
      inventoryToken: 'B1',
      total: { amountMinor: 5000, currency: 'EUR' },
    });
    const sent = JSON.parse(fake.calls('POST', /^\/v1\/bookings$/)[0]!.body);
    expect(sent.request).toMatchObject({
      event_id: 'EV1',
      external_reference: 'cart-1',
      tickets: [{ seat_ids: ['S1-2'] }],
    });
    const confirmed = await callUnary(connector, 'createOrder', {
      eventId,
      inventoryToken: 'B1',
      orderId: 'order-1',
      ticketsAmount: { amountMinor: 5000, currency: 'EUR' },
      ticketsQuantity: 1,
      paymentMethodType: 'CARD',
      deliveryMethodType: 'PH',
      channelType: 'INTERNET',
    });
    expect(confirmed.inventoryOrderId).toBe('O1');
    expect(
      JSON.parse(fake.calls('POST', /^\/v1\/orders$/)[0]!.body).request.order_info
        .external_order_id,
    ).toBe('order-1');
    const action = (type: partnerV1.OrderActionType) =>
      callUnary(connector, 'orderAction', {
        eventId,
        inventoryOrderId: 'O1',
        action: type,
        orderId: 'order-1',
        language: '',
        channelType: '',
        printMessages: [],
        ticketIds: [],
      });
    const messages = ['Happy birthday', 'x'.repeat(100), 'Gate 4'];
    const printed = await callUnary(connector, 'orderAction', {
      eventId,
      inventoryOrderId: 'O1',
      action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT,
      orderId: 'order-1',
      language: '',
      channelType: '',
      printMessages: messages,
      ticketIds: [],
    });
    expect(printed.order!.status).toBe('PARTNER_ORDER_STATUS_PRINTED');
    expect(JSON.parse(fake.calls('POST', /^\/v1\/orders\/O1$/).at(-1)!.body).request).toEqual({
      action: 'PRINT',
      channel_info: { channel_type: 'INTERNET' },
      print_messages: messages,
    });
    for (const [type, lines] of [
      [partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT, [...messages, 'fourth']],
      [partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT, ['x'.repeat(101)]],
      [partnerV1.OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT, ['a line']],
    ] as const)
      await expect(
        callUnary(connector, 'orderAction', {
          eventId,
          inventoryOrderId: 'O1',
          action: type,
          orderId: 'order-1',
          language: '',
          channelType: '',
          printMessages: [...lines],
          ticketIds: [],
        }),
      ).rejects.toMatchObject({ kind: 'invalid_argument' });
    expect(
      (await action(partnerV1.OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT)).order!.status,
    ).toBe('PARTNER_ORDER_STATUS_CONFIRMED');
    const cancelled = await action(partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL);
    expect(cancelled).toMatchObject({
      queued: false,
      order: { status: 'PARTNER_ORDER_STATUS_CANCELLED', orderId: 'order-1' },
    });
  });

  it('refuses partner URLs on addresses not listed in PARTNER_ALLOWED_HOSTS at registration', async () => {
    // 127.0.0.1 is in this test's PARTNER_ALLOWED_HOSTS (the fake partner); the rest of loopback
    // is not. Only loopback here: should the rule ever break, the registered partner's import must
    // not send anything off this machine (the link-local and private cases, 169.254.169.254 and
    // 10.0.0.1, are in registry.unit.test.ts, whose imports are stubbed, and
    // partner-egress.unit.test.ts, on a dispatcher without network).
    for (const baseUrl of ['http://127.0.0.2:9/v1', 'http://[::1]:9/v1', 'http://localhost:9/v1']) {
      await expect(
        callUnary(admin, 'registerPartner', {
          name: 'Inward',
          baseUrl,
          authUrl: fake.authUrl,
          clientId: fake.clientId,
          clientSecret: fake.clientSecret,
          venues: ['V1'],
        }),
      ).rejects.toMatchObject({
        kind: 'invalid_argument',
        message: expect.stringContaining('base_url must name a public host'),
      });
    }
    expect((await callUnary(admin, 'listPartners', {})).partners).toEqual([]);
  });

  it("keeps a partner's own error text out of the answer", async () => {
    const { eventId } = await registerAndImport();
    fake.on('POST', /^\/bookings$/, {
      status: 410,
      body: { id: 303, message: 'upstream db 10.9.8.7 says: internal-detail-xyz' },
    });
    const refused = await callUnary(connector, 'createBooking', {
      eventId,
      cartId: 'cart-2',
      lines: [
        {
          areaId: 'A1',
          priceLevelId: 'PL1',
          priceTypeId: 'ADULT',
          quantity: 1,
          seatIds: [],
          accessCode: '',
        },
      ],
      language: 'en-us',
      channelType: 'INTERNET',
    }).then(
      () => undefined,
      (error: unknown) => error as { kind: string; message: string },
    );
    expect(refused).toMatchObject({ kind: 'resource_exhausted' });
    expect(refused!.message).toContain('error id 303');
    expect(JSON.stringify(refused)).not.toContain('internal-detail-xyz');
    expect(refused!.message).not.toContain('internal-detail-xyz');
  });

  it('tells which price types a password opens, without ever answering the codes', async () => {
    const { eventId } = await registerAndImport();
    const cart = createGrpcClient(
      partnerV1.ConnectorServiceClient,
      `127.0.0.1:${service.grpcPort}`,
      {
        caller: 'cart',
      },
    );
    // Only cart may ask.
    const reconciler = createGrpcClient(
      partnerV1.ConnectorServiceClient,
      `127.0.0.1:${service.grpcPort}`,
      { caller: 'reconciler' },
    );
    await expect(
      callUnary(reconciler, 'verifyAccessCode', { eventId, code: 'letmein' }),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    reconciler.close();
    expect(await callUnary(cart, 'verifyAccessCode', { eventId, code: 'letmein' })).toEqual({
      priceTypeIds: ['VIP'],
    });
    for (const code of ['LETMEIN', 'letmein ', '', 'nope']) {
      expect(await callUnary(cart, 'verifyAccessCode', { eventId, code })).toEqual({
        priceTypeIds: [],
      });
    }
    await expect(
      callUnary(cart, 'verifyAccessCode', { eventId: 'NOPE', code: 'letmein' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    cart.close();
  });

  it('answers NOT_FOUND for an unknown event and maps partner refusals', async () => {
    const { eventId } = await registerAndImport();
    await expect(
      callUnary(connector, 'getOrder', { eventId: 'unknownunknown1', inventoryOrderId: 'O1' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    fake.on('POST', /^\/bookings$/, { status: 410, body: { id: 303, message: 'sold out' } });
    await expect(
      callUnary(connector, 'createBooking', {
        eventId,
        cartId: 'cart-2',
        lines: [
          {
            areaId: '',
            priceLevelId: '',
            priceTypeId: 'ADULT',
            quantity: 9,
            seatIds: [],
            accessCode: '',
          },
        ],
        language: '',
        channelType: '',
      }),
    ).rejects.toMatchObject({ kind: 'resource_exhausted', details: { partnerErrorId: 303 } });
    fake.on('DELETE', /^\/bookings\/B9$/, { status: 410, body: { id: 312, message: 'expired' } });
    await expect(
      callUnary(connector, 'releaseBooking', { eventId, inventoryToken: 'B9' }),
    ).resolves.toEqual({});
  });

  it('reports a booking without answer on partner-call-failed (outcome unknown) and answers DEADLINE_EXCEEDED', async () => {
    const { partnerId, eventId } = await registerAndImport();
    fake.on('POST', /^\/bookings$/, { status: 200, body: { booking }, delayMs: 2_000 });
    await expect(
      callUnary(
        connector,
        'createBooking',
        {
          eventId,
          cartId: 'cart-slow',
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
          language: '',
          channelType: '',
        },
        { deadlineMs: 5_000 },
      ),
    ).rejects.toMatchObject({ kind: 'deadline_exceeded' });
    const failed = await waitFor(
      () => decodeAll('partner-call-failed', partnerV1.PartnerCallFailed.decode)[0],
    );
    expect(failed).toMatchObject({
      partnerId,
      eventId,
      cartId: 'cart-slow',
      operation: 'PARTNER_OPERATION_CREATE_BOOKING',
      outcomeUnknown: true,
      willRetry: false,
    });
    expect(bus.records('partner-call-failed')[0]!.key).toBe('cart-slow');
  });

  it('queues a cancel the partner cannot take, and delivers it once when it is back', async () => {
    const { eventId } = await registerAndImport();
    let down = true;
    let cancels = 0;
    fake.on('POST', /^\/orders\/O1$/, () => {
      if (down) return { status: 503, body: { id: 2, message: 'maintenance' } };
      cancels += 1;
      return cancels === 1
        ? { status: 200, body: { action: 'CANCEL', order: { ...order, status: 'CANCELLED' } } }
        : { status: 410, body: { id: 315, message: 'already cancelled' } };
    });
    const answer = await callUnary(connector, 'orderAction', {
      eventId,
      inventoryOrderId: 'O1',
      action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
      orderId: 'order-1',
      language: '',
      channelType: '',
      printMessages: [],
      ticketIds: [],
    });
    expect(answer).toEqual({ order: undefined, queued: true });
    // The same cancel from the bus is the same queue entry.
    await bus.publish(orderCancelledTopic, [
      {
        key: 'order-1',
        value: cartV1.OrderCancelled.fromPartial({
          orderId: 'order-1',
          eventId,
          inventoryOrderId: 'O1',
        }),
      },
    ]);
    await waitFor(
      async () =>
        (await callUnary(admin, 'listQueuedCalls', { partnerId: '' })).calls.length === 1 &&
        bus.records('partner-call-failed').length >= 1,
    );
    const failed = decodeAll('partner-call-failed', partnerV1.PartnerCallFailed.decode)[0]!;
    expect(failed).toMatchObject({
      operation: 'PARTNER_OPERATION_CANCEL_ORDER',
      willRetry: true,
      orderId: 'order-1',
    });
    down = false;
    await waitFor(
      async () => (await callUnary(admin, 'listQueuedCalls', { partnerId: '' })).calls.length === 0,
      {
        timeoutMs: 5_000,
        description: 'queued cancel delivered',
      },
    );
    expect(cancels).toBe(1);
  });
});

describe('partial cancels (docs/payments.md "Cancelling some tickets of an order")', () => {
  const cancelCalls = () => fake.calls('POST', /^\/v1\/orders\/O1$/);
  const bodyOf = (call: { body: string }) =>
    (JSON.parse(call.body) as { request: Record<string, unknown> }).request;

  it('OrderAction CANCEL with ticket_ids sends them as the request tickets, at once', async () => {
    const { eventId } = await registerAndImport();
    fake.on('POST', /^\/orders\/O1$/, () => ({
      status: 200,
      body: { action: 'CANCEL', order: { ...order, status: 'CONFIRMED' } },
    }));
    const answer = await callUnary(connector, 'orderAction', {
      eventId,
      inventoryOrderId: 'O1',
      action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
      orderId: 'order-1',
      language: '',
      channelType: '',
      printMessages: [],
      ticketIds: ['T1', 'T3'],
    });
    expect(answer.queued).toBe(false);
    expect(answer.order!.status).toBe('PARTNER_ORDER_STATUS_CONFIRMED');
    expect(cancelCalls()).toHaveLength(1);
    expect(bodyOf(cancelCalls()[0]!)).toEqual({
      action: 'CANCEL',
      channel_info: { channel_type: 'INTERNET' },
      tickets: ['T1', 'T3'],
    });

    // A partner that cancels whole orders only (310) refuses it; nothing is queued.
    fake.on('POST', /^\/orders\/O1$/, {
      status: 410,
      body: { id: 310, message: 'Partial requests are not allowed' },
    });
    await expect(
      callUnary(connector, 'orderAction', {
        eventId,
        inventoryOrderId: 'O1',
        action: partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
        orderId: 'order-1',
        language: '',
        channelType: '',
        printMessages: [],
        ticketIds: ['T1'],
      }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    expect((await callUnary(admin, 'listQueuedCalls', { partnerId: '' })).calls).toEqual([]);
  });

  it('skips a partial order-cancelled, then sends the whole cancel of the last tickets; a 315 is done', async () => {
    const { eventId } = await registerAndImport();
    let answered = 0;
    fake.on('POST', /^\/orders\/O1$/, () => {
      answered += 1;
      // The partner cancelled the order with the partial cancel of its last tickets already.
      return { status: 410, body: { id: 315, message: 'already cancelled' } };
    });
    const record = (over: Partial<cartV1.OrderCancelled>) => ({
      key: 'order-1',
      value: cartV1.OrderCancelled.fromPartial({
        orderId: 'order-1',
        eventId,
        inventoryOrderId: 'O1',
        ...over,
      }),
    });
    // Two partial cancels (the second of the last tickets, not partial), in one partition's order.
    await bus.publish(orderCancelledTopic, [record({ ticketIds: ['T1'], partial: true })]);
    await bus.publish(orderCancelledTopic, [record({ ticketIds: ['T2'], partial: false })]);
    await waitFor(() => cancelCalls().length >= 1, {
      timeoutMs: 5_000,
      description: 'the whole cancel sent to the partner',
    });
    // Longer than the bus's first retry backoff (200 ms): a record that failed would be sent again.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(answered).toBe(1);
    expect(cancelCalls()).toHaveLength(1);
    // A whole cancel: no tickets in the request.
    expect(bodyOf(cancelCalls()[0]!)).toEqual({
      action: 'CANCEL',
      channel_info: { channel_type: 'INTERNET' },
    });
    expect((await callUnary(admin, 'listQueuedCalls', { partnerId: '' })).calls).toEqual([]);
    expect(bus.records('partner-call-failed')).toEqual([]);
    expect(bus.records('order-cancelled.dlq')).toEqual([]);
  });
});
