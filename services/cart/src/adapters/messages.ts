import { sealOrderContact, type ContactKey } from '@marquee/proto/order-contact';
import {
  CancelReason as ProtoCancelReason,
  DeliveryMethodType,
  PaymentMethodType,
  PrintAction,
  ReleaseReason as ProtoReleaseReason,
  type BookingExpired,
  type BookingHeld,
  type BookingItem,
  type BookingReleased,
  type OrderCancelled,
  type OrderConfirmed,
  type OrderPrinted,
  type OrderTicket as ProtoOrderTicket,
  type OrderPayment,
  type PaymentCaptured,
  type PaymentRefunded,
} from '@marquee/proto/cart/v1';
import type { Cart, HeldTicket, ReleaseReason } from '../domain/cart.js';
import {
  owedRefundsOf,
  refusedRefundsOf,
  paymentOf,
  type CancelReason,
  type Order,
  type OrderRefund,
  type OrderTicket,
} from '../domain/order.js';
import { deliveryMethodType } from '../domain/shipping.js';
import { inventoryTypeOf } from './inventory-type.js';

const money = (amountMinor: number, currency: string) => ({ amountMinor, currency });

/** Held tickets as booking items: one per (area, section, row, price level, type, price). */
export function bookingItems(
  tickets: readonly (HeldTicket | OrderTicket)[],
  currency: string,
): BookingItem[] {
  const items = new Map<string, BookingItem>();
  for (const t of tickets) {
    const key = [t.areaId, t.section, t.row, t.priceLevelId, t.priceTypeId, t.faceValueMinor].join(
      '\u0000',
    );
    const item = items.get(key);
    if (item) {
      item.quantity += 1;
      if (t.seat) item.seats.push(t.seat);
    } else
      items.set(key, {
        areaId: t.areaId,
        section: t.section,
        row: t.row,
        seats: t.seat ? [t.seat] : [],
        priceLevelId: t.priceLevelId,
        priceTypeId: t.priceTypeId,
        quantity: 1,
        unitPrice: money(t.faceValueMinor, currency),
        inventoryType: inventoryTypeOf(t.priceTypeId),
      });
  }
  return [...items.values()];
}

export function bookingHeldMessage(cart: Cart): BookingHeld {
  return {
    cartId: cart.id,
    eventId: cart.eventId,
    partnerId: cart.partnerId,
    inventoryToken: cart.inventoryToken ?? '',
    items: bookingItems(cart.tickets, cart.currency),
    total: money(
      cart.tickets.reduce((s, t) => s + t.faceValueMinor, 0),
      cart.currency,
    ),
    heldAt: cart.heldAt,
    expiresAt: cart.expiresAt,
    appId: cart.appId,
  };
}

const RELEASE_REASONS: Record<ReleaseReason, ProtoReleaseReason> = {
  client: ProtoReleaseReason.RELEASE_REASON_CLIENT_RELEASED,
  'payment-failed': ProtoReleaseReason.RELEASE_REASON_PAYMENT_FAILED,
  replaced: ProtoReleaseReason.RELEASE_REASON_REPLACED,
  reconciliation: ProtoReleaseReason.RELEASE_REASON_RECONCILIATION,
  'fan-deleted': ProtoReleaseReason.RELEASE_REASON_FAN_DELETED,
};

export function bookingReleasedMessage(cart: Cart): BookingReleased {
  return {
    cartId: cart.id,
    eventId: cart.eventId,
    partnerId: cart.partnerId,
    inventoryToken: cart.inventoryToken ?? '',
    reason: RELEASE_REASONS[cart.releaseReason ?? 'client'],
    releasedAt: cart.endedAt ?? cart.updatedAt,
  };
}

export function bookingExpiredMessage(cart: Cart): BookingExpired {
  return {
    cartId: cart.id,
    eventId: cart.eventId,
    partnerId: cart.partnerId,
    inventoryToken: cart.inventoryToken ?? '',
    expiredAt: cart.expiresAt ?? cart.updatedAt,
  };
}

export function orderTickets(order: Order): ProtoOrderTicket[] {
  return order.tickets.map((t) => ({
    ticketId: t.ticketId,
    seat: t.seat,
    item: bookingItems([t], order.currency)[0]!,
    ...(t.cancelledAt ? { cancelledAt: t.cancelledAt } : {}),
  }));
}

const DELIVERY: Record<string, DeliveryMethodType> = {
  PH: DeliveryMethodType.DELIVERY_METHOD_TYPE_PRINT_AT_HOME,
  DS: DeliveryMethodType.DELIVERY_METHOD_TYPE_DELIVERY_SERVICE,
  PU: DeliveryMethodType.DELIVERY_METHOD_TYPE_PICK_UP,
};

/**
 * `order-confirmed`: everything secure-entry issues tickets from (never the token itself). The
 * buyer's e-mail, partner account id and fan id go sealed under the contact key ring, never in
 * clear: analytics reads the topic.
 */
export function orderConfirmedMessage(
  order: Order,
  contactKeys: readonly ContactKey[],
): OrderConfirmed {
  return {
    orderId: order.id,
    cartId: order.cartId,
    eventId: order.eventId,
    partnerId: order.partnerId,
    inventoryToken: order.inventoryToken,
    inventoryOrderId: order.inventoryOrderId,
    appId: order.appId,
    tickets: orderTickets(order),
    ticketsAmount: money(order.merchandiseMinor, order.currency),
    fees: money(order.feeMinor, order.currency),
    taxes: money(order.taxMinor, order.currency),
    delivery: money(order.deliveryMinor, order.currency),
    grandTotal: money(order.grandMinor, order.currency),
    paymentMethod: PaymentMethodType.PAYMENT_METHOD_TYPE_CARD,
    deliveryMethod: DELIVERY[deliveryMethodType(order.delivery)]!,
    secureEntryEnabled: order.secureEntryEnabled,
    confirmedAt: order.confirmedAt,
    orderTokenSha256: order.tokenSha256,
    // Kept empty for decoders of older versions: the contact travels only sealed.
    thirdPartyAccountId: '',
    customerEmail: '',
    fanId: '',
    sealedContact: sealOrderContact(
      {
        customerEmail: order.customerEmail,
        thirdPartyAccountId: order.thirdPartyAccountId,
        fanId: order.fanId ?? '',
      },
      order.id,
      contactKeys,
    ),
    deliveryOption: {
      id: order.delivery.id,
      carrier: order.delivery.carrier,
      serviceLevel: order.delivery.serviceLevel,
      description: order.delivery.descriptionShort,
    },
    sandbox: order.sandbox,
    resoldTicketIds: order.resoldTicketIds ?? [],
    resoldFromOrderId: order.resoldFromOrderId ?? '',
    payment: orderPaymentMessage(order),
  };
}

/** The money of an order as `OrderPayment`. */
export function orderPaymentMessage(order: Order): OrderPayment {
  const p = paymentOf(order);
  const c = order.currency;
  return {
    provider: p.provider,
    paymentId: p.paymentId,
    authorized: money(p.authorizedMinor, c),
    captured: money(p.capturedMinor, c),
    refunded: money(p.refundedMinor, c),
    refunds: p.refunds.map((r) => ({
      refundId: r.refundId,
      amount: money(r.amountMinor, c),
      status: r.status,
      source: r.source,
      ticketIds: r.ticketIds,
      refundedAt: r.at,
    })),
    refundPending: owedRefundsOf(order).length > 0,
    disputed: p.dispute !== undefined,
    refusedRefunds: refusedRefundsOf(order).map((r) => ({
      key: r.key,
      reason: r.reason,
      refusedAt: r.at,
    })),
  };
}

/** `payment-captured`: the cart's payment was captured, before its order is written. */
export function paymentCapturedMessage(cart: Cart, provider: string): PaymentCaptured {
  return {
    cartId: cart.id,
    orderId: cart.order?.orderId ?? '',
    eventId: cart.eventId,
    partnerId: cart.partnerId,
    appId: cart.appId,
    provider,
    paymentId: cart.payment?.paymentId ?? '',
    amount: money(cart.payment?.amountMinor ?? 0, cart.currency),
    capturedAt: cart.payment?.capturedAt ?? cart.updatedAt,
    sandbox: cart.sandbox,
  };
}

const CANCEL_REASONS: Record<CancelReason, ProtoCancelReason> = {
  requested: ProtoCancelReason.CANCEL_REASON_REQUESTED,
  'event-cancelled': ProtoCancelReason.CANCEL_REASON_EVENT_CANCELLED,
  reconciliation: ProtoCancelReason.CANCEL_REASON_RECONCILIATION,
  'payment-reversed': ProtoCancelReason.CANCEL_REASON_PAYMENT_REVERSED,
};

export const cancelReasonToProto = (reason: CancelReason | undefined): ProtoCancelReason =>
  reason ? CANCEL_REASONS[reason] : ProtoCancelReason.CANCEL_REASON_UNSPECIFIED;

export function cancelReasonFromProto(reason: ProtoCancelReason): CancelReason {
  const found = Object.entries(CANCEL_REASONS).find(([, v]) => v === reason);
  return (found?.[0] as CancelReason | undefined) ?? 'requested';
}

/**
 * `order-cancelled`: the order cancelled whole (`ticketIds` empty), or some of its tickets
 * (`ticketIds`, a partial cancel; `partial` while the order keeps other valid tickets). The reason,
 * detail and time of a partial cancel are those of that cancel.
 */
export function orderCancelledMessage(
  order: Order,
  ticketIds: readonly string[] = [],
): OrderCancelled {
  const partial = ticketIds.length > 0 && order.status !== 'CANCELLED';
  const cancel = ticketIds.length > 0 ? order.ticketCancels?.at(-1) : undefined;
  return {
    orderId: order.id,
    eventId: order.eventId,
    partnerId: order.partnerId,
    inventoryOrderId: order.inventoryOrderId,
    reason: cancelReasonToProto(cancel?.reason ?? order.cancelReason),
    detail: cancel?.detail ?? order.cancelDetail ?? '',
    cancelledAt: cancel?.at ?? order.cancelledAt,
    sandbox: order.sandbox,
    ticketIds: [...ticketIds],
    partial,
  };
}

export function orderPrintedMessage(order: Order, at: Date): OrderPrinted {
  return {
    orderId: order.id,
    eventId: order.eventId,
    partnerId: order.partnerId,
    inventoryOrderId: order.inventoryOrderId,
    action:
      order.printed === 'ROLLBACK_PRINT'
        ? PrintAction.PRINT_ACTION_ROLLBACK_PRINT
        : PrintAction.PRINT_ACTION_PRINT,
    recordedAt: at,
    sandbox: order.sandbox,
  };
}

/** `payment-refunded`: one refund of the order's payment, and all refunded so far. */
export function paymentRefundedMessage(order: Order, refund: OrderRefund): PaymentRefunded {
  const payment = paymentOf(order);
  return {
    orderId: order.id,
    eventId: order.eventId,
    partnerId: order.partnerId,
    appId: order.appId,
    provider: payment.provider,
    paymentId: payment.paymentId,
    refundId: refund.refundId,
    amount: money(refund.amountMinor, order.currency),
    refundedTotal: money(payment.refundedMinor, order.currency),
    status: refund.status,
    source: refund.source,
    ticketIds: refund.ticketIds,
    refundedAt: refund.at,
    sandbox: order.sandbox,
  };
}
