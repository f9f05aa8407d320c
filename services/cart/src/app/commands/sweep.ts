import { expire, isExpired } from '../../domain/cart.js';
import type { CartCore } from '../core/cart-core.js';
import { holdsPartnerBooking } from '../core/records.js';
import type { CancelOrderTickets } from './cancel-tickets.js';
import type { CommitCart } from './commit.js';
import type { CompleteReserve } from './complete-reserve.js';
import type { RefundOrder } from './refund-order.js';
import type { SweepAbandonedPayments } from './sweep-abandoned.js';
import type { SettleCart } from './settle.js';

const SWEEP_BATCH = 100;

/**
 * One pass of the sweeper (every replica runs it; compare-and-set keeps them apart), over the
 * carts whose `sweepAt` has come: resumes stale pending reserves, expires ended holds
 * (`booking-expired`), finishes commits whose order was written, and settles what ended carts
 * still owe; then pays the refunds cancelled orders still owe, and voids the payments that ended
 * carts left behind, and asks the partner again for partial cancels it did not answer.
 */
export class SweepCarts {
  constructor(
    private readonly core: CartCore,
    private readonly complete: CompleteReserve,
    private readonly commit: CommitCart,
    private readonly settle: SettleCart,
    private readonly refunds: RefundOrder,
    private readonly abandoned: SweepAbandonedPayments,
    private readonly ticketCancels: CancelOrderTickets,
  ) {}

  /** Resolves how many carts it touched. */
  async handle(): Promise<number> {
    const { deps } = this.core;
    const now = this.core.now();
    let touched = 0;
    for (const cart of await deps.carts.findDue(now, SWEEP_BATCH)) {
      if (cart.status === 'PENDING') {
        if (this.core.inflight.has(cart.id)) continue;
        touched += 1;
        await this.core.track(cart.id, async () => {
          await this.complete.handle(cart);
        });
        continue;
      }
      if ((cart.status === 'HELD' || cart.status === 'PAID') && isExpired(cart, now)) {
        if (this.core.committing.has(cart.id)) continue;
        if (cart.status === 'PAID' && cart.order) {
          // A commit was started: finish it if its order exists; wait out the grace otherwise.
          if (await deps.orders.get(cart.order.orderId)) {
            await this.commit.finishRecorded(cart.id);
            touched += 1;
            continue;
          }
          if (now.getTime() - cart.updatedAt.getTime() < deps.settings.commitGraceMs) continue;
        }
        touched += 1;
        const expired = await this.core.mutate(
          cart.id,
          (current) => (isExpired(current, now) ? expire(current, now) : undefined),
          // Only a partner booking expires on the topic: sandbox and resale carts hold none (a
          // resale cart's listing goes back on sale when it is settled).
          (_before, after) =>
            after.status === 'EXPIRED' && holdsPartnerBooking(after)
              ? [{ type: 'booking-expired', cart: after }]
              : [],
        );
        if (expired?.status === 'EXPIRED') await this.settle.handle(cart.id, expired);
        continue;
      }
      if (cart.releaseOwed || cart.voidOwed) {
        if (this.core.inflight.has(cart.id)) continue;
        touched += 1;
        await this.settle.handle(cart.id, cart);
        continue;
      }
      // Due for nothing (its due time was computed under other settings): brought up to date.
      const due = this.core.withSweepAt(cart).sweepAt?.getTime();
      if (due !== cart.sweepAt?.getTime()) await this.core.mutate(cart.id, (current) => current);
    }
    touched += await this.ticketCancels.sweep();
    touched += await this.refunds.sweep();
    return touched + (await this.abandoned.handle());
  }
}
