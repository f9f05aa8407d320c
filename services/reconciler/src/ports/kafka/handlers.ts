import type { IncomingEvent } from '@marquee/platform/bus';
import type {
  BookingHeld,
  OrderCancelled,
  OrderConfirmed,
  PaymentCaptured,
} from '@marquee/proto/cart/v1';
import { PartnerOperation, type PartnerCallFailed } from '@marquee/proto/partner/v1';
import type { ReconcilerApp } from '../../app/reconciler-app.js';
import type { FailedOperation } from '../../domain/case.js';

/**
 * Kafka records → the reconciler's facts. Every handler is idempotent (a fact sets its own field on
 * the transaction; a case is opened at most once per transaction and failure time), so redelivery
 * is harmless. A record without the ids a fact needs throws: retried, then parked on `<topic>.dlq`.
 * Tombstones carry nothing and are skipped.
 */
function required(topic: string, fields: Record<string, string>): void {
  for (const [name, value] of Object.entries(fields)) {
    if (!value) throw new Error(`${topic} record without ${name}`);
  }
}

export function bookingHeldHandler(app: ReconcilerApp) {
  return async ({ value, time }: IncomingEvent<BookingHeld>): Promise<void> => {
    if (!value) return;
    required('booking-held', { cart_id: value.cartId, event_id: value.eventId });
    const heldAt = value.heldAt ?? time;
    await app.recordBookingHeld({
      kind: 'booking-held',
      cartId: value.cartId,
      eventId: value.eventId,
      partnerId: value.partnerId,
      inventoryToken: value.inventoryToken,
      heldAt,
      expiresAt: value.expiresAt ?? heldAt,
    });
  };
}

export function orderConfirmedHandler(app: ReconcilerApp) {
  return async ({ value, time }: IncomingEvent<OrderConfirmed>): Promise<void> => {
    // Sandbox (pre-production) orders never reach a partner: nothing to reconcile.
    if (!value || value.sandbox) return;
    // Resale orders neither: the partner sold the tickets to the seller; the resale itself (and
    // its hold) happened on the platform only, with no partner booking or order to compare.
    if (value.resoldTicketIds.length > 0) return;
    required('order-confirmed', { order_id: value.orderId, event_id: value.eventId });
    await app.recordOrderConfirmed({
      kind: 'order-confirmed',
      orderId: value.orderId,
      cartId: value.cartId,
      eventId: value.eventId,
      partnerId: value.partnerId,
      inventoryToken: value.inventoryToken,
      inventoryOrderId: value.inventoryOrderId,
      confirmedAt: value.confirmedAt ?? time,
      ...(value.payment && value.grandTotal
        ? {
            payment: {
              provider: value.payment.provider,
              paymentId: value.payment.paymentId,
              currency: value.grandTotal.currency,
              capturedMinor: value.payment.captured?.amountMinor ?? 0,
            },
            grandMinor: value.grandTotal.amountMinor,
          }
        : {}),
    });
  };
}

export function paymentCapturedHandler(app: ReconcilerApp) {
  return async ({ value, time }: IncomingEvent<PaymentCaptured>): Promise<void> => {
    // Sandbox payments move no money: nothing to reconcile.
    if (!value || value.sandbox) return;
    required('payment-captured', { cart_id: value.cartId, event_id: value.eventId });
    await app.recordPaymentCaptured({
      kind: 'payment-captured',
      cartId: value.cartId,
      orderId: value.orderId,
      eventId: value.eventId,
      partnerId: value.partnerId,
      provider: value.provider,
      paymentId: value.paymentId,
      amountMinor: value.amount?.amountMinor ?? 0,
      currency: value.amount?.currency ?? '',
      capturedAt: value.capturedAt ?? time,
    });
  };
}

/**
 * `order-cancelled` → the order's transaction is cancelled. A partial cancel (`partial`: the order
 * stays confirmed with its other tickets) is not an order cancel: the partner's order stays
 * CONFIRMED too, so there is nothing to compare.
 */
export function orderCancelledHandler(app: ReconcilerApp) {
  return async ({ value, time }: IncomingEvent<OrderCancelled>): Promise<void> => {
    if (!value || value.sandbox || value.partial) return;
    required('order-cancelled', { order_id: value.orderId, event_id: value.eventId });
    await app.recordOrderCancelled({
      kind: 'order-cancelled',
      orderId: value.orderId,
      eventId: value.eventId,
      partnerId: value.partnerId,
      inventoryOrderId: value.inventoryOrderId,
      cancelledAt: value.cancelledAt ?? time,
    });
  };
}

const OPERATIONS: Partial<Record<PartnerOperation, FailedOperation>> = {
  [PartnerOperation.PARTNER_OPERATION_CREATE_BOOKING]: 'CREATE_BOOKING',
  [PartnerOperation.PARTNER_OPERATION_RELEASE_BOOKING]: 'RELEASE_BOOKING',
  [PartnerOperation.PARTNER_OPERATION_CREATE_ORDER]: 'CREATE_ORDER',
  [PartnerOperation.PARTNER_OPERATION_CANCEL_ORDER]: 'CANCEL_ORDER',
};

export function partnerCallFailedHandler(app: ReconcilerApp) {
  return async ({ value, time }: IncomingEvent<PartnerCallFailed>): Promise<void> => {
    if (!value) return;
    required('partner-call-failed', { event_id: value.eventId });
    await app.recordPartnerCallFailed({
      kind: 'partner-call-failed',
      operation: OPERATIONS[value.operation] ?? 'OTHER',
      outcomeUnknown: value.outcomeUnknown,
      message: value.message,
      eventId: value.eventId,
      partnerId: value.partnerId,
      ...(value.cartId ? { cartId: value.cartId } : {}),
      ...(value.orderId ? { orderId: value.orderId } : {}),
      ...(value.inventoryToken ? { inventoryToken: value.inventoryToken } : {}),
      ...(value.inventoryOrderId ? { inventoryOrderId: value.inventoryOrderId } : {}),
      failedAt: value.failedAt ?? time,
    });
  };
}
