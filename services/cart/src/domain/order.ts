import type { CartChannel } from './cart.js';
import type { FeeSchedule } from './pricing.js';
import type { ShippingOption } from './shipping.js';

export type OrderStatus = 'CONFIRMED' | 'CANCELLED';

export type CancelReason = 'requested' | 'event-cancelled' | 'reconciliation' | 'payment-reversed';

/** One sold ticket. */
export interface OrderTicket {
  /** The partner's ticket id (sandbox: `<cart id>-<n>`). */
  ticketId: string;
  areaId: string;
  section: string;
  row: string;
  seat: string;
  priceLevelId: string;
  priceTypeId: string;
  faceValueMinor: number;
  generalAdmission: boolean;
  /** When this ticket was cancelled by a partial cancel; absent while it is valid. */
  cancelledAt?: Date;
}

/** One partial cancel of an order: the tickets it cancelled together, and why. */
export interface TicketCancel {
  /** The partner's ticket ids, sorted. */
  ticketIds: string[];
  at: Date;
  reason: CancelReason;
  detail: string;
  /** The idempotency key of its refund (`order:<id>:<ticket ids>`); absent when it owed none. */
  refundKey?: string;
}

/** A partial cancel recorded on the order before the partner was asked (see `Order`). */
export interface PendingTicketCancel {
  /** The partner's ticket ids, sorted. */
  ticketIds: string[];
  reason: CancelReason;
  detail: string;
  requestedAt: Date;
  /** Times the partner was asked and gave no answer (the sweeper's pause grows with it). */
  attempts: number;
  /** The last failure to reach the partner, for operators. */
  lastError?: string;
}

/** An owed refund the processor refused for good. */
export interface RefundRefusal {
  /** The owed refund's idempotency key. */
  key: string;
  reason: string;
  at: Date;
}

/** An order as the platform sees it: written once at commit, then only its status changes. */
export interface Order {
  /** Platform order id (the partner's idempotency key of the confirmation). */
  id: string;
  /** Short id shown to the buyer. */
  orderNumber: string;
  cartId: string;
  appId: string;
  channel: CartChannel;
  fanId?: string;
  eventId: string;
  partnerId: string;
  sandbox: boolean;
  inventoryToken: string;
  /** The partner's order id (`''` in the sandbox). */
  inventoryOrderId: string;
  status: OrderStatus;
  currency: string;
  tickets: OrderTicket[];
  merchandiseMinor: number;
  feeMinor: number;
  taxMinor: number;
  deliveryMinor: number;
  grandMinor: number;
  delivery: ShippingOption;
  /** The processor's payment id (also `payment.paymentId`). */
  paymentId: string;
  /** The money of the order: what was authorised, captured and refunded (see `paymentOf`). */
  payment?: OrderPayment;
  /**
   * The fee schedule the order was priced with (the cart's, at commit): a partial cancel refunds
   * its tickets' share with it. Absent on orders written before it was kept.
   */
  fees?: FeeSchedule;
  /** The partial cancels of the order, oldest first (`tickets[].cancelledAt` marks the tickets). */
  ticketCancels?: TicketCancel[];
  /**
   * A partial cancel asked of the partner whose outcome is not written yet (recorded before the
   * partner is asked; `partial-cancel.ts`). The sweeper asks again from `ticketCancelDueAt`.
   */
  ticketCancelPending?: PendingTicketCancel;
  /** When the sweeper next asks the partner for `ticketCancelPending`; absent without one. */
  ticketCancelDueAt?: Date;
  /**
   * Refunds the order still owes (its cancels wrote them), oldest first; the sweeper retries them
   * until done. Read through `owedRefundsOf`, which also reads `refundOwed`.
   */
  refundsOwed?: RefundOwed[];
  /** The one owed refund of orders written before an order could owe several; read only. */
  refundOwed?: RefundOwed;
  /** When the owed refunds are next tried (some owed); absent otherwise. */
  refundDueAt?: Date;
  /** Owed refunds the processor refused for good, oldest first: an operator settles each. */
  refundsRefused?: RefundRefusal[];
  /** The one refusal of orders written before an order kept them all; read only. */
  refundRefused?: RefundRefusal;
  customerEmail: string;
  thirdPartyAccountId: string;
  /**
   * When the buyer's contact was erased (the fan was deleted): `customerEmail`,
   * `thirdPartyAccountId` and `fanId` are blank since; the order stays as a commercial record.
   */
  contactErasedAt?: Date;
  secureEntryEnabled: boolean;
  /** Hex SHA-256 of the order token. */
  tokenSha256: string;
  confirmedAt: Date;
  cancelledAt?: Date;
  cancelReason?: CancelReason;
  cancelDetail?: string;
  /** A resale order: the partner's ticket ids of the seller's order that this order replaces. */
  resoldTicketIds?: string[];
  /** A resale order: the seller's order. */
  resoldFromOrderId?: string;
  /** Last print action recorded at the partner. */
  printed?: 'PRINT' | 'ROLLBACK_PRINT';
}

/** One refund of an order's payment. */
export interface OrderRefund {
  /** The processor's refund id. */
  refundId: string;
  amountMinor: number;
  /** `pending` until the processor has settled it. */
  status: 'succeeded' | 'pending';
  /** `cancel`: the order's cancel asked for it; `processor`: made at the processor (dashboard). */
  source: 'cancel' | 'processor';
  /** The tickets it refunds; empty for the whole order. */
  ticketIds: string[];
  at: Date;
}

/** The money of an order, in minor units of the order's currency. */
export interface OrderPayment {
  /** The processor that holds the payment (`stripe`, `sandbox`). */
  provider: string;
  /** The processor's payment id (Stripe PaymentIntent id, `sbx_...` in the sandbox). */
  paymentId: string;
  authorizedMinor: number;
  capturedMinor: number;
  /** Sum of `refunds`. */
  refundedMinor: number;
  refunds: OrderRefund[];
  /** The cardholder disputed the payment at the issuer (a chargeback). */
  dispute?: { disputeId: string; reason: string; at: Date };
}

/** A refund the order owes: tried now, and again by the sweeper until the processor took it. */
export interface RefundOwed {
  /** Idempotency key of the refund at the processor (derived from the order). */
  key: string;
  amountMinor: number;
  ticketIds: string[];
}

/**
 * The payment of an order. Orders written before the order kept its money carry only the payment
 * id: their payment is the grand total, authorised and captured, on the processor the id belongs to.
 */
export function paymentOf(order: Order): OrderPayment {
  if (order.payment) return order.payment;
  return {
    provider: order.paymentId.startsWith('sbx_') ? 'sandbox' : 'stripe',
    paymentId: order.paymentId,
    authorizedMinor: order.grandMinor,
    capturedMinor: order.grandMinor,
    refundedMinor: 0,
    refunds: [],
  };
}

/** The order with `refund` on its payment; unchanged when a refund of that id is there already. */
export function withRefund(order: Order, refund: OrderRefund): Order {
  const payment = paymentOf(order);
  const known = payment.refunds.find((r) => r.refundId === refund.refundId);
  if (known && known.status === refund.status && known.amountMinor === refund.amountMinor)
    return order;
  const refunds = known
    ? payment.refunds.map((r) => (r.refundId === refund.refundId ? { ...r, ...refund } : r))
    : [...payment.refunds, refund];
  return {
    ...order,
    payment: {
      ...payment,
      refunds,
      refundedMinor: refunds.reduce((sum, r) => sum + r.amountMinor, 0),
    },
  };
}

/** What is captured and not refunded yet. */
export function refundableMinor(order: Order): number {
  const payment = paymentOf(order);
  return Math.max(0, payment.capturedMinor - payment.refundedMinor);
}

/** The refunds the order owes, oldest first (the list, or the one of an older order). */
export function owedRefundsOf(order: Order): RefundOwed[] {
  return order.refundsOwed ?? (order.refundOwed ? [order.refundOwed] : []);
}

/** What is captured and neither refunded nor owed already: what a new cancel may still refund. */
export function unclaimedMinor(order: Order): number {
  const owed = owedRefundsOf(order).reduce((sum, r) => sum + r.amountMinor, 0);
  return Math.max(0, refundableMinor(order) - owed);
}

/** The owed refunds the processor refused, oldest first (the list, or the one of an older order). */
export function refusedRefundsOf(order: Order): RefundRefusal[] {
  return order.refundsRefused ?? (order.refundRefused ? [order.refundRefused] : []);
}

/** The order with `refusal` added to its refused refunds (always written as the list). */
export function withRefundRefused(order: Order, refusal: RefundRefusal): Order {
  const { refundRefused: _one, ...rest } = order;
  return { ...rest, refundsRefused: [...refusedRefundsOf(order), refusal] };
}

/** No refund is made on a reversed or disputed payment: the issuer took the money back. */
export const refundsBarred = (order: Order, reason: CancelReason): boolean =>
  reason === 'payment-reversed' || paymentOf(order).dispute !== undefined;

/**
 * The order owing `owed` (its list replaced; `refundDueAt` set when any is owed, else removed):
 * always written as `refundsOwed`, never as the older single `refundOwed`.
 */
export function withOwedRefunds(order: Order, owed: RefundOwed[], dueAt: Date | undefined): Order {
  const { refundOwed: _one, refundsOwed: _list, refundDueAt: _due, ...rest } = order;
  if (owed.length === 0) return rest;
  return { ...rest, refundsOwed: owed, refundDueAt: dueAt ?? order.refundDueAt ?? new Date(0) };
}

/**
 * The refund a cancel of the whole order owes: what is captured and neither refunded nor owed by
 * an earlier partial cancel yet, under the key `order:<id>`, so that every retry asks the
 * processor for the same refund. Nothing when nothing is left to refund, or when the payment was
 * reversed by the card issuer (a dispute: the money went back already; a refund would pay twice).
 * A cancel of some tickets: `partial-cancel.ts`.
 */
export function refundOwedOnCancel(order: Order, reason: CancelReason): RefundOwed | undefined {
  if (refundsBarred(order, reason)) return undefined;
  const amountMinor = unclaimedMinor(order);
  if (amountMinor <= 0) return undefined;
  return { key: `order:${order.id}`, amountMinor, ticketIds: [] };
}

const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * A short order number people can read out: `MQ-` and 8 characters without look-alikes (0/O, 1/I),
 * from 8 random bytes given by the caller (the domain stays free of randomness).
 */
export function orderNumberFrom(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 8; i += 1) out += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  return `MQ-${out.slice(0, 4)}-${out.slice(4)}`;
}

/**
 * The order without its buyer's contact (the fan was deleted, docs/security.md "Personal data"):
 * no e-mail, partner account id or fan id; everything else (tickets, money, status) is kept.
 */
export function withoutContact(order: Order, at: Date): Order {
  const { fanId: _fanId, ...rest } = order;
  return { ...rest, customerEmail: '', thirdPartyAccountId: '', contactErasedAt: at };
}
