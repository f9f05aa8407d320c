import { describe, expect, it } from 'vitest';
import {
  checkConfirm,
  checkRelease,
  effectiveStatus,
  nextStatusFor,
  orderIdOf,
  printAuthorized,
  validTicketsOf,
  tokenOfOrderId,
} from '../../src/domain/booking.js';
import { errorId } from '../fixtures.js';
import type { BookingRecord, TransactionStatus } from '../../src/domain/model.js';

const now = new Date('2030-01-01T10:00:00Z');
const booking = (status: TransactionStatus, extra: Partial<BookingRecord> = {}): BookingRecord => ({
  id: 'B-1',
  version: 1,
  eventId: 'E1',
  status,
  language: 'en-us',
  channelType: 'INTERNET',
  createdAt: new Date('2030-01-01T09:55:00Z'),
  updatedAt: new Date('2030-01-01T09:55:00Z'),
  expiresAt: new Date('2030-01-01T10:05:00Z'),
  currency: 'EUR',
  ticketsAmountMinor: 100,
  ticketsQuantity: 1,
  tickets: [],
  ...extra,
});

describe('the transaction state machine', () => {
  it('sees a booking past its time-out as EXPIRED', () => {
    const sut = booking('BOOKED', { expiresAt: now });
    expect(effectiveStatus(sut, now)).toBe('EXPIRED');
    expect(effectiveStatus(booking('BOOKED'), now)).toBe('BOOKED');
  });

  it('releases only a live booking, naming why otherwise', () => {
    expect(errorId(() => checkRelease(booking('BOOKED'), now))).toBeUndefined();
    expect(errorId(() => checkRelease(booking('RELEASED'), now))).toBe(311);
    expect(errorId(() => checkRelease(booking('EXPIRED'), now))).toBe(312);
    expect(errorId(() => checkRelease(booking('BOOKED', { expiresAt: now }), now))).toBe(312);
    expect(errorId(() => checkRelease(booking('CONFIRMED'), now))).toBe(313);
    expect(errorId(() => checkRelease(booking('PRINTED'), now))).toBe(313);
    expect(errorId(() => checkRelease(booking('CANCELLED'), now))).toBe(315);
  });

  it('confirms a live booking once; the same external order id repeats it', () => {
    expect(checkConfirm(booking('BOOKED'), now, 'X')).toBe('confirm');
    const confirmed = booking('CONFIRMED', { externalOrderId: 'X' });
    expect(checkConfirm(confirmed, now, 'X')).toBe('repeat');
    expect(errorId(() => checkConfirm(confirmed, now, 'Y'))).toBe(313);
    expect(errorId(() => checkConfirm(confirmed, now, undefined))).toBe(313);
    expect(errorId(() => checkConfirm(booking('EXPIRED'), now, 'X'))).toBe(312);
    expect(errorId(() => checkConfirm(booking('RELEASED'), now, 'X'))).toBe(311);
    expect(errorId(() => checkConfirm(booking('CANCELLED'), now, 'X'))).toBe(315);
  });

  it('prints, rolls back and cancels orders, refusing wrong transitions', () => {
    expect(nextStatusFor(booking('CONFIRMED'), 'PRINT')).toBe('PRINTED');
    expect(nextStatusFor(booking('PRINTED'), 'ROLLBACK_PRINT')).toBe('CONFIRMED');
    expect(nextStatusFor(booking('CONFIRMED'), 'CANCEL')).toBe('CANCELLED');
    expect(nextStatusFor(booking('PRINTED'), 'CANCEL')).toBe('CANCELLED');
    expect(errorId(() => nextStatusFor(booking('PRINTED'), 'PRINT'))).toBe(309);
    expect(errorId(() => nextStatusFor(booking('CONFIRMED'), 'ROLLBACK_PRINT'))).toBe(309);
    expect(errorId(() => nextStatusFor(booking('CANCELLED'), 'CANCEL'))).toBe(315);
    expect(errorId(() => nextStatusFor(booking('CANCELLED'), 'PRINT'))).toBe(315);
    expect(errorId(() => nextStatusFor(booking('BOOKED'), 'PRINT'))).toBe(206);
  });

  it('derives order ids from tokens and back', () => {
    expect(tokenOfOrderId(orderIdOf('B-x'))).toBe('B-x');
    expect(tokenOfOrderId('B-x')).toBeUndefined();
  });

  it('authorises printing of confirmed orders only', () => {
    expect(printAuthorized('CONFIRMED')).toBe(true);
    expect(printAuthorized('PRINTED')).toBe(true);
    expect(printAuthorized('CANCELLED')).toBe(false);
    expect(printAuthorized('BOOKED')).toBe(false);
  });

  it('lists the tickets a partial cancel left, with their amount; a cancelled order all it sold', () => {
    const ticket = (id: string, amountMinor: number) => ({
      ticketId: id,
      areaId: 'GA',
      row: '',
      seat: '',
      generalAdmission: true,
      priceLevelId: 'PL',
      priceTypeId: 'T',
      amountMinor,
    });
    const tickets = [ticket('t1', 2500), ticket('t2', 4000)];
    const order = { tickets, ticketsAmountMinor: 6500, ticketsQuantity: 2 };
    expect(validTicketsOf(booking('CONFIRMED', { ...order, cancelledTicketIds: ['t1'] }))).toEqual({
      tickets: [tickets[1]],
      amountMinor: 4000,
      quantity: 1,
    });
    expect(validTicketsOf(booking('CANCELLED', { ...order, cancelledTicketIds: ['t1'] }))).toEqual({
      tickets,
      amountMinor: 6500,
      quantity: 2,
    });
  });
});
