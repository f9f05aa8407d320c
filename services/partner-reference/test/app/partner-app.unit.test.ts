import { describe, expect, it, vi } from 'vitest';
import { bookingInput, harness, onSaleEvent } from '../fixtures.js';
import { PartnerError } from '../../src/domain/errors.js';
import { applyHold, entriesOf, findHold } from '../../src/domain/inventory.js';

const idOf = async (promise: Promise<unknown>): Promise<number | undefined> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PartnerError) return error.id;
    throw error;
  }
  return undefined;
};

const orderRequest = (token: string, amount: number, quantity: number, externalOrderId = 'X1') => ({
  token,
  ticketsAmountMinor: amount,
  ticketsQuantity: quantity,
  externalOrderId,
  paymentMethodType: 'CARD',
  deliveryMethodType: 'DS',
  channelType: 'INTERNET',
});

const action = (orderId: string, action: 'PRINT' | 'ROLLBACK_PRINT' | 'CANCEL') => ({
  orderId,
  action,
  channelType: 'INTERNET',
});

const overview = (eventId: string) => ({ eventId, detail: 'overview' as const });

describe('PartnerApp', () => {
  it('holds the best seats side by side, priced from the face values', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);

    const { booking, created } = await sut.book(bookingInput(eventId));

    expect(created).toBe(true);
    expect(booking).toMatchObject({
      status: 'BOOKED',
      ticketsAmountMinor: 10000,
      ticketsQuantity: 2,
      currency: 'EUR',
    });
    expect(booking.tickets.map((t) => `${t.row}${t.seat}`)).toEqual(['A1', 'A2']);
    const availability = await sut.availability(overview(eventId));
    expect(availability.areas[0]).toMatchObject({ available: 48, unavailable: 2 });
  });

  it('answers the live booking again for a repeated external reference', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const request = bookingInput(eventId, undefined, { externalReference: 'cart-1' });

    const first = await sut.book(request);
    const again = await sut.book(request);

    expect(again.created).toBe(false);
    expect(again.booking.id).toBe(first.booking.id);
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(48);
  });

  it('claims a new reference with its insert alone, without reading it first', async () => {
    const { sut, backOffice, repositories } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const reads = vi.spyOn(repositories.bookingReferences, 'get');
    const inserts = vi.spyOn(repositories.bookingReferences, 'insert');

    const { booking } = await sut.book(
      bookingInput(eventId, undefined, { externalReference: 'c' }),
    );

    expect(reads).not.toHaveBeenCalled();
    expect(inserts).toHaveBeenCalledTimes(1);
    expect(inserts.mock.calls[0]![0]).toMatchObject({ token: booking.id });
  });

  it('holds anew for a reference whose booking was released or whose hold was refused', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const request = bookingInput(eventId, undefined, { externalReference: 'cart-2' });
    const first = await sut.book(request);
    await sut.release(first.booking.id);

    const second = await sut.book(request);
    expect(second.created).toBe(true);
    expect(second.booking.id).not.toBe(first.booking.id);
    expect((await sut.book(request)).booking.id).toBe(second.booking.id);

    const tooMany = bookingInput(eventId, [{ priceTypeId: 'ADULT', quantity: 51 }], {
      externalReference: 'cart-3',
    });
    expect(await idOf(sut.book(tooMany))).toBeDefined();
    const afterRefusal = await sut.book({ ...request, externalReference: 'cart-3' });
    expect(afterRefusal.created).toBe(true);
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(46);
  });

  it('confirms, prints, rolls back and cancels, putting seats back on sale', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const { booking } = await sut.book(bookingInput(eventId));

    const { order, created } = await sut.confirm(orderRequest(booking.id, 10000, 2));
    expect(created).toBe(true);
    expect(order).toMatchObject({ status: 'CONFIRMED', orderId: `O-${booking.id}` });
    const repeated = await sut.confirm(orderRequest(booking.id, 10000, 2));
    expect(repeated).toMatchObject({
      created: false,
      order: { orderId: order.orderId },
    });
    expect(await idOf(sut.confirm(orderRequest(booking.id, 10000, 2, 'other')))).toBe(313);

    const id = order.orderId!;
    expect((await sut.orderAction(action(id, 'PRINT'))).order.status).toBe('PRINTED');
    expect(await idOf(sut.orderAction(action(id, 'PRINT')))).toBe(309);
    expect((await sut.orderAction(action(id, 'ROLLBACK_PRINT'))).order.status).toBe('CONFIRMED');
    expect((await sut.orderAction(action(id, 'CANCEL'))).order.status).toBe('CANCELLED');
    expect(await idOf(sut.orderAction(action(id, 'CANCEL')))).toBe(315);
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
  });

  it('refuses a confirmation that does not match the booking (309)', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const { booking } = await sut.book(bookingInput(eventId));

    expect(await idOf(sut.confirm(orderRequest(booking.id, 9999, 2)))).toBe(309);
    expect(await idOf(sut.confirm(orderRequest(booking.id, 10000, 3)))).toBe(309);
  });

  it('expires bookings after the time-out: seats back on sale, no confirmation', async () => {
    const { sut, backOffice, clock } = harness({ bookingTimeoutMs: 60_000 });
    const { eventId } = await onSaleEvent(backOffice);
    const { booking } = await sut.book(bookingInput(eventId));
    clock.advance(60_000);

    expect(await sut.sweep()).toBe(1);

    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
    expect(await idOf(sut.confirm(orderRequest(booking.id, 10000, 2)))).toBe(312);
    expect(await idOf(sut.release(booking.id))).toBe(312);
    expect((await sut.getOrder(booking.id)).status).toBe('EXPIRED');
  });

  it('expires lazily too: a read after the time-out sees the seats free without a sweep', async () => {
    const { sut, backOffice, clock } = harness({ bookingTimeoutMs: 1_000 });
    const { eventId } = await onSaleEvent(backOffice);
    await sut.book(bookingInput(eventId));
    clock.advance(1_000);

    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
  });

  it('releases a booking once; again is 311, unknown is 314', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const { booking } = await sut.book(bookingInput(eventId));

    expect((await sut.release(booking.id)).status).toBe('RELEASED');
    expect(await idOf(sut.release(booking.id))).toBe(311);
    expect(await idOf(sut.release('B-nothing'))).toBe(314);
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
  });

  it('repairs at start-up what a crash between the booking write and the inventory write left', async () => {
    const { sut, backOffice, repositories } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    const { booking } = await sut.book(bookingInput(eventId));
    // A crash after the booking became CONFIRMED, before the inventory followed:
    const record = (await repositories.bookings.get(booking.id))!;
    const { version, ...rest } = record;
    await repositories.bookings.update(record.id, version, {
      ...rest,
      status: 'CONFIRMED',
      orderId: `O-${record.id}`,
    });

    expect(await sut.repair()).toBe(1);

    const inventory = (await repositories.inventories.get(eventId))!;
    expect(findHold(inventory, record.id)).toBeUndefined();
    expect(entriesOf(inventory.sales)).toHaveLength(1);
    expect(inventory.areas[0]!.seats.startsWith('ss')).toBe(true);
  });

  it('frees at start-up the expired hold of a booking that was never written', async () => {
    const { sut, backOffice, repositories, clock } = harness({ bookingTimeoutMs: 1_000 });
    const { eventId } = await onSaleEvent(backOffice);
    await sut.availability(overview(eventId)); // creates the inventory
    // A crash after the hold was written, before its booking record:
    const inventory = (await repositories.inventories.get(eventId))!;
    const expiresAt = clock.now().getTime() + 1_000;
    applyHold(inventory, {
      token: 'B-orphan',
      expiresAt,
      parts: [{ area: 0, seats: [0], places: 0 }],
    });
    const { version, ...rest } = inventory;
    await repositories.inventories.update(eventId, version, rest);
    await sut.repair();
    expect(entriesOf((await repositories.inventories.get(eventId))!.holds)).toHaveLength(1);
    clock.advance(1_000);

    await sut.repair();

    expect((await repositories.inventories.get(eventId))!.holds).toBe('');
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(50);
  });

  it('refuses what the event does not allow', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice, {
      event: { sales_channels: ['BOX_OFFICE'], maximum_tickets_quantity: 4 },
    });

    expect(await idOf(sut.book(bookingInput(eventId)))).toBe(308);
    const boxOffice = { ...bookingInput(eventId), channelType: 'BOX_OFFICE' };
    expect(
      await idOf(sut.book({ ...boxOffice, lines: [{ priceTypeId: 'ADULT', quantity: 5 }] })),
    ).toBe(301);
    expect(
      await idOf(sut.book({ ...boxOffice, lines: [{ priceTypeId: 'NOPE', quantity: 1 }] })),
    ).toBe(109);
    expect(
      await idOf(sut.book({ ...boxOffice, lines: [{ priceTypeId: 'PROMO', quantity: 1 }] })),
    ).toBe(109);
    expect(
      (
        await sut.book({
          ...boxOffice,
          lines: [{ priceTypeId: 'PROMO', quantity: 1, accessCode: 'SECRET' }],
        })
      ).booking.ticketsAmountMinor,
    ).toBe(3000);
    expect(
      await idOf(
        sut.book({
          ...boxOffice,
          lines: [{ priceTypeId: 'ADULT', quantity: 1, areaId: 'ZZ' }],
        }),
      ),
    ).toBe(104);
    expect(
      await idOf(
        sut.book({
          ...boxOffice,
          lines: [{ priceTypeId: 'ADULT', quantity: 1, priceLevelId: 'ZZ' }],
        }),
      ),
    ).toBe(107);
    expect(
      await idOf(
        sut.book({
          ...boxOffice,
          lines: [{ priceTypeId: 'ADULT', quantity: 1, areaId: 'A1', seatIds: ['nope'] }],
        }),
      ),
    ).toBe(106);
    expect(await idOf(sut.book({ ...boxOffice, eventId: 'E-unknown' }))).toBe(108);
  });

  it('refuses bookings of a cancelled event (305)', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice);
    await backOffice.patchEvent(eventId, { status: 'CANCELED' });

    expect(await idOf(sut.book(bookingInput(eventId)))).toBe(305);
  });

  it('holds exactly the capacity under 1,000 concurrent requests, each seat once', async () => {
    const { sut, backOffice } = harness();
    const { eventId } = await onSaleEvent(backOffice, { rows: 10, perRow: 10 });

    const outcomes = await Promise.allSettled(
      Array.from({ length: 1000 }, () =>
        sut.book(bookingInput(eventId, [{ priceTypeId: 'ADULT', quantity: 1 }])),
      ),
    );

    const held = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.booking] : []));
    const refusedIds = outcomes.flatMap((o) =>
      o.status === 'rejected' ? [(o.reason as PartnerError).id] : [],
    );
    expect(held).toHaveLength(100);
    expect(new Set(held.map((b) => b.tickets[0]!.seatId)).size).toBe(100);
    expect(refusedIds).toHaveLength(900);
    expect(refusedIds.every((id) => id === 303 || id === 306)).toBe(true);
    expect((await sut.availability(overview(eventId))).areas[0]!.available).toBe(0);
  });
});
