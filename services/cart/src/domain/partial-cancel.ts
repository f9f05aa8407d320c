import { backoffMs } from '@marquee/platform/kernel';
import { createHash } from 'node:crypto';
import { CartError, ErrorCode, invalidInput, staleCart } from './errors.js';
import {
  owedRefundsOf,
  refundsBarred,
  unclaimedMinor,
  withOwedRefunds,
  type CancelReason,
  type Order,
  type PendingTicketCancel,
  type RefundOwed,
} from './order.js';
import { orderFees, ticketPrice, type FeeSchedule } from './pricing.js';

/**
 * A cancel of some tickets of an order (docs/payments.md, "Refunds"). The order stays CONFIRMED
 * while it keeps a valid ticket; its cancelled tickets carry `cancelledAt`, and the cancel itself
 * is kept in `ticketCancels`. The cancel of its last valid tickets makes it CANCELLED, as a whole
 * cancel does. What is refunded:
 *
 * - some tickets stay valid: exactly those tickets' share of what was charged, each ticket's
 *   `ticketPrice` under the fee schedule the order was priced with (face value, service fee, the
 *   fee's tax). The order's processing fee (and its tax) and the delivery stay charged: they are
 *   the order's, and the order goes on;
 * - the last valid tickets: everything captured and not refunded or owed yet, which is their
 *   share plus the order's processing fee, its tax and the delivery.
 *
 * Each partial cancel is its own refund, keyed `order:<order id>:<sorted ticket ids>`.
 *
 * The partner is asked before any ticket is marked, and the request is recorded on the order first
 * (`ticketCancelPending`): a partner that took the cancel while its answer or the write after it
 * was lost (a crash, a timeout) is asked again by the sweeper, which the 3P contract allows (a
 * repeated partial cancel of the same tickets succeeds), until the partner took or refused it. One
 * partial cancel is pending per order at a time.
 */

/** Longest refund key kept as it is; Stripe takes idempotency keys of up to 255 characters. */
export const MAX_READABLE_REFUND_KEY = 200;

/**
 * The idempotency key of a partial cancel's refund: `order:<id>:<sorted ticket ids, comma
 * separated>`, or `order:<id>:sha256:<hex of those ids>` when that is longer than
 * {@link MAX_READABLE_REFUND_KEY} (the processor prefixes `refund:` and caps keys at 255).
 */
export function partialRefundKey(orderId: string, sortedTicketIds: readonly string[]): string {
  const readable = `order:${orderId}:${sortedTicketIds.join(',')}`;
  if (readable.length <= MAX_READABLE_REFUND_KEY) return readable;
  const digest = createHash('sha256').update(sortedTicketIds.join('\n')).digest('hex');
  return `order:${orderId}:sha256:${digest}`;
}

/** The tickets of the order that are still valid. */
export const validTickets = (order: Order) => order.tickets.filter((t) => !t.cancelledAt);

/**
 * The share of `ticketIds` in what the order charged: their `ticketPrice` totals under `fees`.
 * Refuses (failed_precondition) an order whose totals are not its tickets' prices under `fees`
 * plus the order fees and delivery: its charge cannot be split per ticket, so only a whole cancel
 * can refund it.
 */
export function ticketsShareMinor(
  order: Order,
  ticketIds: readonly string[],
  fees: FeeSchedule,
): number {
  const priceOf = (face: number) => ticketPrice(face, fees).totalMinor;
  const all = order.tickets.reduce((sum, t) => sum + priceOf(t.faceValueMinor), 0);
  const perOrder = order.tickets.length > 0 ? orderFees(fees).totalMinor : 0;
  if (all + perOrder + order.deliveryMinor !== order.grandMinor)
    throw staleCart(
      `order ${order.id} was not priced per ticket with the fee schedule known here: cancel the whole order`,
      { order_id: order.id },
    );
  const wanted = new Set(ticketIds);
  return order.tickets
    .filter((t) => wanted.has(t.ticketId))
    .reduce((sum, t) => sum + priceOf(t.faceValueMinor), 0);
}

/** What a partial cancel request comes to. */
export type TicketCancelPlan =
  /** The same tickets were cancelled together before: nothing to do. */
  | { kind: 'repeat' }
  | {
      kind: 'cancel';
      /** Sorted, without repeats. */
      ticketIds: string[];
      /** No valid ticket is left after it: the order becomes CANCELLED. */
      last: boolean;
      /** The refund it owes (none for a reversed or disputed payment, or nothing left). */
      owed: RefundOwed | undefined;
    };

/**
 * Checks a request to cancel `requested` tickets of `order` and plans it. Unknown ticket ids:
 * invalid_argument (10002, `details.ticket_ids`). A request naming exactly the tickets of an
 * earlier partial cancel is a repeat (idempotent). A ticket cancelled already by another request,
 * or a cancelled order: failed_precondition (90003).
 */
export function planTicketCancel(
  order: Order,
  requested: readonly string[],
  reason: CancelReason,
  fees: FeeSchedule,
): TicketCancelPlan {
  const ticketIds = [...new Set(requested)].sort();
  const known = new Set(order.tickets.map((t) => t.ticketId));
  const unknown = ticketIds.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw Object.assign(
      invalidInput(`order ${order.id} has no ticket ${unknown.join(', ')}`, 'ticket_ids'),
      { details: { reason: ErrorCode.INVALID_INPUT, field: 'ticket_ids', ticket_ids: unknown } },
    );
  const sameSet = (ids: readonly string[]) =>
    ids.length === ticketIds.length && ids.every((id, i) => id === ticketIds[i]);
  if ((order.ticketCancels ?? []).some((c) => sameSet(c.ticketIds))) return { kind: 'repeat' };
  const pending = order.ticketCancelPending;
  if (pending && order.status !== 'CANCELLED' && !sameSet(pending.ticketIds))
    throw staleCart(
      `the cancel of ticket ${pending.ticketIds.join(', ')} of order ${order.id} is still waiting for the partner: retry once it is done`,
      { order_id: order.id, pending_ticket_ids: pending.ticketIds },
    );
  if (order.status === 'CANCELLED')
    throw staleCart(`order ${order.id} is cancelled: none of its tickets can be cancelled`, {
      order_id: order.id,
    });
  const cancelled = order.tickets
    .filter((t) => t.cancelledAt && ticketIds.includes(t.ticketId))
    .map((t) => t.ticketId);
  if (cancelled.length > 0)
    throw new CartError(
      'failed_precondition',
      ErrorCode.INVALID_CART,
      `ticket ${cancelled.join(', ')} of order ${order.id} is cancelled already`,
      { order_id: order.id, ticket_ids: cancelled },
    );
  const last = validTickets(order).every((t) => ticketIds.includes(t.ticketId));
  if (refundsBarred(order, reason)) return { kind: 'cancel', ticketIds, last, owed: undefined };
  const unclaimed = unclaimedMinor(order);
  const amountMinor = last
    ? unclaimed
    : Math.min(unclaimed, ticketsShareMinor(order, ticketIds, fees));
  const owed =
    amountMinor > 0
      ? { key: partialRefundKey(order.id, ticketIds), amountMinor, ticketIds }
      : undefined;
  return { kind: 'cancel', ticketIds, last, owed };
}

/**
 * The order after a planned partial cancel at `now`: the tickets marked, the cancel kept, the
 * refund owed added to the list, and CANCELLED (with reason and detail) when no ticket is left.
 */
export function withTicketsCancelled(
  order: Order,
  plan: Extract<TicketCancelPlan, { kind: 'cancel' }>,
  meta: { reason: CancelReason; detail: string; now: Date },
): Order {
  const { reason, detail, now } = meta;
  const cancelling = new Set(plan.ticketIds);
  const next: Order = {
    ...withoutTicketCancelPending(order),
    tickets: order.tickets.map((t) =>
      cancelling.has(t.ticketId) ? { ...t, cancelledAt: now } : t,
    ),
    ticketCancels: [
      ...(order.ticketCancels ?? []),
      {
        ticketIds: plan.ticketIds,
        at: now,
        reason,
        detail,
        ...(plan.owed ? { refundKey: plan.owed.key } : {}),
      },
    ],
    ...(plan.last
      ? {
          status: 'CANCELLED' as const,
          cancelledAt: now,
          cancelReason: reason,
          cancelDetail: detail,
        }
      : {}),
  };
  if (!plan.owed) return next;
  return withOwedRefunds(next, [...owedRefundsOf(order), plan.owed], now);
}

/**
 * The order with the partial cancel of `ticketIds` recorded as asked of the partner, due for the
 * sweeper at `dueAt`; the attempts so far are kept when the same cancel was pending already.
 */
export function withTicketCancelPending(
  order: Order,
  ticketIds: readonly string[],
  meta: { reason: CancelReason; detail: string; now: Date; dueAt: Date },
): Order {
  const same = order.ticketCancelPending?.ticketIds.join(',') === ticketIds.join(',');
  const pending: PendingTicketCancel = same
    ? order.ticketCancelPending!
    : {
        ticketIds: [...ticketIds],
        reason: meta.reason,
        detail: meta.detail,
        requestedAt: meta.now,
        attempts: 0,
      };
  return { ...order, ticketCancelPending: pending, ticketCancelDueAt: meta.dueAt };
}

/** The order after the partner gave no answer to its pending cancel: asked again at `dueAt`. */
export function withTicketCancelUnanswered(order: Order, error: string, dueAt: Date): Order {
  const pending = order.ticketCancelPending;
  if (!pending) return order;
  return {
    ...order,
    ticketCancelPending: { ...pending, attempts: pending.attempts + 1, lastError: error },
    ticketCancelDueAt: dueAt,
  };
}

/** The order without a pending partial cancel. */
export function withoutTicketCancelPending(order: Order): Order {
  const { ticketCancelPending: _pending, ticketCancelDueAt: _due, ...rest } = order;
  return rest;
}

/** The longest pause between two asks of the partner for a pending partial cancel. */
export const MAX_TICKET_CANCEL_PAUSE_MS = 300_000;

/**
 * How long the sweeper waits before asking the partner again after `attempts` unanswered asks:
 * `firstMs`, doubling, at most {@link MAX_TICKET_CANCEL_PAUSE_MS}.
 */
export function ticketCancelPauseMs(firstMs: number, attempts: number): number {
  return backoffMs(attempts + 1, { firstMs, maxMs: MAX_TICKET_CANCEL_PAUSE_MS });
}
