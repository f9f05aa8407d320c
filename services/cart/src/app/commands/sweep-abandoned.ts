import type { Cart } from '../../domain/cart.js';
import type { CartCore } from '../core/cart-core.js';

const BATCH = 50;
/**
 * How long after a cart ended its processor's payments are looked up: Stripe's search index of
 * the payments' metadata trails their writes by up to a minute.
 */
export const ABANDONED_CHECK_DELAY_MS = 120_000;

const live = (cart: Cart) =>
  cart.status === 'PENDING' || cart.status === 'HELD' || cart.status === 'PAID';

/**
 * Voids the authorisations a payment step left behind. Every production cart whose payment step
 * reached the processor has an attempt record (written before the processor was asked); once the
 * cart has ended (released, expired, failed, committed, or purged) and the delay has passed, the
 * processor voids every payment of the cart that is neither captured nor voided
 * (`voidAbandoned`): an authorisation a crash kept from being written to the cart, a 3-D Secure
 * never finished. A committed cart's captured payment is left alone. Idempotent: a second pass
 * voids nothing more; a processor out of reach leaves the attempt for a later pass.
 */
export class SweepAbandonedPayments {
  constructor(private readonly core: CartCore) {}

  /** Resolves how many payments were voided. */
  async handle(): Promise<number> {
    const { attempts, carts, processor, log, settings } = this.core.deps;
    const now = this.core.now();
    let voided = 0;
    for (const attempt of await attempts.findDue(now, BATCH)) {
      const cart = await carts.get(attempt.id);
      if (cart && live(cart)) {
        const ends = Math.max(now.getTime(), cart.expiresAt?.getTime() ?? 0);
        await attempts.postpone(attempt, new Date(ends + ABANDONED_CHECK_DELAY_MS));
        continue;
      }
      const endedAt = cart?.endedAt?.getTime() ?? 0;
      if (endedAt + ABANDONED_CHECK_DELAY_MS > now.getTime()) {
        await attempts.postpone(attempt, new Date(endedAt + ABANDONED_CHECK_DELAY_MS));
        continue;
      }
      try {
        const count = await processor.voidAbandoned(attempt.id);
        voided += count;
        if (count > 0)
          log.warn({ cart_id: attempt.id, voided: count }, 'voided payments left behind');
        await attempts.remove(attempt);
      } catch (error) {
        log.warn({ cart_id: attempt.id, err: error }, 'void of payments left behind failed');
        await attempts.postpone(
          attempt,
          new Date(now.getTime() + Math.max(1_000, settings.owedRetryMs)),
        );
      }
    }
    return voided;
  }
}
