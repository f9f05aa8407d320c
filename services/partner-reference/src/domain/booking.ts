import type { Booking, Order, TransactionStatus } from '@marquee/partner-api';
import { Err, refused } from './errors.js';
import type { BookingRecord } from './model.js';
import type { OrderAction } from './validation.js';

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

/** The booking as the 3P API answers it. */
export function toBookingAnswer(booking: BookingRecord, now: Date): Booking {
  return {
    inventory_token: booking.id,
    event_id: booking.eventId,
    status: effectiveStatus(booking, now),
    language: booking.language,
    channel_type: booking.channelType,
    ...(booking.externalReference !== undefined
      ? { external_reference: booking.externalReference }
      : {}),
    created_at: booking.createdAt.toISOString(),
    expires_at: booking.expiresAt.toISOString(),
    currency: booking.currency,
    tickets_amount: booking.ticketsAmount,
    tickets_quantity: booking.ticketsQuantity,
    tickets: booking.tickets,
  };
}

/** A transaction (booking or order) as the order reads of the 3P API answer it. */
export function toOrder(booking: BookingRecord, now: Date): Order {
  const status = effectiveStatus(booking, now);
  const valid = validTicketsOf(booking);
  return {
    ...(booking.orderId !== undefined ? { inventory_order_id: booking.orderId } : {}),
    inventory_token: booking.id,
    event_id: booking.eventId,
    status,
    ...(booking.externalReference !== undefined
      ? { external_reference: booking.externalReference }
      : {}),
    ...(booking.externalOrderId !== undefined
      ? { external_order_id: booking.externalOrderId }
      : {}),
    print_authorized: status === 'CONFIRMED' || status === 'PRINTED',
    created_at: booking.createdAt.toISOString(),
    updated_at: booking.updatedAt.toISOString(),
    ...(booking.orderId === undefined ? { expires_at: booking.expiresAt.toISOString() } : {}),
    ...(booking.confirmedAt !== undefined
      ? { confirmed_at: booking.confirmedAt.toISOString() }
      : {}),
    currency: booking.currency,
    tickets_amount: valid.amount,
    tickets_quantity: valid.quantity,
    ...(booking.paymentMethodType !== undefined
      ? { payment_method_type: booking.paymentMethodType }
      : {}),
    ...(booking.deliveryMethodType !== undefined
      ? { delivery_method_type: booking.deliveryMethodType }
      : {}),
    tickets: valid.tickets,
  };
}

/**
 * The tickets an order read lists, with their amount: all of them, except those a partial cancel
 * took back (`cancelledTicketIds`) while the order goes on. A cancelled order lists what it sold.
 */
function validTicketsOf(booking: BookingRecord) {
  const cancelled = new Set(booking.cancelledTicketIds ?? []);
  if (cancelled.size === 0 || booking.status === 'CANCELLED')
    return {
      tickets: booking.tickets,
      amount: booking.ticketsAmount,
      quantity: booking.ticketsQuantity,
    };
  const tickets = booking.tickets.filter((t) => !cancelled.has(t.ticket_id));
  return {
    tickets,
    amount: tickets.reduce((sum, t) => sum + BigInt(t.amount), 0n).toString(),
    quantity: tickets.length,
  };
}
