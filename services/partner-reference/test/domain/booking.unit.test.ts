import { describe, expect, it } from 'vitest';
import {
  checkConfirm,
  checkRelease,
  effectiveStatus,
  nextStatusFor,
  orderIdOf,
  toOrder,
  tokenOfOrderId,
} from '../../src/domain/booking.js';
import { errorId } from '../fixtures.js';
import type { BookingRecord } from '../../src/domain/model.js';
import type { TransactionStatus } from '@marquee/partner-api';

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
  ticketsAmount: '100',
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
    expect(toOrder(booking('CONFIRMED', { orderId: 'O-B-1' }), now).print_authorized).toBe(true);
    expect(toOrder(booking('CANCELLED', { orderId: 'O-B-1' }), now).print_authorized).toBe(false);
    expect(toOrder(booking('BOOKED'), now)).toMatchObject({
      print_authorized: false,
      expires_at: '2030-01-01T10:05:00.000Z',
    });
  });
});
