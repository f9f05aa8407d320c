import type { Cart } from '../../domain/cart.js';
import { isTransient } from '@marquee/platform/kernel';
import type { CartCore } from '../core/cart-core.js';
import type { Inventories } from '../inventory/inventory.js';
import type { Stored } from '../ports.js';

/**
 * Gives back what an ended cart still owes: its hold (at the partner, the sandbox or the resale
 * listings) and its payment authorisation. Failures that may pass are left owed for the next
 * sweep; the release, the expiry, a failed reserve or commit and the sweeper all end here.
 */
export class SettleCart {
  constructor(
    private readonly core: CartCore,
    private readonly inventories: Inventories,
  ) {}

  async handle(cartId: string, known?: Stored<Cart>): Promise<void> {
    const { deps } = this.core;
    const cart = known ?? (await deps.carts.get(cartId));
    if (!cart || (!cart.releaseOwed && !cart.voidOwed)) return;
    let voided = true;
    if (cart.voidOwed && cart.payment) {
      try {
        await this.core.processorFor(cart).void(cart.payment.paymentId);
      } catch (error) {
        voided = false;
        deps.log.warn({ cart_id: cartId, err: error }, 'payment void failed; retried later');
      }
    }
    const released = cart.releaseOwed ? await this.releaseHold(cart) : true;
    if (!released && !voided) return;
    await this.core.mutate(cartId, (current) => ({
      ...current,
      releaseOwed: released ? false : current.releaseOwed,
      bookingUnknown: released ? false : current.bookingUnknown,
      voidOwed: voided ? false : current.voidOwed,
      payment:
        voided && current.payment && current.voidOwed
          ? { ...current.payment, status: 'VOIDED' }
          : current.payment,
      updatedAt: this.core.now(),
    }));
  }

  /**
   * Gives the cart's hold back. True when it is back, or refused for good (e.g. already confirmed
   * as an order: reconciliation decides); false when it should be tried again later.
   */
  async releaseHold(cart: Cart): Promise<boolean> {
    const { log } = this.core.deps;
    try {
      await this.inventories.of(cart).release(cart);
      return true;
    } catch (error) {
      if (!isTransient(error)) {
        log.warn(
          { cart_id: cart.id, event_id: cart.eventId, err: error },
          'partner refused the release; left to reconciliation',
        );
        return true;
      }
      log.warn({ cart_id: cart.id, err: error }, 'partner release failed; retried later');
      return false;
    }
  }
}
