import { fail, hold, type BookingLine, type Cart, type HeldTicket } from '../../domain/cart.js';
import { backoffMs, isTransient } from '@marquee/platform/kernel';
import { CartError, ErrorCode, isPartnerBusy, overloaded } from '../../domain/errors.js';
import type { SellableEvent } from '../../domain/sellable-event.js';
import type { CartCore } from '../core/cart-core.js';
import { holdsPartnerBooking } from '../core/records.js';
import { hostDown, partnerRefusal } from '../core/refusals.js';
import type { ReserveAdmission } from '../core/reserve-admission.js';
import type { Inventories } from '../inventory/inventory.js';
import type { PartnerBooking, Stored } from '../ports.js';
import type { SettleCart } from './settle.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The background part of a reserve (also resumed by the sweeper); never throws. Each attempt plans
 * the booking lines first, then claims the cart and records those lines in one write (a booking of
 * unknown outcome is found again by them), then asks the inventory. Transient failures are retried
 * `reserveAttempts` times with a doubling pause, then the cart is FAILED 20001 with its booking
 * released (FAILED `overloaded`, nothing to release, when every attempt was refused by the
 * connector's full queue for the partner); a refusal fails it with the refusal's code.
 */
export class CompleteReserve {
  constructor(
    private readonly core: CartCore,
    private readonly inventories: Inventories,
    private readonly admission: ReserveAdmission,
    private readonly settle: SettleCart,
  ) {}

  /** Resolves the cart as last written, or `undefined` when another worker had it. */
  async handle(pending: Cart, claimedByInsert?: Stored<Cart>): Promise<Stored<Cart> | undefined> {
    const { settings, log } = this.core.deps;
    const cartId = pending.id;
    const inventory = this.inventories.of(pending);
    // Whether an attempt may have reached the partner (a refusal for a full queue did not).
    let maybeBooked = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const event = await this.core.event(pending.eventId);
        const claimed =
          attempt === 1 && claimedByInsert ? claimedByInsert : await this.#claim(pending, event);
        if (!claimed || claimed.status !== 'PENDING') {
          // Released before this attempt claimed it: what it owes is settled here, since the
          // release left that to this reserve.
          if (claimed && (claimed.releaseOwed || claimed.voidOwed))
            await this.settle.handle(cartId, claimed);
          return undefined;
        }
        const { booking, lines, tickets } = await inventory.book(claimed, event);
        return await this.#recordHeld(cartId, booking, lines, tickets);
      } catch (error) {
        if (isTransient(error) && !(error instanceof CartError)) {
          const busy = isPartnerBusy(error);
          maybeBooked ||= !busy;
          if (attempt < settings.reserveAttempts) {
            log.warn({ cart_id: cartId, attempt, err: error }, 'reserve attempt failed; retrying');
            await sleep(backoffMs(attempt, { firstMs: settings.reserveRetryMs, maxMs: Infinity }));
            continue;
          }
          // Every attempt waited in a full queue: the partner was never asked, nothing is held.
          if (!maybeBooked)
            return this.#fail(cartId, overloaded('the partner is at its capacity', 1_000), false);
          // The partner may hold a booking of an earlier attempt: releasing finds it by its lines.
          return this.#fail(cartId, hostDown('the partner did not answer the reserve'), true);
        }
        const refusal = partnerRefusal(error);
        if (refusal.code === ErrorCode.NO_INVENTORY && inventory.kind === 'partner')
          this.admission.noteSoldOut(pending.eventId, pending.requests);
        return this.#fail(cartId, refusal, false);
      }
    }
  }

  /** Plans the lines and claims the pending cart for one more attempt (the cart as written). */
  async #claim(pending: Cart, event: SellableEvent): Promise<Stored<Cart> | undefined> {
    const lines = await this.inventories.of(pending).planLines(pending, event);
    const now = this.core.now();
    return this.core.mutate(pending.id, (cart) =>
      cart.status === 'PENDING'
        ? {
            ...cart,
            reserveAttempts: cart.reserveAttempts + 1,
            reserveStartedAt: now,
            updatedAt: now,
            ...(lines ? { lines } : {}),
          }
        : undefined,
    );
  }

  /** The inventory holds the tickets: HELD with `booking-held`, or released at once if the cart was. */
  async #recordHeld(
    cartId: string,
    booking: PartnerBooking,
    lines: BookingLine[],
    tickets: HeldTicket[],
  ): Promise<Stored<Cart> | undefined> {
    const { settings } = this.core.deps;
    const now = this.core.now();
    const maxHoldMs = (settings.maxHoldSeconds ?? 0) * 1000;
    const expiresAt =
      maxHoldMs > 0 && booking.expiresAt.getTime() - now.getTime() > maxHoldMs
        ? new Date(now.getTime() + maxHoldMs)
        : booking.expiresAt;
    const written = await this.core.mutate(
      cartId,
      (cart) => {
        if (cart.status === 'PENDING')
          return hold(
            { ...cart, lines },
            { inventoryToken: booking.inventoryToken, tickets, expiresAt, fees: settings.fees },
            now,
          );
        if (cart.inventoryToken === booking.inventoryToken) return undefined;
        // Released (or failed) while the partner was still answering: give the booking back.
        return {
          ...cart,
          inventoryToken: booking.inventoryToken,
          releaseOwed: true,
          bookingUnknown: false,
          updatedAt: now,
        };
      },
      (before, after) =>
        before.status === 'PENDING' && after.status === 'HELD' && holdsPartnerBooking(after)
          ? [{ type: 'booking-held', cart: after }]
          : [],
    );
    if (written && written.status !== 'HELD') {
      await this.settle.handle(cartId, written);
      return undefined; // settled since: the caller reads it
    }
    return written;
  }

  async #fail(
    cartId: string,
    error: CartError,
    bookingUnknown: boolean,
  ): Promise<Stored<Cart> | undefined> {
    const now = this.core.now();
    const failed = await this.core.mutate(cartId, (cart) =>
      cart.status === 'PENDING'
        ? fail(cart, { code: error.code, message: error.message }, now, { bookingUnknown })
        : undefined,
    );
    if (failed?.releaseOwed) {
      await this.settle.handle(cartId, failed);
      return undefined;
    }
    return failed;
  }
}
