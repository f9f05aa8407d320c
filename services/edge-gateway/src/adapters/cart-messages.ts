/** cart's protobuf messages as the edge's partner cart records, and back. */
import {
  CancelReason as CancelReasonMessage,
  CartStatus as CartStatusMessage,
  InventoryType as InventoryTypeMessage,
  OrderStatus as OrderStatusMessage,
  PrintAction as PrintActionMessage,
  type Cart,
  type CartOrder as CartOrderMessage,
  type Charge as ChargeMessage,
  type GetEventAvailabilityResponse,
  type GetOrderResponse,
  type LineTotals as LineTotalsMessage,
  type OrderPayment as OrderPaymentMessage,
  type ShippingOption as ShippingOptionMessage,
} from '@marquee/proto/cart/v1';
import type {
  CancelReason,
  CartOrder,
  CartRecord,
  CartStatus,
  Charge,
  EventAvailability,
  InventoryType,
  LineTotals,
  Money,
  OrderPayment,
  OrderRecord,
  OrderStatus,
  PrintAction,
  ShippingOption,
} from '../app/partner-cart.js';

const STATUS: Record<CartStatusMessage, CartStatus> = {
  [CartStatusMessage.CART_STATUS_UNSPECIFIED]: 'UNSPECIFIED',
  [CartStatusMessage.CART_STATUS_PENDING]: 'PENDING',
  [CartStatusMessage.CART_STATUS_HELD]: 'HELD',
  [CartStatusMessage.CART_STATUS_PAID]: 'PAID',
  [CartStatusMessage.CART_STATUS_COMMITTED]: 'COMMITTED',
  [CartStatusMessage.CART_STATUS_RELEASED]: 'RELEASED',
  [CartStatusMessage.CART_STATUS_EXPIRED]: 'EXPIRED',
  [CartStatusMessage.CART_STATUS_FAILED]: 'FAILED',
  [CartStatusMessage.UNRECOGNIZED]: 'UNSPECIFIED',
};

const ORDER_STATUS: Record<OrderStatusMessage, OrderStatus> = {
  [OrderStatusMessage.ORDER_STATUS_UNSPECIFIED]: 'UNSPECIFIED',
  [OrderStatusMessage.ORDER_STATUS_CONFIRMED]: 'CONFIRMED',
  [OrderStatusMessage.ORDER_STATUS_CANCELLED]: 'CANCELLED',
  [OrderStatusMessage.UNRECOGNIZED]: 'UNSPECIFIED',
};

export const PRINT_ACTION: Record<PrintAction, PrintActionMessage> = {
  PRINT: PrintActionMessage.PRINT_ACTION_PRINT,
  ROLLBACK_PRINT: PrintActionMessage.PRINT_ACTION_ROLLBACK_PRINT,
};

export const CANCEL_REASON: Record<CancelReason, CancelReasonMessage> = {
  REQUESTED: CancelReasonMessage.CANCEL_REASON_REQUESTED,
  EVENT_CANCELLED: CancelReasonMessage.CANCEL_REASON_EVENT_CANCELLED,
  RECONCILIATION: CancelReasonMessage.CANCEL_REASON_RECONCILIATION,
  PAYMENT_REVERSED: CancelReasonMessage.CANCEL_REASON_PAYMENT_REVERSED,
};

const inventoryType = (t: InventoryTypeMessage): InventoryType =>
  t === InventoryTypeMessage.INVENTORY_TYPE_RESALE ? 'RESALE' : 'PRIMARY';

const money = (m: Money | undefined): Money | undefined =>
  m === undefined ? undefined : { amountMinor: m.amountMinor, currency: m.currency };

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

function toCharge(c: ChargeMessage): Charge {
  return {
    type: c.type,
    ...optional('price', money(c.price)),
    quantity: c.quantity,
    ...optional('tax', money(c.tax)),
    feeType: c.feeType,
  };
}

function toLineTotals(t: LineTotalsMessage | undefined): LineTotals {
  return {
    ...optional('merchandise', money(t?.merchandise)),
    ...optional('fee', money(t?.fee)),
    ...optional('tax', money(t?.tax)),
    ...optional('grand', money(t?.grand)),
  };
}

export function toShippingOption(s: ShippingOptionMessage): ShippingOption {
  return {
    id: s.id,
    carrier: s.carrier,
    serviceLevel: s.serviceLevel,
    requiresAddress: s.requiresAddress,
    descriptionLong: s.descriptionLong,
    descriptionShort: s.descriptionShort,
    eta: s.eta,
    totals: toLineTotals(s.totals),
    rank: s.rank,
  };
}

export function toCartOrder(o: CartOrderMessage): CartOrder {
  return {
    orderId: o.orderId,
    orderNumber: o.orderNumber,
    ...optional('grandTotal', money(o.grandTotal)),
    redemptionUrl: o.redemptionUrl,
    status: ORDER_STATUS[o.status] ?? 'UNSPECIFIED',
    ...optional('confirmedAt', o.confirmedAt),
    printed: o.printed,
    ...optional('payment', o.payment && toOrderPayment(o.payment)),
    ...optional(
      'pendingTicketCancel',
      o.pendingTicketCancel && {
        ticketIds: o.pendingTicketCancel.ticketIds,
        ...optional('requestedAt', o.pendingTicketCancel.requestedAt),
        attempts: o.pendingTicketCancel.attempts,
        lastError: o.pendingTicketCancel.lastError,
        ...optional('nextAttemptAt', o.pendingTicketCancel.nextAttemptAt),
      },
    ),
  };
}

export function toOrderPayment(p: OrderPaymentMessage): OrderPayment {
  return {
    provider: p.provider,
    paymentId: p.paymentId,
    ...optional('authorized', money(p.authorized)),
    ...optional('captured', money(p.captured)),
    ...optional('refunded', money(p.refunded)),
    refunds: p.refunds.map((r) => ({
      refundId: r.refundId,
      ...optional('amount', money(r.amount)),
      status: r.status,
      source: r.source,
      ticketIds: r.ticketIds,
      ...optional('refundedAt', r.refundedAt),
    })),
    refundPending: p.refundPending,
    disputed: p.disputed,
    refusedRefunds: p.refusedRefunds.map((r) => ({
      key: r.key,
      reason: r.reason,
      ...optional('refusedAt', r.refusedAt),
    })),
  };
}

export function toCartRecord(c: Cart): CartRecord {
  const t = c.totals;
  return {
    id: c.id,
    eventId: c.eventId,
    status: STATUS[c.status] ?? 'UNSPECIFIED',
    holdTimeSeconds: c.holdTimeSeconds,
    ...optional('expiresAt', c.expiresAt),
    language: c.language,
    ticketItems: c.ticketItems.map((line) => ({
      id: line.id,
      areaId: line.areaId,
      areaDescription: line.areaDescription,
      section: line.section,
      row: line.row,
      startSeat: line.startSeat,
      endSeat: line.endSeat,
      generalAdmission: line.generalAdmission,
      quantity: line.quantity,
      tickets: line.tickets.map((ticket) => ({
        id: ticket.id,
        description: ticket.description,
        quantity: ticket.quantity,
        inventoryType: inventoryType(ticket.inventoryType),
        charges: ticket.charges.map(toCharge),
        priceLevelId: ticket.priceLevelId,
      })),
      totals: toLineTotals(line.totals),
      seats: line.seats,
      inventoryType: inventoryType(line.inventoryType),
      ...optional(
        'resale',
        line.resale && {
          location: line.resale.location,
          sellerNotes: line.resale.sellerNotes,
          ...optional('averageOriginalTotalValue', money(line.resale.averageOriginalTotalValue)),
          inHandDate: line.resale.inHandDate,
        },
      ),
    })),
    ...optional('delivery', c.delivery && toShippingOption(c.delivery)),
    ...optional('processingFee', money(c.processingFee)),
    ...optional('processingFeeTax', money(c.processingFeeTax)),
    payments: c.payments.map((p) => ({
      id: p.id,
      paymentId: p.paymentId,
      type: p.type,
      ...optional('amount', money(p.amount)),
      expireMonth: p.expireMonth,
      expireYear: p.expireYear,
      issuer: p.issuer,
      maskedNumber: p.maskedNumber,
    })),
    agreements: c.agreements.map((a) => ({
      name: a.name,
      locale: a.locale,
      text: a.text,
      type: a.type,
      agreementUrl: a.agreementUrl,
    })),
    totals: {
      ...optional('merchandise', money(t?.merchandise)),
      ...optional('fee', money(t?.fee)),
      ...optional('tax', money(t?.tax)),
      ...optional('delivery', money(t?.delivery)),
      ...optional('upsell', money(t?.upsell)),
      ...optional('grand', money(t?.grand)),
      ...optional('unpaid', money(t?.unpaid)),
    },
    currency: c.currency,
    sandbox: c.sandbox,
    ...optional('order', c.order && toCartOrder(c.order)),
    failureCode: c.failureCode,
    failureMessage: c.failureMessage,
    secureEntryEnabled: c.secureEntryEnabled,
    ...optional('createdAt', c.createdAt),
  };
}

export function toEventAvailability(a: GetEventAvailabilityResponse): EventAvailability {
  return {
    eventId: a.eventId,
    secureEntryEnabled: a.secureEntryEnabled,
    currency: a.currency,
    ticketLimit: a.ticketLimit,
    onSale: a.onSale,
    areas: a.areas.map((area) => ({
      areaId: area.areaId,
      levelId: area.levelId,
      sectionId: area.sectionId,
      priceLevelId: area.priceLevelId,
      generalAdmission: area.generalAdmission,
      available: area.available,
      unavailable: area.unavailable,
      availableSeats: area.availableSeats.map((s) => ({ id: s.id, row: s.row, number: s.number })),
    })),
    totalAvailable: a.totalAvailable,
    offers: a.offers.map((o) => ({
      ticketTypeId: o.ticketTypeId,
      priceLevelId: o.priceLevelId,
      name: o.name,
      ...optional('faceValue', money(o.faceValue)),
      charges: o.charges.map(toCharge),
      protected: o.protected,
    })),
    ...optional('observedAt', a.observedAt),
    ...optional('onsaleAt', a.onsaleAt),
    ...optional('offsaleAt', a.offsaleAt),
  };
}

export function toOrderRecord(
  o: Pick<GetOrderResponse, 'order' | 'eventId' | 'cartId' | 'tickets'>,
): OrderRecord {
  return {
    order: toCartOrder(o.order!),
    eventId: o.eventId,
    cartId: o.cartId,
    tickets: toOrderTickets(o.tickets),
  };
}

/** Cart's order tickets as the edge's records (the cancelled ones with `cancelledAt`). */
export function toOrderTickets(tickets: GetOrderResponse['tickets']): OrderRecord['tickets'] {
  return tickets.map((t) => ({
    ticketId: t.ticketId,
    seat: t.seat,
    areaId: t.item?.areaId ?? '',
    section: t.item?.section ?? '',
    row: t.item?.row ?? '',
    priceLevelId: t.item?.priceLevelId ?? '',
    priceTypeId: t.item?.priceTypeId ?? '',
    ...optional('unitPrice', money(t.item?.unitPrice)),
    inventoryType: inventoryType(
      t.item?.inventoryType ?? InventoryTypeMessage.INVENTORY_TYPE_PRIMARY,
    ),
    ...optional('cancelledAt', t.cancelledAt),
  }));
}

/** An order with nothing in it, for answers that carry none. */
export function emptyOrder(): CartOrderMessage {
  return {
    orderId: '',
    orderNumber: '',
    redemptionUrl: '',
    status: OrderStatusMessage.ORDER_STATUS_UNSPECIFIED,
    printed: false,
  };
}
