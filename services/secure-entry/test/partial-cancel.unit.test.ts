import { DEVELOPMENT_CONTACT_KEYS } from '@marquee/proto/order-contact';
import type { IncomingEvent } from '@marquee/platform/bus';
import { OrderCancelled } from '@marquee/proto/cart/v1';
import { decodeToken, payloadAt } from '@marquee/render-kit/format';
import { describe, expect, it } from 'vitest';
import { orderCancelledHandler, toConfirmedOrder } from '../src/ports/kafka/handlers.js';
import type { Ticket } from '../src/domain/model.js';
import { confirmedOrder, device, EVENT_ID, harness, type Harness } from './support/fixtures.js';

/**
 * A partial `order-cancelled` (cart's CancelOrder with ticket ids, docs/payments.md "Cancelling
 * some tickets of an order") reaches secure-entry through its Kafka handler: only the listed
 * partner tickets' entry tickets are voided, the others still render and pass a gate, and the
 * cancel of the last tickets voids the rest.
 */

let offset = 0;
function cancelledRecord(
  orderId: string,
  over: Partial<OrderCancelled> = {},
): IncomingEvent<OrderCancelled> {
  offset += 1;
  const at = new Date('2026-05-01T12:00:00Z');
  return {
    topic: 'order-cancelled',
    key: orderId,
    value: OrderCancelled.fromPartial({
      orderId,
      eventId: EVENT_ID,
      partnerId: 'prt-1',
      inventoryOrderId: `P-${orderId}`,
      cancelledAt: at,
      ...over,
    }),
    id: `rec-${offset}`,
    type: 'marquee.cart.v1.OrderCancelled',
    source: 'cart',
    time: at,
    partition: 0,
    offset: String(offset),
    attempt: 1,
    headers: {},
  };
}

/** A confirmed secure-entry order of three seats; the buyer's view of its tickets, and a gate. */
async function threeTickets(h: Harness) {
  const { message, orderToken } = confirmedOrder({ seats: ['7', '8', '9'] });
  await h.entry.confirm(toConfirmedOrder(message, DEVELOPMENT_CONTACT_KEYS));
  const view = await h.entry.getOrder({
    orderToken,
    appId: 'app-1',
    device,
    thirdPartyAccountId: 'user-42',
    sandbox: false,
  });
  const gate = (await h.entry.createGate({ name: 'North 1', eventId: EVENT_ID })).token;
  const tickets = await h.storage.tickets.listByOrder(message.orderId);
  expect(tickets).toHaveLength(3);
  /** The buyer's rotating token of an entry ticket (by its barcode). */
  const tokenOf = (ticket: Ticket) => {
    const t = view.tickets.find((v) => v.ticket.barcode === ticket.barcode);
    if (!t) throw new Error(`no view of ${ticket.barcode}`);
    return decodeToken(t.token);
  };
  return { message, orderToken, gate, tickets, tokenOf };
}

/** Records each ticket write that queues a `ticket-voided` (its ticket ids). */
function recordVoids(h: Harness) {
  const voided: string[][] = [];
  const tickets = h.storage.tickets.update.bind(h.storage.tickets);
  h.storage.tickets.update = (ticket, v) => {
    if (v) voided.push([ticket.id]);
    return tickets(ticket, v);
  };
  const orders = h.storage.orders.update.bind(h.storage.orders);
  h.storage.orders.update = (order, v) => {
    if (v && v.ticketIds.length > 0) voided.push([...v.ticketIds]);
    return orders(order, v);
  };
  return voided;
}

const render = (h: Harness, ticket: Ticket) =>
  h.entry
    .secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device,
      sandbox: false,
      tickets: [
        {
          eventId: ticket.eventId,
          section: ticket.section,
          row: ticket.row,
          seat: ticket.seat,
          barcode: ticket.barcode,
        },
      ],
    })
    .then((r) => r[0]!);

describe('a partial order-cancelled', () => {
  it('voids only the listed tickets; the others still render and pass a gate', async () => {
    const h = harness();
    const { message, gate, tickets, tokenOf } = await threeTickets(h);
    const voided = recordVoids(h);
    const handle = orderCancelledHandler({ entry: h.entry });
    const [cancelled, kept1, kept2] = tickets as [Ticket, Ticket, Ticket];

    await handle(
      cancelledRecord(message.orderId, {
        ticketIds: [cancelled.partnerTicketId],
        partial: true,
      }),
    );

    const after = new Map(
      (await h.storage.tickets.listByOrder(message.orderId)).map((t) => [t.id, t]),
    );
    expect(after.get(cancelled.id)).toMatchObject({
      status: 'voided',
      voidReason: 'ORDER_CANCELLED',
    });
    expect(after.get(kept1.id)!.status).not.toBe('voided');
    expect(after.get(kept2.id)!.status).not.toBe('voided');
    // The order itself is still live, and one `ticket-voided` names the cancelled ticket only.
    expect((await h.storage.orders.get(message.orderId))!.voided).toBe(false);
    expect(voided).toEqual([[cancelled.id]]);

    // Secure render: the cancelled ticket is refused, a remaining one is served.
    expect((await render(h, cancelled)).refusal).toEqual({ code: 410, error: 'ticket.voided' });
    const kept = await render(h, kept1);
    expect(kept.refusal).toBeUndefined();
    expect(decodeToken(kept.token).barcode).toBe(kept1.barcode);

    // Gate: the cancelled ticket is refused, a remaining one admitted.
    const now = h.clock.now.getTime();
    expect((await h.entry.validateScan(gate, payloadAt(tokenOf(cancelled), now))).result).toBe(
      'VOIDED',
    );
    expect((await h.entry.validateScan(gate, payloadAt(tokenOf(kept1), now))).result).toBe(
      'ADMITTED',
    );

    // A redelivery of the same record changes nothing: no new write, no new `ticket-voided`.
    const before = await h.storage.tickets.listByOrder(message.orderId);
    await handle(
      cancelledRecord(message.orderId, {
        ticketIds: [cancelled.partnerTicketId],
        partial: true,
      }),
    );
    expect(await h.storage.tickets.listByOrder(message.orderId)).toEqual(before);
    expect(voided).toEqual([[cancelled.id]]);
    expect((await h.storage.orders.get(message.orderId))!.voided).toBe(false);
  });

  it('then the cancel of the last tickets voids the rest and the order; a replay is a no-op', async () => {
    const h = harness();
    const { message, gate, tickets, tokenOf } = await threeTickets(h);
    const voided = recordVoids(h);
    const handle = orderCancelledHandler({ entry: h.entry });
    const [first, second, third] = tickets as [Ticket, Ticket, Ticket];
    await handle(
      cancelledRecord(message.orderId, { ticketIds: [first.partnerTicketId], partial: true }),
    );
    // The record of the last tickets: `ticket_ids` set, `partial` false (the order is cancelled).
    const last = cancelledRecord(message.orderId, {
      ticketIds: [second.partnerTicketId, third.partnerTicketId],
      partial: false,
    });
    await handle(last);

    const after = await h.storage.tickets.listByOrder(message.orderId);
    expect(after.every((t) => t.status === 'voided' && t.voidReason === 'ORDER_CANCELLED')).toBe(
      true,
    );
    expect((await h.storage.orders.get(message.orderId))!.voided).toBe(true);
    // One `ticket-voided` for the partial cancel, then the order's own one naming the rest (it
    // names every ticket this order's cancels voided, the first one again).
    expect(voided).toHaveLength(2);
    expect(voided[0]).toEqual([first.id]);
    expect(voided[1]).toEqual(expect.arrayContaining([second.id, third.id]));
    const now = h.clock.now.getTime();
    for (const t of [first, second, third]) {
      expect((await h.entry.validateScan(gate, payloadAt(tokenOf(t), now))).result).toBe('VOIDED');
      expect((await render(h, t)).refusal).toEqual({ code: 410, error: 'ticket.voided' });
    }

    // Replays of both records, and a plain whole cancel, change nothing.
    const writes = voided.length;
    await handle(last);
    await handle(
      cancelledRecord(message.orderId, { ticketIds: [first.partnerTicketId], partial: true }),
    );
    await handle(cancelledRecord(message.orderId));
    expect(await h.storage.tickets.listByOrder(message.orderId)).toEqual(after);
    expect(voided).toHaveLength(writes);
  });

  it('a whole cancel (no ticket ids) after a partial one voids the remaining tickets', async () => {
    const h = harness();
    const { message, tickets } = await threeTickets(h);
    const handle = orderCancelledHandler({ entry: h.entry });
    const [first] = tickets as [Ticket, Ticket, Ticket];
    await handle(
      cancelledRecord(message.orderId, { ticketIds: [first.partnerTicketId], partial: true }),
    );
    await handle(cancelledRecord(message.orderId));
    const after = await h.storage.tickets.listByOrder(message.orderId);
    expect(after.map((t) => t.status)).toEqual(['voided', 'voided', 'voided']);
    expect((await h.storage.orders.get(message.orderId))!.voided).toBe(true);
  });
});
