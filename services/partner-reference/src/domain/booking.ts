import { Err, refused } from './errors.js';
import type { BookingRecord, Ticket, TransactionStatus } from './model.js';

/** What an order action asks. */
export type OrderAction = 'PRINT' | 'ROLLBACK_PRINT' | 'CANCEL';

/**
 * The transaction state machine of the 3P API:
 *
 *   BOOKED ──DELETE──▶ RELEASED
 *     │  └──time-out──▶ EXPIRED
 *     └──POST /orders──▶ CONFIRMED ⇄ PRINTED (PRINT / ROLLBACK_PRINT)
 *                            └──CANCEL──▶ CANCELLED (from CONFIRMED or PRINTED)
 *
 * Every refused transition names why with its error id (309-315).
 */

/** A booking whose time-out has passed is EXPIRED, whether or not the sweeper has written it yet. */
export const effectiveStatus = (booking: BookingRecord, now: Date): TransactionStatus =>
  booking.status === 'BOOKED' && booking.expiresAt.getTime() <= now.getTime()
    ? 'EXPIRED'
    : booking.status;

/** Why a booking in this state cannot be released or confirmed. */
function refuseFinished(status: TransactionStatus, token: string): never {
  switch (status) {
    case 'RELEASED':
      throw refused(Err.RESERVATION_RELEASED, `booking ${token} has already been released`);
    case 'EXPIRED':
      throw refused(Err.RESERVATION_EXPIRED, `booking ${token} has expired`);
    case 'CONFIRMED':
    case 'PRINTED':
      throw refused(Err.RESERVATION_CONFIRMED, `booking ${token} has already been confirmed`);
    case 'CANCELLED':
      throw refused(Err.ORDER_CANCELLED, `the order of booking ${token} has been cancelled`);
    default:
      throw new Error(`unexpected status ${status}`);
  }
}

/** DELETE /bookings/{token}: only a live booking can be released. */
export function checkRelease(booking: BookingRecord, now: Date): void {
  const status = effectiveStatus(booking, now);
  if (status !== 'BOOKED') refuseFinished(status, booking.id);
}

/**
 * POST /orders: `confirm` for a live booking, `repeat` for a confirmation repeated with the same
 * external order id (answered with the existing order), else the reason it cannot be confirmed.
 */
export function checkConfirm(
  booking: BookingRecord,
  now: Date,
  externalOrderId: string | undefined,
): 'confirm' | 'repeat' {
  const status = effectiveStatus(booking, now);
  if (status === 'BOOKED') return 'confirm';
  if (
    (status === 'CONFIRMED' || status === 'PRINTED') &&
    externalOrderId !== undefined &&
    booking.externalOrderId === externalOrderId
  )
    return 'repeat';
  return refuseFinished(status, booking.id);
}

/** POST /orders/{order}: the status an action leads to, or why it cannot be carried out. */
export function nextStatusFor(booking: BookingRecord, action: OrderAction): TransactionStatus {
  const status = booking.status;
  if (status === 'CANCELLED')
    throw refused(Err.ORDER_CANCELLED, `order ${booking.orderId} has already been cancelled`);
  if (status !== 'CONFIRMED' && status !== 'PRINTED')
    throw refused(Err.INVALID_ORDER_ID, `booking ${booking.id} has no confirmed order`);
  switch (action) {
    case 'PRINT':
      if (status === 'PRINTED')
        throw refused(Err.REQUEST_DOES_NOT_MATCH_ORDER, 'the order has already been printed');
      return 'PRINTED';
    case 'ROLLBACK_PRINT':
      if (status !== 'PRINTED')
        throw refused(Err.REQUEST_DOES_NOT_MATCH_ORDER, 'the order has not been printed');
      return 'CONFIRMED';
    case 'CANCEL':
      return 'CANCELLED';
  }
}

export const orderIdOf = (token: string): string => `O-${token}`;
export const tokenOfOrderId = (orderId: string): string | undefined =>
  orderId.startsWith('O-') ? orderId.slice(2) : undefined;

/**
 * The booking as it stands at `now`: a booking past its time-out reads EXPIRED (what every answer
 * says), whether or not that has been written yet.
 */
export const asSeenAt = (booking: BookingRecord, now: Date): BookingRecord => {
  const status = effectiveStatus(booking, now);
  return status === booking.status ? booking : { ...booking, status };
};

/** An order may be printed while it is confirmed (and not cancelled). */
export const printAuthorized = (status: TransactionStatus): boolean =>
  status === 'CONFIRMED' || status === 'PRINTED';

/**
 * The tickets an order read lists, with their amount: all of them, except those a partial cancel
 * took back (`cancelledTicketIds`) while the order goes on. A cancelled order lists what it sold.
 */
export function validTicketsOf(booking: BookingRecord): {
  tickets: Ticket[];
  amountMinor: number;
  quantity: number;
} {
  const cancelled = new Set(booking.cancelledTicketIds ?? []);
  if (cancelled.size === 0 || booking.status === 'CANCELLED')
    return {
      tickets: booking.tickets,
      amountMinor: booking.ticketsAmountMinor,
      quantity: booking.ticketsQuantity,
    };
  const tickets = booking.tickets.filter((t) => !cancelled.has(t.ticketId));
  return {
    tickets,
    amountMinor: tickets.reduce((sum, t) => sum + t.amountMinor, 0),
    quantity: tickets.length,
  };
}
