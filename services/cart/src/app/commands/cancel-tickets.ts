import { CartError, ErrorCode } from '../../domain/errors.js';
import type { CancelReason, Order } from '../../domain/order.js';
import {
  planTicketCancel,
  ticketCancelPauseMs,
  withTicketCancelPending,
  withTicketCancelUnanswered,
  withTicketsCancelled,
  withoutTicketCancelPending,
} from '../../domain/partial-cancel.js';
import type { FeeSchedule } from '../../domain/pricing.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import {
  ORDER_ALREADY_CANCELLED,
  partialCancelRefusal,
  partnerErrorIdOf,
} from '../core/refusals.js';
import type { Clock, Log, OrderRepository, PartnerConnector } from '../ports.js';

const SWEEP_BATCH = 50;
const DEFAULT_RETRY_MS = 15_000;

/** What a partial cancel request came to. */
export interface TicketCancelOutcome {
  order: Order;
  /** This request marked the tickets (a repeat or a cancel left pending did not). */
  changed: boolean;
  /** The partner did not answer: the cancel is kept on the order and asked again by the sweeper. */
  pending: boolean;
}

interface Request {
  orderId: string;
  ticketIds: readonly string[];
  reason: CancelReason;
  detail: string;
}

/**
 * Cancels some tickets of a confirmed order (a partial cancel; the rules and amounts are in
 * `domain/partial-cancel.ts` and docs/payments.md, "Cancelling some tickets of an order"):
 *
 * 1. The request is checked against the order (unknown tickets, tickets cancelled already, another
 *    partial cancel still pending; a repeat of an earlier partial cancel answers the order as is).
 * 2. The cancel is recorded on the order as pending (`ticketCancelPending`), then the partner is
 *    asked through 3p-connector. A partner that cancels whole orders only (310) or refuses: the
 *    pending cancel is cleared, nothing is marked or refunded, and the operator is told why. No
 *    answer: it stays pending, the operator is told so (`pending`), and the sweeper asks again.
 * 3. The partner took it: one write marks the tickets, clears the pending cancel, keeps the cancel,
 *    adds the refund owed to the order's debts and queues `order-cancelled` with the tickets
 *    (`partial` unless they were the last ones).
 *
 * So a partner that took the cancel while its answer or the write after it was lost (a crash, a
 * timeout, a conflict that outlasted the retries) is asked again by the sweeper (the 3P contract
 * makes a repeated partial cancel of the same tickets succeed) and the tickets are marked then: the
 * seats the partner freed never stay on valid tickets for longer than that.
 */
export class CancelOrderTickets {
  constructor(
    private readonly deps: {
      orders: OrderRepository;
      connector: PartnerConnector;
      clock: Clock;
      log: Log;
      settings: { fees: FeeSchedule; ticketCancelRetryMs?: number };
    },
  ) {}

  async handle(
    orderId: string,
    ticketIds: readonly string[],
    reason: CancelReason,
    detail: string,
  ): Promise<TicketCancelOutcome> {
    const request = { orderId, ticketIds, reason, detail };
    const found = await this.#order(orderId);
    const plan = planTicketCancel(found, ticketIds, reason, this.#fees(found));
    if (plan.kind === 'repeat')
      return { order: withoutVersion(found), changed: false, pending: false };
    if (found.sandbox || !found.inventoryOrderId) return this.#markCancelled(request);
    await this.#recordPending(request);
    return this.#askPartner(found, { ...request, ticketIds: plan.ticketIds });
  }

  /**
   * The sweeper's pass: asks the partner again for every pending partial cancel that is due, and
   * clears those the order no longer needs (cancelled whole meanwhile, or marked by another
   * replica). Resolves how many it handled.
   */
  async sweep(): Promise<number> {
    const { orders, clock, log } = this.deps;
    const due = await orders.findTicketCancelDue(clock.now(), SWEEP_BATCH);
    for (const order of due) {
      try {
        await this.#resume(order);
      } catch (error) {
        log.warn({ order_id: order.id, err: error }, 'pending ticket cancel not finished yet');
      }
    }
    return due.length;
  }

  async #resume(due: Order & { version: number }): Promise<void> {
    const { orders, clock } = this.deps;
    const pending = due.ticketCancelPending;
    const request = pending && { ...pending, orderId: due.id };
    if (!request || !this.#stillWanted(due, request)) {
      await orders.updateTicketCancelPending(
        withoutTicketCancelPending(withoutVersion(due)),
        due.version,
      );
      return;
    }
    // Claimed by moving its due time on (another replica's sweep then skips it; a conflict here
    // means another writer got there first, and this pass leaves it to them).
    const now = clock.now();
    const claimed = await orders.updateTicketCancelPending(
      { ...withoutVersion(due), ticketCancelDueAt: this.#retryAt(now, pending.attempts) },
      due.version,
    );
    await this.#askPartner(claimed, request);
  }

  /** Whether the pending cancel still has tickets to cancel on a confirmed order. */
  #stillWanted(order: Order, request: Request): boolean {
    if (order.status === 'CANCELLED') return false;
    try {
      return (
        planTicketCancel(order, request.ticketIds, request.reason, this.#fees(order)).kind ===
        'cancel'
      );
    } catch {
      return false;
    }
  }

  /** Asks the partner for the pending cancel of `request` and writes what came of it. */
  async #askPartner(order: Order, request: Request): Promise<TicketCancelOutcome> {
    const { connector, log } = this.deps;
    try {
      await connector.cancelTickets({
        eventId: order.eventId,
        inventoryOrderId: order.inventoryOrderId,
        orderId: order.id,
        ticketIds: [...request.ticketIds],
      });
    } catch (error) {
      // The partner's order is cancelled already (the repeat of a cancel of its last tickets, or
      // a whole cancel there): these tickets are no longer valid at the partner, as if taken now.
      if (partnerErrorIdOf(error) === ORDER_ALREADY_CANCELLED) return this.#markCancelled(request);
      const refusal = partialCancelRefusal(error, order.id);
      if (refusal.kind !== 'unavailable') {
        await this.#pendingChange(request, () => undefined);
        throw refusal;
      }
      log.warn(
        { order_id: order.id, err: error },
        'partner did not answer a ticket cancel; retried',
      );
      const now = this.deps.clock.now();
      const kept = await this.#pendingChange(request, (pending) =>
        withTicketCancelUnanswered(
          pending,
          refusal.message,
          this.#retryAt(now, (pending.ticketCancelPending?.attempts ?? 0) + 1),
        ),
      );
      return { order: kept ?? withoutVersion(order), changed: false, pending: true };
    }
    return this.#markCancelled(request);
  }

  /** Records the cancel of `request` as pending (kept as it is when it was pending already). */
  async #recordPending(request: Request): Promise<void> {
    const { orders, clock } = this.deps;
    await retryingConflicts(async () => {
      const order = await this.#order(request.orderId);
      const plan = planTicketCancel(order, request.ticketIds, request.reason, this.#fees(order));
      if (plan.kind === 'repeat') return;
      const now = clock.now();
      const next = withTicketCancelPending(withoutVersion(order), plan.ticketIds, {
        reason: request.reason,
        detail: request.detail,
        now,
        dueAt: this.#retryAt(now, 0),
      });
      await orders.updateTicketCancelPending(next, order.version);
    });
  }

  /**
   * Changes the order's pending cancel of `request` (clears it when `change` answers undefined);
   * nothing when that cancel is no longer pending (marked or cleared by another writer).
   */
  async #pendingChange(
    request: Request,
    change: (order: Order) => Order | undefined,
  ): Promise<Order | undefined> {
    const { orders } = this.deps;
    const ids = [...new Set(request.ticketIds)].sort().join(',');
    return retryingConflicts(async () => {
      const order = await this.#order(request.orderId);
      if (order.ticketCancelPending?.ticketIds.join(',') !== ids) return withoutVersion(order);
      const current = withoutVersion(order);
      const next = change(current) ?? withoutTicketCancelPending(current);
      return withoutVersion(await orders.updateTicketCancelPending(next, order.version));
    });
  }

  /** Marks the tickets of a cancel the partner took (or a sandbox order's) in one write. */
  async #markCancelled(request: Request): Promise<TicketCancelOutcome> {
    const { orders, clock } = this.deps;
    return retryingConflicts(async () => {
      const order = await this.#order(request.orderId);
      const plan = planTicketCancel(order, request.ticketIds, request.reason, this.#fees(order));
      if (plan.kind === 'repeat')
        return { order: withoutVersion(order), changed: false, pending: false };
      const next = withTicketsCancelled(withoutVersion(order), plan, {
        reason: request.reason,
        detail: request.detail,
        now: clock.now(),
      });
      const written = await orders.updateCancelled(next, order.version, plan.ticketIds);
      return { order: withoutVersion(written), changed: true, pending: false };
    });
  }

  #retryAt(now: Date, attempts: number): Date {
    const first = this.deps.settings.ticketCancelRetryMs ?? DEFAULT_RETRY_MS;
    return new Date(now.getTime() + ticketCancelPauseMs(first, attempts));
  }

  #fees(order: Order): FeeSchedule {
    return order.fees ?? this.deps.settings.fees;
  }

  async #order(orderId: string) {
    const order = await this.deps.orders.get(orderId);
    if (!order)
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    return order;
  }
}
