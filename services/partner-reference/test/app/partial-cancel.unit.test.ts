import { describe, expect, it } from 'vitest';
import { bookingRequest, harness, onSaleEvent } from '../fixtures.js';
import { PartnerError } from '../../src/domain/errors.js';

const channel = { channel_type: 'INTERNET' };

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PartnerError) return { id: error.id, status: error.status };
    throw error;
  }
  return undefined;
};

/** A confirmed order of two seats (A1, A2) of a 50-seat area. */
async function confirmedOrder(options: { partialCancel?: boolean } = {}) {
  const h = harness(options);
  const { eventId } = await onSaleEvent(h.backOffice);
  const { booking } = await h.sut.book(bookingRequest(eventId));
  const { order } = await h.sut.confirm({
    inventory_token: booking.inventory_token,
    order_info: { tickets_amount: '10000', tickets_quantity: 2, external_order_id: 'X1' },
    payment_info: { payment_method_type: 'CARD' },
    delivery_info: { delivery_method_type: 'DS' },
    channel_info: channel,
  });
  return { ...h, eventId, order, id: order.inventory_order_id! };
}

describe('CANCEL with tickets (a partial cancel)', () => {
  it('frees only the seats of those tickets, repeats harmlessly, and the last cancels the order', async () => {
    const { sut, eventId, order, id } = await confirmedOrder();
    const [first, second] = order.tickets;
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(48);

    const cancel = (tickets: string[]) =>
      sut.orderAction(id, { action: 'CANCEL', channel_info: channel, tickets });
    const partly = (await cancel([first!.ticket_id])).order;
    expect(partly.status).toBe('CONFIRMED');
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(49);
    // The order reads list what is left of it, amount and quantity included.
    expect(partly.tickets.map((t) => t.ticket_id)).toEqual([second!.ticket_id]);
    expect(partly.tickets_quantity).toBe(1);
    expect(partly.tickets_amount).toBe(second!.amount);
    expect(await sut.getOrder(id)).toMatchObject({
      tickets_quantity: 1,
      tickets_amount: second!.amount,
    });

    // The same request again: a success that changes nothing.
    expect((await cancel([first!.ticket_id])).order.status).toBe('CONFIRMED');
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(49);

    expect((await cancel([second!.ticket_id])).order.status).toBe('CANCELLED');
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(50);
    expect(await failureOf(cancel([second!.ticket_id]))).toEqual({ id: 315, status: 410 });
  });

  it('refuses a ticket the order does not have (400, 114), freeing nothing', async () => {
    const { sut, eventId, id } = await confirmedOrder();
    expect(
      await failureOf(
        sut.orderAction(id, { action: 'CANCEL', channel_info: channel, tickets: ['nope'] }),
      ),
    ).toEqual({ id: 114, status: 400 });
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(48);
  });

  it('answers 310 when configured to cancel whole orders only, and still takes a whole CANCEL', async () => {
    const { sut, eventId, order, id } = await confirmedOrder({ partialCancel: false });
    expect(
      await failureOf(
        sut.orderAction(id, {
          action: 'CANCEL',
          channel_info: channel,
          tickets: [order.tickets[0]!.ticket_id],
        }),
      ),
    ).toEqual({ id: 310, status: 410 });
    expect((await sut.availability(eventId, {})).areas[0]!.available).toBe(48);
    expect(
      (await sut.orderAction(id, { action: 'CANCEL', channel_info: channel })).order.status,
    ).toBe('CANCELLED');
  });
});
