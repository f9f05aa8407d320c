import { agreementsFor } from '../../domain/agreements.js';
import { holdSecondsLeft, isExpired, type Cart } from '../../domain/cart.js';
import { CartError, cartNotFound, ErrorCode, staleCart } from '../../domain/errors.js';
import { inMaintenance } from '../../domain/maintenance.js';
import { priceCart } from '../../domain/pricing.js';
import { isOnSale, isPartnerEvent, type SellableEvent } from '../../domain/sellable-event.js';
import type { CartEvent, PaymentProcessor, Stored } from '../ports.js';
import type { CartAppDeps, CartOwner, CartView } from '../types.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import { ownedBy } from './records.js';
import { maintenance, notTransactable } from './refusals.js';

/**
 * What every use case of the cart shares: its dependencies, the one way a cart is written
 * (read, change, compare-and-set, with its `sweepAt` and topic records), the reads every use case
 * starts from, the view callers get, and the work of this process still running for a cart
 * (background reserves, commits), which the sweeper must not step on.
 */
export class CartCore {
  /** Background reserves of this process, per cart. */
  readonly inflight = new Map<string, Promise<void>>();
  /** Carts whose commit runs in this process. */
  readonly committing = new Set<string>();

  constructor(readonly deps: CartAppDeps) {}

  now(): Date {
    return this.deps.clock.now();
  }

  /** The processor of the cart's payment: the sandbox's for sandbox carts. */
  processorFor(cart: Cart): PaymentProcessor {
    return cart.sandbox ? this.deps.sandboxProcessor : this.deps.processor;
  }

  async event(eventId: string): Promise<SellableEvent> {
    const event = await this.deps.events.get(eventId);
    if (!event)
      throw new CartError('not_found', ErrorCode.NOT_TRANSACTABLE, `event ${eventId} not found`, {
        event_id: eventId,
      });
    return event;
  }

  /** A cart of the owner; NOT_FOUND for anyone else's. */
  async owned(owner: CartOwner, cartId: string, eventId?: string): Promise<Stored<Cart>> {
    const cart = cartId ? await this.deps.carts.get(cartId) : undefined;
    if (!cart || !ownedBy(owner, cart, eventId)) throw cartNotFound(cartId);
    return cart;
  }

  /** Refuses an event the partner cart cannot sell now. */
  assertTransactable(event: SellableEvent, now: Date): void {
    if (!isPartnerEvent(event))
      throw notTransactable(`event ${event.id} is not sold through the partner cart`);
    if (event.status === 'CANCELLED') throw notTransactable(`event ${event.id} is cancelled`);
    if (!isOnSale(event, now)) throw notTransactable(`event ${event.id} is not on sale`);
    if (inMaintenance(this.deps.settings.maintenance, now, event.timezone)) throw maintenance();
  }

  /** Refuses a cart change during the nightly maintenance window of its event. */
  assertOutsideMaintenance(cart: Cart): void {
    if (inMaintenance(this.deps.settings.maintenance, this.now(), cart.timezone))
      throw maintenance();
  }

  assertHeld(cart: Cart, now: Date): void {
    if (isExpired(cart, now)) throw staleCart(`the hold of cart ${cart.id} has expired`);
  }

  /**
   * Read, change, compare-and-set in one store call, retried when other writers kept winning.
   * `change` returning `undefined` writes nothing (resolves the current record). `events` are
   * written with the state.
   */
  async mutate(
    cartId: string,
    change: (cart: Stored<Cart>) => Cart | undefined,
    events?: (before: Cart, after: Cart) => CartEvent[],
  ): Promise<Stored<Cart> | undefined> {
    return retryingConflicts(() =>
      this.deps.carts.modify(
        cartId,
        (current) => {
          const next = change(current);
          return next && this.withSweepAt(next);
        },
        events,
      ),
    );
  }

  /**
   * The cart with its `sweepAt`: the soonest of a pending reserve going stale, the hold ending
   * (for a paid cart with an order, not before its commit's grace), and the next retry of what
   * an ended cart still owes; absent when none applies.
   */
  withSweepAt<C extends Cart>(cart: C): C {
    const { settings } = this.deps;
    const after = (at: Date, ms: number) => at.getTime() + ms;
    const times: number[] = [];
    if (cart.status === 'PENDING')
      times.push(after(cart.reserveStartedAt ?? cart.createdAt, settings.pendingStaleMs));
    if ((cart.status === 'HELD' || cart.status === 'PAID') && cart.expiresAt)
      times.push(
        cart.status === 'PAID' && cart.order
          ? Math.max(cart.expiresAt.getTime(), after(cart.updatedAt, settings.commitGraceMs))
          : cart.expiresAt.getTime(),
      );
    if (cart.releaseOwed || cart.voidOwed) times.push(after(cart.updatedAt, settings.owedRetryMs));
    const { sweepAt: _previous, ...rest } = cart;
    return (times.length > 0 ? { ...rest, sweepAt: new Date(Math.min(...times)) } : rest) as C;
  }

  /** The cart as callers see it (prices computed from the held tickets and the fees of the hold). */
  async view(cart: Cart): Promise<CartView> {
    const now = this.now();
    const paid = cart.payment && cart.payment.status !== 'VOIDED' ? cart.payment.amountMinor : 0;
    const priced = priceCart({
      tickets: cart.tickets,
      fees: cart.fees ?? this.deps.settings.fees,
      delivery: cart.delivery,
      paidMinor: paid,
    });
    const order = cart.order ? await this.deps.orders.get(cart.order.orderId) : undefined;
    return {
      cart: withoutVersion(cart as Stored<Cart>),
      priced,
      holdSeconds: holdSecondsLeft(cart, now),
      agreements: agreementsFor({
        language: cart.language,
        secureEntry: cart.secureEntryEnabled,
        termsUrl: this.deps.settings.termsUrl,
        secureEntryUrl: this.deps.settings.secureEntryAgreementUrl,
      }),
      ...(order ? { order: withoutVersion(order) } : {}),
      pollAfterSeconds: cart.status === 'PENDING' ? this.deps.settings.pollAfterSeconds : 0,
    };
  }

  /**
   * Runs the background work of a cart (its reserve) once per process: a second call while it
   * runs joins it. Detached from the gRPC call that started it: the reserve outlives that call's
   * answer (202), so its partner calls must not inherit the caller's deadline.
   */
  track(cartId: string, work: () => Promise<void>): Promise<void> {
    const running = this.inflight.get(cartId);
    if (running) return running;
    const promise = (this.deps.detach ? this.deps.detach(work) : work())
      .catch((error: unknown) =>
        this.deps.log.error({ cart_id: cartId, err: error }, 'background reserve failed'),
      )
      .finally(() => this.inflight.delete(cartId));
    this.inflight.set(cartId, promise);
    return promise;
  }
}
