import type { Cart } from '../../domain/cart.js';
import { invalidInput } from '../../domain/errors.js';
import { paymentOf, withRefund, type Order, type OrderRefund } from '../../domain/order.js';
import type { CartCore } from '../core/cart-core.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import type { CancelOrder } from './cancel-order.js';

/** A Stripe event whose signature the edge verified. */
export interface StripeEventInput {
  eventId: string;
  type: string;
  /** The event's `data.object`, parsed. */
  object: Record<string, unknown>;
}

export type StripeEventOutcome =
  'duplicate' | 'ignored' | 'payment-lost' | 'refund-recorded' | 'dispute-recorded';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
/** An expandable Stripe field: the id, or the object's id. */
const idOf = (value: unknown): string =>
  typeof value === 'object' && value !== null ? str((value as { id?: unknown }).id) : str(value);

/**
 * Acts on the Stripe events Marquee subscribes to (docs/payments.md, "Webhooks"), once per event
 * id (`stripe_events` keeps the ids handled; an event is recorded after it was handled, so one that
 * failed midway is handled again when Stripe sends it again, and every step is idempotent):
 *
 * - `payment_intent.canceled`, `payment_intent.payment_failed`: a PAID cart whose authorisation it
 *   is, and whose commit has not started, is HELD again without a payment (the card must be paid
 *   again while the hold lasts); anything else is left as it is.
 * - `charge.refunded`: the refunds of the charge are recorded on its order, each new or changed one
 *   with `payment-refunded` (source `processor` unless cart made it).
 * - `charge.dispute.created`: the dispute is recorded on the order, and the order is cancelled
 *   (`payment-reversed`: no refund, the issuer took the money back), which voids its tickets.
 */
export class HandleStripeEvent {
  constructor(
    private readonly core: CartCore,
    private readonly cancelOrder: CancelOrder,
  ) {}

  async handle(event: StripeEventInput): Promise<StripeEventOutcome> {
    const { stripeEvents } = this.core.deps;
    if (!event.eventId) throw invalidInput('event_id is required', 'event_id');
    if (await stripeEvents.has(event.eventId)) return 'duplicate';
    const outcome = await this.#act(event);
    await stripeEvents.record(event.eventId, event.type, this.core.now());
    return outcome;
  }

  #act(event: StripeEventInput): Promise<StripeEventOutcome> {
    switch (event.type) {
      case 'payment_intent.canceled':
      case 'payment_intent.payment_failed':
        return this.#paymentLost(event.object);
      case 'charge.refunded':
        return this.#refunded(event.eventId, event.object);
      case 'charge.dispute.created':
        return this.#disputed(event.object);
      default:
        return Promise.resolve('ignored');
    }
  }

  async #paymentLost(intent: Record<string, unknown>): Promise<StripeEventOutcome> {
    const paymentId = str(intent['id']);
    const metadata = (intent['metadata'] ?? {}) as Record<string, unknown>;
    const cartId =
      str(metadata['marquee_cart']) || str(metadata['marquee_reference']).split(':')[0] || '';
    if (!paymentId || !cartId) return 'ignored';
    const now = this.core.now();
    let lost = false;
    await this.core.mutate(cartId, (cart) => {
      if (
        cart.status !== 'PAID' ||
        cart.order ||
        cart.payment?.paymentId !== paymentId ||
        cart.payment.status !== 'AUTHORIZED'
      )
        return undefined;
      lost = true;
      const { payment: _payment, ...rest } = cart;
      const held: Cart = { ...rest, status: 'HELD', voidOwed: false, updatedAt: now };
      return held;
    });
    return lost ? 'payment-lost' : 'ignored';
  }

  async #refunded(eventId: string, charge: Record<string, unknown>): Promise<StripeEventOutcome> {
    const paymentId = idOf(charge['payment_intent']);
    const { orders } = this.core.deps;
    const now = this.core.now();
    let recorded = false;
    await retryingConflicts(async () => {
      const order = paymentId ? await orders.findByPaymentId(paymentId) : undefined;
      if (!order) return;
      const refunds = refundsOf(eventId, charge, withoutVersion(order), now);
      let next: Order = withoutVersion(order);
      const changed: OrderRefund[] = [];
      for (const refund of refunds) {
        const after = withRefund(next, refund);
        if (after === next) continue;
        next = after;
        changed.push(paymentOf(after).refunds.find((r) => r.refundId === refund.refundId)!);
      }
      if (changed.length === 0) return;
      await orders.updatePayment(next, order.version, changed);
      recorded = true;
    });
    return recorded ? 'refund-recorded' : 'ignored';
  }

  async #disputed(dispute: Record<string, unknown>): Promise<StripeEventOutcome> {
    const paymentId = idOf(dispute['payment_intent']);
    const disputeId = str(dispute['id']);
    const reason = str(dispute['reason']) || 'unknown';
    const { orders } = this.core.deps;
    const now = this.core.now();
    const order = await retryingConflicts(async () => {
      const found = paymentId ? await orders.findByPaymentId(paymentId) : undefined;
      if (!found || paymentOf(found).dispute) return found;
      const next = withoutVersion(found);
      return orders.updatePayment(
        { ...next, payment: { ...paymentOf(next), dispute: { disputeId, reason, at: now } } },
        found.version,
      );
    });
    if (!order) return 'ignored';
    await this.cancelOrder.handle(order.id, 'payment-reversed', `dispute ${disputeId}: ${reason}`);
    return 'dispute-recorded';
  }
}

/**
 * The refunds a `charge.refunded` Charge lists (`refunds.data`, when Stripe includes it), each
 * keeping what the order knows of it (its source and tickets). Without the list, what the charge
 * says is refunded beyond the order's refunds is one refund named after the event.
 */
function refundsOf(
  eventId: string,
  charge: Record<string, unknown>,
  order: Order,
  now: Date,
): OrderRefund[] {
  const known = paymentOf(order).refunds;
  const listed = (charge['refunds'] as { data?: unknown } | null | undefined)?.data;
  if (Array.isArray(listed))
    return listed.map((item: Record<string, unknown>) => {
      const refundId = str(item['id']);
      const mine = known.find((r) => r.refundId === refundId);
      return {
        refundId,
        amountMinor: num(item['amount']),
        status: str(item['status']) === 'succeeded' ? 'succeeded' : 'pending',
        source: mine?.source ?? 'processor',
        ticketIds: mine?.ticketIds ?? [],
        at: mine?.at ?? now,
      };
    });
  const beyond = num(charge['amount_refunded']) - paymentOf(order).refundedMinor;
  if (beyond <= 0) return [];
  return [
    {
      refundId: `stripe:${eventId}`,
      amountMinor: beyond,
      status: 'succeeded',
      source: 'processor',
      ticketIds: [],
      at: now,
    },
  ];
}
