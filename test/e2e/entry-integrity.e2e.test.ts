import { randomBytes } from 'node:crypto';
import { startGroupsAtEnd, waitFor } from '@marquee/platform/testing';
import {
  eventChangedTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  ticketScannedTopic,
} from '@marquee/proto/topics';
import { decodeToken, payloadAt } from '@marquee/render-kit/format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller, pacedPartnerCaller, readJson, type Json } from '../support/calls.js';
import { requireInfra } from '../support/infra.js';
import { grantPartnerDistribution, importPartnerEvent } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';
import { approvedCard } from '../support/cards.js';

const infra = requireInfra();

/** A partner call's body and headers, and the key of the app calling (the selling app's by default). */
type CallOptions = { body?: unknown; headers?: Record<string, string>; apiKey?: string };

const PRODUCTION = '/partners/v1';
const PREPROD = '/partners-preprod/v1';

/**
 * What a sale must guarantee at the gates, end to end (every service its own process, real Kafka
 * and a real Mongo-wire server): a pre-production ticket is never admitted by a gate of the real
 * event; an admitted ticket cannot be listed for resale, and an admission withdraws a live listing;
 * an order is read only by the app that sold it, and another app's read binds no device.
 */
describe.skipIf(!infra)('sale integrity at the gates (distributed mode)', () => {
  let sut: Stack;
  let sellingKey: string;
  let otherKey: string;
  let eventId: string;
  const marker = `si${randomBytes(4).toString('hex')}`;

  const json = readJson;
  const admin = adminCaller(() => sut);
  const paced = pacedPartnerCaller(
    () => sut,
    () => sellingKey,
  );
  /** A paced call with the selling app's key, or `options.apiKey`; both apps share the pacing. */
  const call = (method: string, url: string, options: CallOptions = {}) => {
    const { apiKey, ...rest } = options;
    const headers = apiKey === undefined ? rest.headers : { 'x-api-key': apiKey, ...rest.headers };
    return paced(method, url, { ...rest, headers });
  };

  /** Reserve, e-ticket delivery, pay, commit through `prefix` with the selling app's key. */
  async function buy(prefix: string, quantity: number, account: string, label: string) {
    const reserved = await call('POST', `${prefix}/events/${eventId}/cart`, {
      body: { reserve: { tickets: [{ id: 'ADULT', quantity }] } },
      headers: { 'idempotency-key': `${marker}-${label}-reserve` },
    });
    let cart = await json(reserved);
    if (reserved.status === 202) {
      cart = await waitFor(
        async () => {
          const polled = await call('GET', cart.polling_url as string);
          return polled.status === 200 ? json(polled) : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
      );
    } else {
      expect(reserved.status, JSON.stringify(cart)).toBe(200);
    }
    const cartId = cart.cart_id as string;
    const options = await call(
      'GET',
      `${prefix}/events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect(options.status).toBe(200);
    const shipping = (await json(options)).shipping_options as Json[];
    const shipped = await call('PUT', `${prefix}/events/${eventId}/cart/shipping`, {
      body: { cart_id: cartId, shipping_id: shipping[0]!.id },
    });
    expect(shipped.status).toBe(200);
    const unpaid = (await json(shipped)).cart.totals.unpaid as number;
    const paid = await call('PUT', `${prefix}/events/${eventId}/cart/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: unpaid.toFixed(2),
          currency: 'EUR',
          card: { number: approvedCard(prefix), cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: `${account}@example.com`,
          third_party_account_id: account,
        },
      },
    });
    expect(paid.status).toBe(200);
    const committed = await call('PUT', `${prefix}/events/${eventId}/cart`, {
      body: { cart_id: cartId },
      headers: { 'idempotency-key': `${marker}-${label}-commit` },
    });
    const order = await json(committed);
    expect(committed.status, JSON.stringify(order)).toBe(200);
    return order as { order_id: string; order_token: string };
  }

  const readOrder = (
    prefix: string,
    orderToken: string,
    account: string,
    deviceId: string,
    apiKey = sellingKey,
  ) =>
    call('POST', `${prefix}/orders?order_token=${encodeURIComponent(orderToken)}`, {
      apiKey,
      body: {
        device_id: deviceId,
        device_type: 'native',
        device_os: 'ios',
        third_party_account_id: account,
      },
    });

  /** Reads the order once secure-entry has issued its tickets (it learns them from Kafka). */
  const readWhenIssued = (prefix: string, orderToken: string, account: string, deviceId: string) =>
    waitFor(
      async () => {
        const answer = await readOrder(prefix, orderToken, account, deviceId);
        const body = await json(answer);
        if (answer.status === 404 && body.error?.code === '90010') return undefined;
        expect(answer.status, JSON.stringify(body)).toBe(200);
        return body;
      },
      { timeoutMs: 60_000, intervalMs: 300, description: 'the tickets issued by secure-entry' },
    );

  const newGate = async (name: string) => {
    const created = await admin('POST', 'gates', { name, eventId });
    expect(created.status).toBe(201);
    return (await json(created)).token as string;
  };

  const scan = async (gateToken: string, payload: string) => {
    const answer = await fetch(`${sut.baseUrl}/gate/v1/scans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payload }),
    });
    const body = await json(answer);
    expect(answer.status, JSON.stringify(body)).toBe(200);
    return body as { admit: boolean; result: string; ticket: Json | null };
  };

  const payloadOf = (token: string) => payloadAt(decodeToken(token), Date.now());

  const renderBody = (ticket: Json, deviceId: string) => ({
    deviceId,
    deviceType: 'NATIVE',
    deviceOs: 'IOS',
    userAgent: 'e2e',
    tickets: [
      {
        eventId: ticket.event_id,
        section: ticket.section,
        row: ticket.row,
        seat: ticket.seat_name,
        barcode: ticket.barcode_id,
      },
    ],
  });

  beforeAll(async () => {
    // The consumers start at the end of their topics: the local broker keeps every earlier run's
    // records, which a fresh database would replay first; this test needs only its own.
    const dbPrefix = `e2e${randomBytes(4).toString('hex')}`;
    const entryGroup = `secure-entry.${marker}`;
    await startGroupsAtEnd(infra!.kafkaBrokers, [
      { groupId: entryGroup, topic: orderConfirmedTopic.name },
      { groupId: entryGroup, topic: orderCancelledTopic.name },
      { groupId: `${entryGroup}.events`, topic: eventChangedTopic.name },
      // cart's group of ticket-scanned: `<service>.<database>.ticket-scanned`.
      { groupId: `cart.${dbPrefix}_cart.ticket-scanned`, topic: ticketScannedTopic.name },
    ]);
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      dbPrefix,
      serviceEnv: { 'secure-entry': { CONSUMER_GROUP: entryGroup } },
    });
    const app = async (name: string) => {
      const created = await admin('POST', 'apps', {
        name,
        redirectUris: ['https://e2e.example/cb'],
      });
      expect(created.status).toBe(201);
      const body = await json(created);
      // Both apps are distributors: the other app's refusals below are the order's, not 403s.
      await grantPartnerDistribution(sut, body.appId as string);
      return body.apiKey as string;
    };
    sellingKey = await app('selling app');
    otherKey = await app('another app');
    ({ eventId } = await importPartnerEvent(sut, {
      apiKey: sellingKey,
      marker,
      secureEntry: true,
    }));
    paced.answered();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('never admits a pre-production ticket at a gate of the real event', async () => {
    const fan = `sandbox-${marker}`;
    const order = await buy(PREPROD, 1, fan, 'sandbox');
    const read = await readWhenIssued(PREPROD, order.order_token, fan, 'sandbox-phone');
    const [ticket] = read.tickets as Json[];
    expect(ticket!.event_id).toBe(eventId);
    const gate = await newGate(`Sandbox gate ${marker}`);
    expect(await scan(gate, payloadOf(ticket!.secure_entry_data.token))).toMatchObject({
      admit: false,
      result: 'SANDBOX',
    });
    // Nor the token of the staging render.
    const rendered = await call('POST', '/marketplace-staging/v1/securerender', {
      headers: { 'x-user-id': fan },
      body: renderBody(ticket!, 'sandbox-phone'),
    });
    const renderedBody = await json(rendered);
    expect(rendered.status, JSON.stringify(renderedBody)).toBe(200);
    expect(await scan(gate, payloadOf(renderedBody.tickets[0].token))).toMatchObject({
      admit: false,
      result: 'SANDBOX',
    });
  }, 240_000);

  it('refuses to list an admitted ticket (409), and an admission withdraws a live listing', async () => {
    const fan = `seller-${marker}`;
    const order = await buy(PRODUCTION, 2, fan, 'resale');
    const read = await readWhenIssued(PRODUCTION, order.order_token, fan, 'seller-phone');
    const [first, second] = read.tickets as Json[];
    const list = (ticketId: string) =>
      admin('POST', 'resale-listings', {
        orderId: order.order_id,
        ticketIds: [ticketId],
        price: { amount: 6000, currency: 'EUR' },
        sellerNotes: 'e2e',
      });
    // The second ticket is listed before any gate sees it.
    const listed = await list(second!.seat_id as string);
    const listing = await json(listed);
    expect(listed.status, JSON.stringify(listing)).toBe(201);

    const gate = await newGate(`Resale gate ${marker}`);
    expect(await scan(gate, payloadOf(first!.secure_entry_data.token))).toMatchObject({
      admit: true,
      result: 'ADMITTED',
    });
    const refused = await list(first!.seat_id as string);
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({
      error: { code: 'ticket_admitted', message: expect.stringContaining(first!.seat_id) },
    });

    expect(await scan(gate, payloadOf(second!.secure_entry_data.token))).toMatchObject({
      admit: true,
      result: 'ADMITTED',
    });
    await waitFor(
      async () => {
        const state = (await json(await admin('GET', `resale-listings/${listing.id}`))).state;
        return state === 'WITHDRAWN' ? state : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, description: 'the listing withdrawn on admission' },
    );
  }, 240_000);

  it("answers an order read with another app's key as unknown, binding no device", async () => {
    const fan = `owner-${marker}`;
    const order = await buy(PRODUCTION, 1, fan, 'owner');
    // Wait until secure-entry knows the order, with a read that binds nothing (another device is
    // refused only once one is bound): the selling app's read of it comes last.
    await waitFor(
      async () => {
        const probe = await readOrder(PRODUCTION, order.order_token, 'nobody', 'probe', sellingKey);
        return probe.status === 403 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300, description: 'the order known to secure-entry' },
    );
    const foreign = await readOrder(
      PRODUCTION,
      order.order_token,
      fan,
      'other-app-phone',
      otherKey,
    );
    expect(foreign.status).toBe(404);
    const foreignBody = await json(foreign);
    expect(foreignBody.error).toMatchObject({ code: '90010', http_code: 404 });
    expect(JSON.stringify(foreignBody)).not.toContain(`${fan}@example.com`);

    // The selling app's device is the first one bound: the foreign read bound nothing.
    const own = await readOrder(PRODUCTION, order.order_token, fan, 'owner-phone');
    const ownBody = await json(own);
    expect(own.status, JSON.stringify(ownBody)).toBe(200);
    expect(ownBody.device_id).toBe('owner-phone');

    // Secure render answers the other app as for an unknown ticket.
    const [ticket] = ownBody.tickets as Json[];
    const rendered = await call('POST', '/marketplace/v1/securerender', {
      apiKey: otherKey,
      headers: { 'x-user-id': fan },
      body: renderBody(ticket!, 'owner-phone'),
    });
    expect(rendered.status).toBe(400);
    const renderedTicket = (await json(rendered)).tickets[0];
    expect(renderedTicket.error).toEqual({ code: 404, error: 'ticket.not.found' });
    expect(renderedTicket.token ?? '').toBe('');
  }, 240_000);
});
