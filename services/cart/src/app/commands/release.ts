import { release as releaseCart, type ReleaseReason } from '../../domain/cart.js';
import { cartNotFound, staleCart } from '../../domain/errors.js';
import type { CartCore } from '../core/cart-core.js';
import { bookingReleased, ownedBy } from '../core/records.js';
import type { Inventories } from '../inventory/inventory.js';
import type { CartOwner } from '../types.js';
import type { SettleCart } from './settle.js';

/**
 * Releases a cart (idempotent): RELEASED with `booking-released`, then its hold is given back and
 * any authorisation voided (retried by the sweeper until done). A committed cart cannot be
 * released (cancel its order).
 */
export class ReleaseCart {
  constructor(
    private readonly core: CartCore,
    private readonly inventories: Inventories,
    private readonly settle: SettleCart,
  ) {}

  async handle(
    owner: CartOwner,
    cartId: string,
    eventId?: string,
    reason: ReleaseReason = 'client',
  ): Promise<void> {
    if (!cartId) throw cartNotFound(cartId);
    const now = this.core.now();
    if (await this.#releasePlainHold(owner, cartId, eventId, reason, now)) return;
    // Ownership is checked on the state the write is computed from: one read, not two.
    let pending = false;
    const released = await this.core.mutate(
      cartId,
      (current) => {
        if (!ownedBy(owner, current, eventId)) throw cartNotFound(cartId);
        pending = current.status === 'PENDING';
        if (current.status === 'COMMITTED')
          throw staleCart(`cart ${current.id} is committed: cancel its order instead`);
        const next = releaseCart(current, reason, now);
        return next === current ? undefined : next;
      },
      bookingReleased,
    );
    if (!released) throw cartNotFound(cartId);
    // A reserve still running here gives the booking back itself once the partner answers, if it
    // had not answered when this was written; a hold it wrote before is settled here.
    if (!pending || !this.core.inflight.has(cartId)) await this.settle.handle(cartId, released);
  }

  /**
   * The release of a plain partner hold (HELD, so its reserve is done; nothing paid; no commit of
   * it running here), written once: the booking goes back to the partner first, then the cart is
   * written RELEASED with nothing owed, instead of RELEASED-and-owed before the call and settled
   * after it. A hold cannot be committed (that needs a payment first), and whatever changed the
   * cart in between (a payment, an expiry) is applied to the state the write finds, with this
   * booking no longer owed. Answers false, having written nothing, when the cart is not such a
   * hold or the partner did not answer: the general path then writes the release and leaves the
   * booking owed to the sweeper. A crash between the call and the write leaves a HELD cart whose
   * booking is gone: the client's retry of the release, or the hold's expiry, ends it.
   */
  async #releasePlainHold(
    owner: CartOwner,
    cartId: string,
    eventId: string | undefined,
    reason: ReleaseReason,
    now: Date,
  ): Promise<boolean> {
    const seen = await this.core.deps.carts.get(cartId);
    if (!seen || !ownedBy(owner, seen, eventId)) throw cartNotFound(cartId);
    const token = seen.inventoryToken;
    if (
      seen.status !== 'HELD' ||
      this.inventories.of(seen).kind !== 'partner' ||
      !token ||
      seen.payment !== undefined ||
      seen.bookingUnknown ||
      this.core.committing.has(cartId)
    )
      return false;
    // Refused for good (e.g. confirmed meanwhile as an order) counts as done, as for any release:
    // the write below finds out, and reconciliation decides about the booking.
    if (!(await this.settle.releaseHold(seen))) return false;
    const released = await this.core.mutate(
      cartId,
      (current) => {
        if (current.status === 'COMMITTED' || current.order)
          throw staleCart(`cart ${current.id} is committed: cancel its order instead`);
        const next = releaseCart(current, reason, now);
        if (next === current) return undefined;
        return current.inventoryToken === token
          ? { ...next, releaseOwed: false, bookingUnknown: false }
          : next;
      },
      bookingReleased,
    );
    // Still owed: what changed meanwhile (a payment to void, say).
    if (released && (released.releaseOwed || released.voidOwed))
      await this.settle.handle(cartId, released);
    return true;
  }
}
