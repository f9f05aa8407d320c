import { randomBytes } from 'node:crypto';
import { createKafkaBus, type EventBus, type IncomingEvent } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { startGroupsAtEnd, waitFor } from '@marquee/platform/testing';
import { entryV1 } from '@marquee/proto';
import {
  availabilityChangedTopic,
  eventChangedTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  ticketScannedTopic,
} from '@marquee/proto/topics';
import { decodeToken, payloadAt, timeStep } from '@marquee/render-kit/format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller, pacedPartnerCaller, readJson, type Json } from '../support/calls.js';
import { requireInfra } from '../support/infra.js';
import { importPartnerEvent, grantPartnerDistribution } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';
import { approvedCard } from '../support/cards.js';

const infra = requireInfra();

const { ScanResult } = entryV1;

/**
 * Secure entry end to end, every service its own process on real Kafka and a real Mongo-wire
 * server: a partner event with secure entry is imported from partner-reference and bought through
 * the edge's partner cart; the buyer's app reads the order with its order token, turns each token
 * into the rotating payload with the render kit's own code, and a gate scans it through the gate
 * API. A ticket admits once; a cancelled order's tickets and a resold ticket of its previous owner
 * are refused; every scan reaches Kafka on `ticket-scanned`.
 */
describe.skipIf(!infra)('secure entry (distributed mode)', () => {
  let sut: Stack;
  let apiKey: string;
  let eventId: string;
  let bus: EventBus;
  const scanned: IncomingEvent<entryV1.TicketScanned>[] = [];
  const marker = `se${randomBytes(4).toString('hex')}`;

  const json = readJson;
  const admin = adminCaller(() => sut);
  const partner = pacedPartnerCaller(
    () => sut,
    () => apiKey,
  );

  /** Reserve (a ticket type or a resale listing), e-ticket delivery, pay, commit. */
  async function buy(ticketId: string, quantity: number, account: string, label: string) {
    const reserved = await partner('POST', `events/${eventId}/cart`, {
      body: { reserve: { tickets: [{ id: ticketId, quantity }] } },
      headers: { 'idempotency-key': `${marker}-${label}-reserve` },
    });
    let cart = await json(reserved);
    if (reserved.status === 202) {
      cart = await waitFor(
        async () => {
          const polled = await partner('GET', cart.polling_url as string);
          return polled.status === 200 ? json(polled) : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
      );
    } else {
      expect(reserved.status, JSON.stringify(cart)).toBe(200);
    }
    const cartId = cart.cart_id as string;
    const options = await partner(
      'GET',
      `events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
    );
    expect(options.status).toBe(200);
    const shipping = (await json(options)).shipping_options as Json[];
    // A secure-entry event is delivered to the fan's app only.
    expect(shipping).toHaveLength(1);
    const shipped = await partner('PUT', `events/${eventId}/cart/shipping`, {
      body: { cart_id: cartId, shipping_id: shipping[0]!.id },
    });
    expect(shipped.status).toBe(200);
    const unpaid = (await json(shipped)).cart.totals.unpaid as number;
    const paid = await partner('PUT', `events/${eventId}/cart/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: unpaid.toFixed(2),
          currency: 'EUR',
          card: {
            number: approvedCard('/partners/v1'),
            cin: '123',
            expire_month: 12,
            expire_year: 2031,
          },
          email_address: `${account}@example.com`,
          third_party_account_id: account,
        },
      },
    });
    expect(paid.status).toBe(200);
    const committed = await partner('PUT', `events/${eventId}/cart`, {
      body: { cart_id: cartId },
      headers: { 'idempotency-key': `${marker}-${label}-commit` },
    });
    const order = await json(committed);
    expect(committed.status, JSON.stringify(order)).toBe(200);
    expect(order.order_token).toEqual(expect.any(String));
    return order as { order_id: string; order_token: string };
  }

  /** The secure-entry order read of the partner cart API (binds the device on first read). */
  const readOrder = (orderToken: string, account: string, deviceId: string) =>
    partner('POST', `orders?order_token=${encodeURIComponent(orderToken)}`, {
      body: {
        device_id: deviceId,
        device_type: 'native',
        device_os: 'ios',
        third_party_account_id: account,
      },
    });

  /** Reads the order once secure-entry has issued its tickets (it learns them from Kafka). */
  const readWhenIssued = (orderToken: string, account: string, deviceId: string) =>
    waitFor(
      async () => {
        const answer = await readOrder(orderToken, account, deviceId);
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
    const body = await json(created);
    expect(body.gate).toMatchObject({ name, eventId });
    return body.token as string;
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

  /** The payload a phone would show now for a ticket of an order read. */
  const payloadOf = (ticket: Json) =>
    payloadAt(decodeToken(ticket.secure_entry_data.token), Date.now());

  beforeAll(async () => {
    // cart's event projection and secure-entry's consumers start at the end of their topics: the
    // local broker keeps every earlier run's events, which a fresh database would replay first
    // (minutes on a busy Mongo-wire server); this test needs only the records it causes itself.
    const cartGroup = `cart.${marker}`;
    const entryGroup = `secure-entry.${marker}`;
    await startGroupsAtEnd(infra!.kafkaBrokers, [
      { groupId: cartGroup, topic: eventChangedTopic.name },
      { groupId: `${cartGroup}.availability`, topic: availabilityChangedTopic.name },
      { groupId: entryGroup, topic: orderConfirmedTopic.name },
      { groupId: entryGroup, topic: orderCancelledTopic.name },
      { groupId: `${entryGroup}.events`, topic: eventChangedTopic.name },
    ]);
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      serviceEnv: {
        cart: { EVENT_CONSUMER_GROUP: cartGroup },
        'secure-entry': { CONSUMER_GROUP: entryGroup },
      },
    });
    bus = createKafkaBus({
      brokers: infra!.kafkaBrokers.split(','),
      clientId: 'e2e-secure-entry',
      source: 'marquee/e2e',
      logger: createLogger({ service: 'e2e', level: 'warn' }),
    });
    await bus.subscribe(
      ticketScannedTopic,
      { group: `e2e-secure-entry-${marker}`, fromBeginning: true },
      async (event) => {
        scanned.push(event);
      },
    );
    await bus.start();

    const app = await admin('POST', 'apps', {
      name: 'secure entry e2e',
      redirectUris: ['https://e2e.example/cb'],
    });
    expect(app.status).toBe(201);
    const created1 = await json(app);
    apiKey = created1.apiKey as string;
    await grantPartnerDistribution(sut, created1.appId as string);

    ({ eventId } = await importPartnerEvent(sut, { apiKey, marker, secureEntry: true }));
    // The import's last calls count against the app's quota too.
    partner.answered();
  });

  afterAll(async () => {
    await bus?.close();
    await sut?.stop();
  });

  /** The `ticket-scanned` results of a ticket seen on Kafka so far. */
  const resultsOn = (ticketId: string) =>
    scanned.filter((e) => e.key === ticketId).map((e) => e.value!.result);

  it('buys, reads the order, admits a ticket once at the gate, refuses it after the cancel', async () => {
    const fan = `fan-${marker}`;
    const order = await buy('ADULT', 2, fan, 'primary');
    const read = await readWhenIssued(order.order_token, fan, 'fan-phone');
    expect(read).toMatchObject({
      voided: false,
      third_party_account_id: fan,
      device_id: 'fan-phone',
    });
    expect(read.tickets).toHaveLength(2);
    for (const ticket of read.tickets as Json[]) {
      expect(ticket).toMatchObject({
        event_id: eventId,
        is_ga: true,
        voided: false,
        secure_entry_data: {
          render_type: 'rotating_symbology',
          segment_type: 'ROTATING_SYMBOLOGY',
        },
      });
      const token = decodeToken(ticket.secure_entry_data.token);
      expect(token.barcode).toBe(ticket.barcode_id);
      expect(token.eventId).toBe(eventId);
      expect(ticket.display_id).toBe(
        `${'X'.repeat(token.barcode.length - 4)}${token.barcode.slice(-4)}`,
      );
    }
    // The order is bound to the device that read it first.
    const otherDevice = await readOrder(order.order_token, fan, 'another-phone');
    expect(otherDevice.status).toBe(403);
    expect((await json(otherDevice)).error.code).toBe('90012');

    const gate = await newGate(`North ${marker}`);
    const [first, second] = read.tickets as Json[];
    const payload = payloadOf(first!);
    expect(payload).toMatch(/^MQ1:[A-Za-z0-9_-]+:\d{6}:\d{6}:\d+$/);
    const admitted = await scan(gate, payload);
    expect(admitted).toMatchObject({ admit: true, result: 'ADMITTED', ticket: { row: 'GA' } });
    const ticketId = admitted.ticket!.id as string;
    expect(admitted.ticket!.displayId).toBe(first!.display_id);
    // The same payload again (a screenshot shown twice) is refused.
    expect(await scan(gate, payload)).toMatchObject({ admit: false, result: 'REPLAYED' });
    // The payload of the next time step (within the gate's tolerance) is another payload of an
    // admitted ticket: refused too.
    const token = decodeToken(first!.secure_entry_data.token);
    const next = payloadAt(token, (timeStep(Date.now()) + 1) * 15_000);
    expect(next).not.toBe(payload);
    expect(await scan(gate, next)).toMatchObject({ admit: false, result: 'ALREADY_ADMITTED' });
    // A sealed part changed by one character fails its tag: never admits.
    const middle = Math.floor(token.fixed.length / 2);
    const tampered = `${token.fixed.slice(0, middle)}${token.fixed[middle] === 'A' ? 'B' : 'A'}${token.fixed.slice(middle + 1)}`;
    const forged = payloadAt({ ...token, fixed: tampered }, Date.now());
    expect(await scan(gate, forged)).toMatchObject({ admit: false, result: 'FORGED' });

    // Cancelled through the admin API: the order's tickets stop admitting.
    const cancelled = await admin('POST', `orders/${encodeURIComponent(order.order_id)}/cancel`, {
      reason: 'REQUESTED',
      detail: 'e2e',
    });
    expect(cancelled.status).toBe(200);
    await waitFor(
      async () =>
        (await json(await readOrder(order.order_token, fan, 'fan-phone'))).voided
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 300, description: 'the order voided by secure-entry' },
    );
    const afterCancel = await json(await readOrder(order.order_token, fan, 'fan-phone'));
    expect(afterCancel.tickets.map((t: Json) => t.voided)).toEqual([true, true]);
    expect(afterCancel.tickets[1].secure_entry_data).toMatchObject({
      token: '',
      error: { code: 410, message: 'ticket.voided' },
    });
    const refused = await scan(gate, payloadOf(second!));
    expect(refused).toMatchObject({ admit: false, result: 'VOIDED' });
    expect(await scan(gate, payloadOf(first!))).toMatchObject({ admit: false, result: 'VOIDED' });

    // Every scan reached Kafka on ticket-scanned, keyed by the ticket, without the payload.
    await waitFor(() => (resultsOn(ticketId).length >= 4 ? true : undefined), {
      timeoutMs: 30_000,
      description: 'the scans on ticket-scanned',
    });
    expect(resultsOn(ticketId)).toEqual(
      expect.arrayContaining([
        ScanResult.SCAN_RESULT_ADMITTED,
        ScanResult.SCAN_RESULT_REPLAYED,
        ScanResult.SCAN_RESULT_VOIDED,
      ]),
    );
    expect(resultsOn(ticketId).filter((r) => r === ScanResult.SCAN_RESULT_ADMITTED)).toHaveLength(
      1,
    );
    const ofTicket = scanned.find((e) => e.key === ticketId)!.value!;
    expect(ofTicket).toMatchObject({ ticketId, orderId: order.order_id, eventId });
    expect(JSON.stringify(scanned.map((e) => e.value))).not.toContain(payload.split(':')[1]);
  }, 240_000);

  it('after a resale admits only the new owner’s ticket', async () => {
    const seller = `seller-${marker}`;
    const buyer = `buyer-${marker}`;
    const sold = await buy('ADULT', 1, seller, 'seller');
    const sellerRead = await readWhenIssued(sold.order_token, seller, 'seller-phone');
    const sellerTicket = (sellerRead.tickets as Json[])[0]!;

    // The seller lists the ticket (admin API, as `marquee resale create` does); a second fan buys it.
    const platformOrder = await json(
      await admin('GET', `orders/${encodeURIComponent(sold.order_id)}`),
    );
    expect(platformOrder.order.status).toBe('CONFIRMED');
    const partnerTicketIds = (platformOrder.tickets as Json[]).map((t) => t.ticketId as string);
    expect(partnerTicketIds).toEqual([sellerTicket.seat_id]);
    const listed = await admin('POST', 'resale-listings', {
      orderId: sold.order_id,
      ticketIds: partnerTicketIds,
      price: { amount: 6000, currency: 'EUR' },
      sellerNotes: 'e2e',
    });
    const listing = await json(listed);
    expect(listed.status, JSON.stringify(listing)).toBe(201);
    const bought = await buy(listing.id as string, 1, buyer, 'resale');
    expect((await json(await admin('GET', `resale-listings/${listing.id}`))).state).toBe('SOLD');

    const buyerRead = await readWhenIssued(bought.order_token, buyer, 'buyer-phone');
    const buyerTicket = (buyerRead.tickets as Json[])[0]!;
    expect(buyerTicket.seat_id).toBe(sellerTicket.seat_id);
    expect(buyerTicket.barcode_id).not.toBe(sellerTicket.barcode_id);
    // secure-entry voids the seller's ticket when it sees the resale order.
    await waitFor(
      async () => {
        const again = await json(await readOrder(sold.order_token, seller, 'seller-phone'));
        return again.tickets?.[0]?.voided === true ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300, description: "the seller's ticket voided" },
    );

    const gate = await newGate(`South ${marker}`);
    expect(await scan(gate, payloadOf(sellerTicket))).toMatchObject({
      admit: false,
      result: 'VOIDED',
    });
    const admitted = await scan(gate, payloadOf(buyerTicket));
    expect(admitted).toMatchObject({ admit: true, result: 'ADMITTED' });
    expect(admitted.ticket!.displayId).toBe(buyerTicket.display_id);
    // The buyer's token belongs to the buyer's device and account: the seller cannot read it.
    const foreign = await readOrder(bought.order_token, seller, 'seller-phone');
    expect(foreign.status).toBe(403);
    expect((await json(foreign)).error.code).toBe('90011');
  }, 240_000);
});
