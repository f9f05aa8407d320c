import { randomBytes } from 'node:crypto';
import { createGrpcClient, callUnary } from '@marquee/platform/grpc';
import { waitFor } from '@marquee/platform/testing';
import { partnerV1 } from '@marquee/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import {
  createPartnerEvent,
  createPartnerVenue,
  partnerOriginOf,
} from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * The partner side, every service its own process on real Kafka and a real Mongo-wire server:
 * partner-reference hosts inventory; the connector imports it into discovery and books, orders,
 * prints and cancels through it; the reconciler repairs a booking whose answer never arrived.
 */
describe.skipIf(!infra)('partner integration (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  let partnerId: string;
  let connector: partnerV1.ConnectorServiceClient;
  let partnerToken: string;
  const marker = `p${randomBytes(4).toString('hex')}`;
  let venueId: string;
  let partnerEventId: string;
  let eventId: string;

  const json = async (response: Response) => {
    const text = await response.text();
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut.adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const backOffice = (method: string, path: string, body?: unknown) =>
    fetch(`${partnerOriginOf(sut)}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut.partnerAdminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const partnerApi = async (path: string) => {
    const response = await fetch(`${sut.partner.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${partnerToken}` },
    });
    return { status: response.status, body: await json(response) };
  };
  const refreshPartnerToken = async () => {
    const response = await fetch(sut.partner.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: sut.partner.clientId,
        client_secret: sut.partner.clientSecret,
      }),
    });
    expect(response.status).toBe(200);
    partnerToken = ((await response.json()) as { access_token: string }).access_token;
  };
  const discovery = async (query: string) => {
    const response = await fetch(
      `${sut.baseUrl}/discovery/v2/events.json?apikey=${apiKey}&${query}`,
    );
    expect(response.status).toBe(200);
    return (await response.json()) as {
      _embedded?: { events: Array<{ id: string; name: string }> };
    };
  };
  const available = async () => {
    const answer = await partnerApi(`/events/${partnerEventId}/availability`);
    return (answer.body.areas as Array<{ available: number }>).reduce(
      (sum, area) => sum + area.available,
      0,
    );
  };
  const book = (cartId: string, quantity = 1) =>
    callUnary(connector, 'createBooking', {
      eventId,
      cartId,
      lines: [
        {
          areaId: '',
          priceLevelId: '',
          priceTypeId: 'ADULT',
          quantity,
          seatIds: [],
          accessCode: '',
        },
      ],
      language: 'en-us',
      channelType: 'INTERNET',
    });
  const order = (booking: partnerV1.CreateBookingResponse, orderId: string) =>
    callUnary(connector, 'createOrder', {
      eventId,
      inventoryToken: booking.inventoryToken,
      orderId,
      ticketsAmount: booking.total,
      ticketsQuantity: booking.tickets.length,
      paymentMethodType: 'CARD',
      deliveryMethodType: 'PH',
      channelType: 'INTERNET',
    });
  const act = (inventoryOrderId: string, action: partnerV1.OrderActionType, orderId: string) =>
    callUnary(connector, 'orderAction', {
      eventId,
      inventoryOrderId,
      action,
      orderId,
      language: 'en-us',
      channelType: 'INTERNET',
      printMessages: [],
      ticketIds: [],
    });

  beforeAll(async () => {
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      serviceEnv: {
        '3p-connector': {
          PARTNER_CALL_TIMEOUT_MS: '1500',
          QUEUE_POLL_MS: '250',
          QUEUE_MAX_BACKOFF_MS: '1000',
          HEALTH_INTERVAL_MS: '1000',
        },
        reconciler: { RECONCILE_GRACE_MS: '1000' },
      },
    });
    const app = await admin('POST', 'apps', {
      name: 'partner e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    apiKey = ((await app.json()) as { apiKey: string }).apiKey;
    // As cart, the service that books and orders at partners.
    connector = createGrpcClient(
      partnerV1.ConnectorServiceClient,
      `127.0.0.1:${sut.services.get('3p-connector')!.grpcPort}`,
      { deadlineMs: 10_000, caller: 'cart' },
    );
    await refreshPartnerToken();

    // The partner's own inventory, made through its back office.
    const venue = await createPartnerVenue(sut, { name: `Hall ${marker}`, capacity: 50 });
    venueId = venue.venueId;
    partnerEventId = await createPartnerEvent(sut, venue, { name: `Partner ${marker} Live` });
  });

  afterAll(async () => {
    connector?.close();
    await sut?.stop();
  });

  it('imports a registered partner into discovery, and a change after the next import', async () => {
    const registered = await admin('POST', 'partners', {
      name: `E2E Partner ${marker}`,
      baseUrl: sut.partner.baseUrl,
      authUrl: sut.partner.tokenUrl,
      clientId: sut.partner.clientId,
      clientSecret: sut.partner.clientSecret,
      venues: [venueId],
    });
    expect(registered.status).toBe(201);
    partnerId = ((await registered.json()) as { id: string }).id;
    const listed = await json(await admin('GET', `partners/${partnerId}`));
    expect(JSON.stringify(listed)).not.toContain(sut.partner.clientSecret);

    const found = await waitFor(
      async () => {
        const body = await discovery(`keyword=${marker}`);
        return body._embedded?.events.length === 1 ? body._embedded.events[0] : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, description: 'the imported event in discovery' },
    );
    expect(found.name).toBe(`Partner ${marker} Live`);
    eventId = found.id;
    expect(eventId).toMatch(/^[A-Za-z0-9]{15}$/);
    const areas = await fetch(
      `${sut.baseUrl}/mfxapi/v2/events/${eventId}/areas?apikey=${apiKey}&domain=spain`,
    );
    expect(areas.status).toBe(200);
    expect(await areas.json()).toMatchObject({
      event: {
        id: eventId,
        currency: 'EUR',
        areas: [
          {
            code: 'PL1',
            price_ranges: { excluding_ticket_fees: { min: 45, max: 45 } },
          },
        ],
      },
    });

    const changed = await backOffice('PATCH', `events/${partnerEventId}`, {
      text_infos: [{ lang: 'en-us', name: `Partner ${marker} Encore`, description: 'e2e' }],
    });
    expect(changed.status).toBe(200);
    expect((await admin('POST', `partners/${partnerId}/imports`, {})).status).toBe(202);
    await waitFor(
      async () => {
        const body = await discovery(`keyword=${marker}`);
        return body._embedded?.events[0]?.name === `Partner ${marker} Encore` ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, description: 'the changed name in discovery' },
    );
  });

  it('books, orders, prints, rolls back and cancels through the connector', async () => {
    const before = await available();
    const booking = await book(`cart-${marker}-1`, 2);
    expect(booking.inventoryToken).not.toBe('');
    expect(booking.tickets).toHaveLength(2);
    expect(await available()).toBe(before - 2);
    const confirmed = await order(booking, `order-${marker}-1`);
    expect(confirmed.inventoryOrderId).not.toBe('');
    const id = confirmed.inventoryOrderId;
    const printed = await act(id, partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT, 'o1');
    expect(printed.order?.status).toBe(partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_PRINTED);
    const rolledBack = await act(
      id,
      partnerV1.OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT,
      'o1',
    );
    expect(rolledBack.order?.status).toBe(
      partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CONFIRMED,
    );
    const cancelled = await act(id, partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL, 'o1');
    expect(cancelled.queued).toBe(false);
    expect(cancelled.order?.status).toBe(
      partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CANCELLED,
    );
    expect(await available()).toBe(before);
    const read = await callUnary(connector, 'getOrder', { eventId, inventoryOrderId: id });
    expect(read.order?.status).toBe(partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CANCELLED);
  });

  it('queues a cancel while the partner is down and delivers it once when it is back', async () => {
    const booking = await book(`cart-${marker}-2`);
    const confirmed = await order(booking, `order-${marker}-2`);
    await sut.stopService('partner-reference');
    try {
      const sutCancel = await act(
        confirmed.inventoryOrderId,
        partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL,
        `order-${marker}-2`,
      );
      expect(sutCancel.queued).toBe(true);
      const queued = await json(await admin('GET', 'partners/queued-calls'));
      expect(JSON.stringify(queued)).toContain(confirmed.inventoryOrderId);
    } finally {
      await sut.startService('partner-reference');
    }
    await refreshPartnerToken();
    await waitFor(
      async () => {
        const answer = await partnerApi(`/orders/${confirmed.inventoryOrderId}`);
        const order = answer.body.order as { status?: string } | undefined;
        return order?.status === 'CANCELLED' ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, description: 'the queued cancel at the partner' },
    );
    await waitFor(
      async () => {
        const queued = (await json(await admin('GET', 'partners/queued-calls'))) as {
          calls?: unknown[];
        };
        return (queued.calls ?? []).length === 0 ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, description: 'an empty retry queue' },
    );
    // A second delivery would be refused with 315 and leave no trace here; the connector's own suite
    // against a counting partner (services/3p-connector/test) proves the cancel is sent once.
  });

  it('releases, through the reconciler, a booking whose answer timed out', async () => {
    const before = await available();
    expect(
      (await backOffice('PUT', 'drills', { delay_ms: 4_000, operations: ['POST /bookings'] }))
        .status,
    ).toBe(200);
    const cartId = `cart-${marker}-lost`;
    try {
      await expect(book(cartId)).rejects.toMatchObject({
        kind: expect.stringMatching(/unavailable|deadline_exceeded/),
      });
    } finally {
      expect((await backOffice('PUT', 'drills', {})).status).toBe(200);
    }
    // The partner did hold the seat: the platform never learnt its token.
    await waitFor(async () => ((await available()) === before - 1 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 200,
      description: 'the orphan hold at the partner',
    });
    const resolved = await waitFor(
      async () => {
        const cases = (await json(await admin('GET', 'reconciliation/cases'))) as {
          cases?: Array<{ cartId?: string; outcome?: string }>;
        };
        const found = (cases.cases ?? []).find((entry) => entry.cartId === cartId);
        return found && /RELEASED/.test(found.outcome ?? '') ? found : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 500, description: 'the reconciliation case' },
    );
    expect(resolved.outcome).toMatch(/BOOKING_RELEASED/);
    expect(await available()).toBe(before);
  });
});
