import { describe, expect, it } from 'vitest';
import { bookingInput, harness, onSaleEvent } from '../fixtures.js';
import { validTicketsOf } from '../../src/domain/booking.js';
import { PartnerError } from '../../src/domain/errors.js';

const overview = (eventId: string) => ({ eventId, detail: 'overview' as const });

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PartnerError) return { id: error.id, kind: error.kind };
    throw error;
  }
  return undefined;
};

/** A confirmed order of two seats (A1, A2) of a 50-seat area. */
async function confirmedOrder(options: { partialCancel?: boolean } = {}) {
  const h = harness(options);
  const { eventId } = await onSaleEvent(h.backOffice);
  const { booking } = await h.sut.book(bookingInput(eventId));
  const { order } = await h.sut.confirm({
    token: booking.id,
    ticketsAmountMinor: 10000,
    ticketsQuantity: 2,
    externalOrderId: 'X1',
    paymentMethodType: 'CARD',
    deliveryMethodType: 'DS',
    channelType: 'INTERNET',
  });
  return { ...h, eventId, order, id: order.orderId! };
}

describe('CANCEL with tickets (a partial cancel)', () => {
  it('frees only the seats of those tickets, repeats harmlessly, and the last cancels the order', async () => {
    const { sut, eventId, order, id } = await confirmedOrder();
    const [first, second] = order.tickets;
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(48);

    const cancel = (ticketIds: string[]) =>
      sut.orderAction({ orderId: id, action: 'CANCEL', channelType: 'INTERNET', ticketIds });
    const partly = (await cancel([first!.ticketId])).order;
    expect(partly.status).toBe('CONFIRMED');
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(49);
    // The order records the tickets cancelled; its reads list what is left (validTicketsOf).
    expect(partly.cancelledTicketIds).toEqual([first!.ticketId]);
    expect(validTicketsOf(partly)).toEqual({
      tickets: [second],
      amountMinor: second!.amountMinor,
      quantity: 1,
    });
    expect(validTicketsOf(await sut.getOrder(id)).quantity).toBe(1);

    // The same request again: a success that changes nothing.
    expect((await cancel([first!.ticketId])).order.status).toBe('CONFIRMED');
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(49);

    expect((await cancel([second!.ticketId])).order.status).toBe('CANCELLED');
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
    expect(await failureOf(cancel([second!.ticketId]))).toEqual({
      id: 315,
      kind: 'failed_precondition',
    });
  });

  it('refuses a ticket the order does not have (400, 114), freeing nothing', async () => {
    const { sut, eventId, id } = await confirmedOrder();
    expect(
      await failureOf(
        sut.orderAction({
          orderId: id,
          action: 'CANCEL',
          channelType: 'INTERNET',
          ticketIds: ['nope'],
        }),
      ),
    ).toEqual({ id: 114, kind: 'invalid_argument' });
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(48);
  });

  it('answers 310 when configured to cancel whole orders only, and still takes a whole CANCEL', async () => {
    const { sut, eventId, order, id } = await confirmedOrder({ partialCancel: false });
    expect(
      await failureOf(
        sut.orderAction({
          orderId: id,
          action: 'CANCEL',
          channelType: 'INTERNET',
          ticketIds: [order.tickets[0]!.ticketId],
        }),
      ),
    ).toEqual({ id: 310, kind: 'failed_precondition' });
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(48);
    expect(
      (await sut.orderAction({ orderId: id, action: 'CANCEL', channelType: 'INTERNET' })).order
        .status,
    ).toBe('CANCELLED');
  });
});
