/** The partner cart contract's messages of cart's views: carts, orders, shipping, availability. */
import {
  CartStatus,
  OrderStatus,
  type Cart as ProtoCart,
  type CartOrder,
  type Charge as ProtoCharge,
  type GetEventAvailabilityResponse,
  type LineTotals,
  type ShippingOption as ProtoShippingOption,
} from '@marquee/proto/cart/v1';
import { inventoryTypeOf } from '../../adapters/inventory-type.js';
import { orderPaymentMessage } from '../../adapters/messages.js';
import type { CartApp, CartView, EventAvailability } from '../../app/index.js';
import type { Cart } from '../../domain/cart.js';
import type { Order } from '../../domain/order.js';
import type { Charge, PricedLine, Totals } from '../../domain/pricing.js';
import type { ShippingOption } from '../../domain/shipping.js';

const STATUS: Record<string, CartStatus> = {
  PENDING: CartStatus.CART_STATUS_PENDING,
  HELD: CartStatus.CART_STATUS_HELD,
  PAID: CartStatus.CART_STATUS_PAID,
  COMMITTED: CartStatus.CART_STATUS_COMMITTED,
  RELEASED: CartStatus.CART_STATUS_RELEASED,
  EXPIRED: CartStatus.CART_STATUS_EXPIRED,
  FAILED: CartStatus.CART_STATUS_FAILED,
};

const money = (amountMinor: number, currency: string) => ({ amountMinor, currency });

const lineTotals = (t: Totals, currency: string): LineTotals => ({
  merchandise: money(t.merchandise, currency),
  fee: money(t.fee, currency),
  tax: money(t.tax, currency),
  grand: money(t.grand, currency),
});

const charge = (c: Charge, currency: string): ProtoCharge => ({
  type: c.type,
  price: money(c.priceMinor, currency),
  quantity: c.quantity,
  tax: money(c.taxMinor, currency),
  feeType: c.feeType,
});

export function shippingOptionMessage(o: ShippingOption, currency: string): ProtoShippingOption {
  return {
    id: o.id,
    carrier: o.carrier,
    serviceLevel: o.serviceLevel,
    requiresAddress: o.requiresAddress,
    descriptionLong: o.descriptionLong,
    descriptionShort: o.descriptionShort,
    eta: o.eta,
    totals: lineTotals({ merchandise: 0, fee: o.feeMinor, tax: 0, grand: o.feeMinor }, currency),
    rank: o.rank,
  };
}

export function cartOrderMessage(order: Order, redemptionUrl: string): CartOrder {
  return {
    orderId: order.id,
    orderNumber: order.orderNumber,
    grandTotal: money(order.grandMinor, order.currency),
    redemptionUrl,
    status:
      order.status === 'CANCELLED'
        ? OrderStatus.ORDER_STATUS_CANCELLED
        : OrderStatus.ORDER_STATUS_CONFIRMED,
    confirmedAt: order.confirmedAt,
    printed: order.printed === 'PRINT',
    payment: orderPaymentMessage(order),
    ...(order.ticketCancelPending
      ? {
          pendingTicketCancel: {
            ticketIds: order.ticketCancelPending.ticketIds,
            requestedAt: order.ticketCancelPending.requestedAt,
            attempts: order.ticketCancelPending.attempts,
            lastError: order.ticketCancelPending.lastError ?? '',
            ...(order.ticketCancelDueAt ? { nextAttemptAt: order.ticketCancelDueAt } : {}),
          },
        }
      : {}),
  };
}

/** `Cart.items`: one per seat row and (price type, price level), with the seats held in it. */
function cartItems(view: CartView): ProtoCart['items'] {
  const { cart, priced } = view;
  const c = cart.currency;
  return priced.lines.flatMap((line) =>
    line.groups.map((g) => ({
      areaId: line.areaId,
      section: line.section,
      row: line.row,
      seats: cart.tickets
        .filter(
          (t) =>
            t.areaId === line.areaId &&
            t.section === line.section &&
            t.row === line.row &&
            t.priceTypeId === g.priceTypeId &&
            t.priceLevelId === g.priceLevelId &&
            t.seat !== '',
        )
        .map((t) => t.seat),
      priceLevelId: g.priceLevelId,
      priceTypeId: g.priceTypeId,
      quantity: g.quantity,
      unitPrice: money(g.faceValueMinor, c),
      inventoryType: inventoryTypeOf(g.priceTypeId),
    })),
  );
}

/** A priced line as `Cart.ticket_items[]`, with its resale details when it is a listing. */
function ticketItem(line: PricedLine, c: string): ProtoCart['ticketItems'][number] {
  return {
    id: line.lineNumber,
    areaId: line.areaId,
    areaDescription: line.areaDescription,
    section: line.section,
    row: line.row,
    startSeat: line.seats[0] ?? '',
    endSeat: line.seats[line.seats.length - 1] ?? '',
    generalAdmission: line.generalAdmission,
    quantity: line.quantity,
    tickets: line.groups.map((g) => ({
      id: g.priceTypeId,
      description: [g.priceLevelId, g.priceTypeId].filter(Boolean).join(' / ') || g.priceTypeId,
      quantity: g.quantity,
      inventoryType: inventoryTypeOf(g.priceTypeId),
      charges: g.charges.map((ch) => charge(ch, c)),
      priceLevelId: g.priceLevelId,
    })),
    totals: lineTotals(line.totals, c),
    seats: line.seats,
    inventoryType: inventoryTypeOf(line.groups[0]?.priceTypeId ?? ''),
    resale: line.resale && {
      location: line.resale.location,
      sellerNotes: line.resale.sellerNotes,
      averageOriginalTotalValue: money(line.resale.averageOriginalTotalMinor, c),
      inHandDate: line.resale.inHandDate,
    },
  };
}

/** `Cart.payments`: the cart's one payment, masked, or none. */
function cartPayments(cart: Cart): ProtoCart['payments'] {
  if (!cart.payment) return [];
  return [
    {
      id: '1',
      paymentId: cart.payment.paymentId,
      type: cart.payment.type,
      amount: money(cart.payment.amountMinor, cart.currency),
      expireMonth: cart.payment.expireMonth,
      expireYear: cart.payment.expireYear,
      issuer: cart.payment.issuer,
      maskedNumber: cart.payment.maskedNumber,
    },
  ];
}

/** A cart view as the partner cart contract's `Cart`. */
export function cartMessage(view: CartView, app: CartApp): ProtoCart {
  const { cart, priced } = view;
  const c = cart.currency;
  return {
    id: cart.id,
    eventId: cart.eventId,
    items: cartItems(view),
    totals: {
      merchandise: money(priced.totals.merchandise, c),
      fee: money(priced.totals.fee, c),
      tax: money(priced.totals.tax, c),
      delivery: money(priced.totals.delivery, c),
      upsell: money(priced.totals.upsell, c),
      grand: money(priced.totals.grand, c),
      unpaid: money(priced.totals.unpaid, c),
    },
    holdTimeSeconds: view.holdSeconds,
    expiresAt: cart.status === 'HELD' || cart.status === 'PAID' ? cart.expiresAt : undefined,
    language: cart.language,
    status: STATUS[cart.status] ?? CartStatus.CART_STATUS_UNSPECIFIED,
    ticketItems: priced.lines.map((line) => ticketItem(line, c)),
    delivery: cart.delivery ? shippingOptionMessage(cart.delivery, c) : undefined,
    processingFee: priced.processing ? money(priced.processing.priceMinor, c) : undefined,
    processingFeeTax: priced.processing ? money(priced.processing.taxMinor, c) : undefined,
    payments: cartPayments(cart),
    agreements: view.agreements.map((a) => ({
      name: a.name,
      locale: a.locale,
      text: a.text,
      type: a.type,
      agreementUrl: a.agreementUrl,
    })),
    currency: c,
    sandbox: cart.sandbox,
    order: view.order ? cartOrderMessage(view.order, app.redemptionUrl(view.order)) : undefined,
    failureCode: cart.failure?.code ?? '',
    failureMessage: cart.failure?.message ?? '',
    secureEntryEnabled: cart.secureEntryEnabled,
    createdAt: cart.createdAt,
  };
}

/** An event's availability and offers as `GetEventAvailabilityResponse`. */
export function availabilityMessage(a: EventAvailability): GetEventAvailabilityResponse {
  const c = a.event.currency;
  return {
    eventId: a.event.id,
    secureEntryEnabled: a.event.secureEntryEnabled,
    currency: c,
    ticketLimit: a.event.ticketLimit,
    onSale: a.onSale,
    areas: a.areas.map(({ seats, ...area }) => ({ ...area, availableSeats: seats ?? [] })),
    totalAvailable: a.totalAvailable,
    offers: a.offers.map((o) => ({
      ticketTypeId: o.priceTypeId,
      priceLevelId: o.priceLevelId,
      name: o.name,
      faceValue: money(o.faceValueMinor, c),
      charges: [
        {
          type: 'service',
          price: money(o.serviceFeeMinor, c),
          quantity: 1,
          tax: money(o.serviceFeeTaxMinor, c),
          feeType: 'per ticket',
        },
        ...(o.processingFeeMinor > 0
          ? [
              {
                type: 'processing',
                price: money(o.processingFeeMinor, c),
                quantity: 1,
                tax: money(o.processingFeeTaxMinor, c),
                feeType: 'per order',
              },
            ]
          : []),
      ],
      protected: o.protected,
    })),
    observedAt: a.observedAt,
    onsaleAt: a.event.onSaleFrom,
    offsaleAt: a.event.onSaleUntil,
  };
}
