import { withoutPersonalData, type Cart } from '../../domain/cart.js';
import { errorKindOf } from '@marquee/platform/kernel';
import type { CartCore } from '../core/cart-core.js';
import type { ReleaseCart } from './release.js';

/** Carts read per pass; each pass reads the fan's carts left. */
const BATCH = 100;

/** Statuses of a cart that holds tickets, or may still: it is released first. */
const LIVE: readonly Cart['status'][] = ['PENDING', 'HELD', 'PAID'];

/** What one erasure did. */
export interface FanCartsErased {
  /** Carts whose personal data it blanked. */
  erased: number;
  /** Live carts it released (their holds given back, their authorisation voided). */
  released: number;
  /**
   * Carts left as they were, still naming the fan: their commit captured the payment and has not
   * written its order yet. The caller fails the record so that it is delivered again.
   */
  deferred: number;
}

/**
 * A fan was deleted (`fan-deleted`): every cart of the fan, live or ended (until purged), loses
 * its personal data (`withoutPersonalData`: fan id, claimed account id, the billing's names,
 * e-mail, account id and reference). A live cart is released first, with reason `fan-deleted`:
 * the fan can no longer act on it (their tokens are gone), so its hold would only keep the tickets
 * from other buyers until it expires; releasing gives the tickets back now and voids the payment
 * authorisation.
 *
 * A paid cart whose commit is under way is not released (its order is being confirmed). Until the
 * commit has captured, blanking the cart is enough: the commit builds the order from the cart as
 * its capture write read it, so the order comes out without contact. Once the commit has captured
 * and until it has written its order, the cart is left untouched and counted `deferred`: the order
 * it is about to write carries the contact, and the cart must still name the fan when the record is
 * delivered again, so that a later pass finds the order (`EraseFanContact`) and then the cart.
 *
 * Idempotent: an erased cart no longer names the fan, so a repeat finds nothing.
 */
export class EraseFanCarts {
  constructor(
    private readonly core: CartCore,
    private readonly release: ReleaseCart,
  ) {}

  async handle(fanId: string): Promise<FanCartsErased> {
    const done: FanCartsErased = { erased: 0, released: 0, deferred: 0 };
    if (!fanId) return done;
    const skipped = new Set<string>();
    for (;;) {
      const batch = (await this.core.deps.carts.listByFan(fanId, BATCH + skipped.size)).filter(
        (cart) => !skipped.has(cart.id),
      );
      if (batch.length === 0) return done;
      for (const cart of batch) {
        if (LIVE.includes(cart.status) && !cart.order && (await this.#release(fanId, cart)))
          done.released += 1;
        const outcome = await this.#erase(fanId, cart);
        if (outcome === 'erased') done.erased += 1;
        if (outcome === 'deferred') {
          done.deferred += 1;
          skipped.add(cart.id);
        }
      }
    }
  }

  /** Releases a live cart of the fan; false when it ended or was committed meanwhile. */
  async #release(fanId: string, cart: Cart): Promise<boolean> {
    try {
      await this.release.handle(
        { appId: cart.appId, sandbox: cart.sandbox, fanId },
        cart.id,
        undefined,
        'fan-deleted',
      );
      return true;
    } catch (error) {
      // Gone (purged), or a commit got there first: the erasure below still applies.
      const kind = errorKindOf(error);
      if (kind === 'not_found' || kind === 'failed_precondition') return false;
      throw error;
    }
  }

  async #erase(fanId: string, cart: Cart): Promise<'erased' | 'deferred' | 'gone'> {
    const { deps } = this.core;
    const orderWritten = cart.order
      ? (await deps.orders.get(cart.order.orderId)) !== undefined
      : false;
    let deferred = false;
    const written = await this.core.mutate(cart.id, (current) => {
      if (current.fanId !== fanId) return undefined;
      if (capturedAwaitingOrder(current) && !orderWritten) {
        deferred = true;
        return undefined;
      }
      deferred = false;
      return withoutPersonalData(current, this.core.now());
    });
    if (deferred) return 'deferred';
    return written && written.fanId === undefined ? 'erased' : 'gone';
  }
}

/** A commit captured the cart's payment and its order may not be written yet. */
const capturedAwaitingOrder = (cart: Cart): boolean =>
  cart.status === 'PAID' && cart.order !== undefined && cart.payment?.status === 'CAPTURED';
