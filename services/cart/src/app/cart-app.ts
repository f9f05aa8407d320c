import type { ReleaseReason } from '../domain/cart.js';
import { CartError, ErrorCode } from '../domain/errors.js';
import type { CancelReason, Order } from '../domain/order.js';
import type { FeeSchedule } from '../domain/pricing.js';
import type { SellableEvent } from '../domain/sellable-event.js';
import type { ShippingOption } from '../domain/shipping.js';
import { AddPayment } from './commands/add-payment.js';
import { CancelOrder } from './commands/cancel-order.js';
import { CancelOrderTickets } from './commands/cancel-tickets.js';
import { CommitCart } from './commands/commit.js';
import { EraseFanCarts } from './commands/erase-fan-carts.js';
import { EraseFanContact } from './commands/erase-fan-contact.js';
import { CompleteReserve } from './commands/complete-reserve.js';
import { PrintOrder } from './commands/print-order.js';
import { PurgeEndedCarts } from './commands/purge-ended.js';
import { RecordTracking } from './commands/record-tracking.js';
import { RefundOrder } from './commands/refund-order.js';
import { ReleaseCart } from './commands/release.js';
import { claimedCartId, ReserveTickets } from './commands/reserve.js';
import { SelectShipping } from './commands/select-shipping.js';
import { SettleCart } from './commands/settle.js';
import { HandleStripeEvent, type StripeEventInput } from './commands/stripe-event.js';
import { SweepCarts } from './commands/sweep.js';
import { SweepAbandonedPayments } from './commands/sweep-abandoned.js';
import { CartCore } from './core/cart-core.js';
import { HoldLimit } from './core/hold-limit.js';
import { failureError } from './core/refusals.js';
import { ReserveAdmission, soldOutTtlOf } from './core/reserve-admission.js';
import { InMemorySoldOutBook } from './core/sold-out-book.js';
import { Inventories } from './inventory/inventory.js';
import { PartnerInventory } from './inventory/partner.js';
import { ResaleInventory } from './inventory/resale.js';
import { SandboxInventory } from './inventory/sandbox.js';
import type { Cart } from '../domain/cart.js';
import { GetAvailability, offersOf } from './queries/availability.js';
import { GetCart } from './queries/get-cart.js';
import { GetOrder, ListOrders } from './queries/orders.js';
import { GetShippingOptions } from './queries/shipping-options.js';
import type { Stored } from './ports.js';
import type {
  BillingInput,
  CartAppDeps,
  CartOwner,
  CartView,
  CommitResult,
  EventAvailability,
  Offer,
  ReserveInput,
} from './types.js';

/**
 * The cart's use cases, composed: one handler per operation (`commands/`, `queries/`) over the
 * shared core (`core/`) and one inventory strategy per kind of ticket (`inventory/`). The API
 * slices (the partner cart gRPC port, commerce, top picks) call this; it holds no logic of its
 * own beyond handing each call to its handler.
 *
 * Every state change is a compare-and-set on the cart (or order) document, written with its topic
 * records; inventory calls happen outside the write and are idempotent (per cart id, per order
 * id), so a retry, a second replica or the sweeper can repeat them safely.
 */
export class CartApp {
  readonly #core: CartCore;
  readonly #admission: ReserveAdmission;
  readonly #availability: GetAvailability;
  readonly #getCart: GetCart;
  readonly #shippingOptions: GetShippingOptions;
  readonly #getOrder: GetOrder;
  readonly #listOrders: ListOrders;
  readonly #reserve: ReserveTickets;
  readonly #selectShipping: SelectShipping;
  readonly #addPayment: AddPayment;
  readonly #commit: CommitCart;
  readonly #release: ReleaseCart;
  readonly #settle: SettleCart;
  readonly #sweep: SweepCarts;
  readonly #purge: PurgeEndedCarts;
  readonly #cancelOrder: CancelOrder;
  readonly #stripeEvent: HandleStripeEvent;
  readonly #printOrder: PrintOrder;
  readonly #recordTracking: RecordTracking;
  readonly #eraseFanContact: EraseFanContact;
  readonly #eraseFanCarts: EraseFanCarts;

  constructor(private readonly deps: CartAppDeps) {
    const core = new CartCore(deps);
    const admission = new ReserveAdmission(
      deps.settings,
      deps.soldOutBook ?? new InMemorySoldOutBook(deps.clock, soldOutTtlOf(deps.settings)),
    );
    const resale = new ResaleInventory(deps.resale);
    const inventories = new Inventories(
      new PartnerInventory({ connector: deps.connector, secrets: deps.secrets, admission }),
      new SandboxInventory({
        sandbox: deps.sandbox,
        clock: deps.clock,
        holdSeconds: deps.settings.sandboxHoldSeconds,
      }),
      resale,
    );
    const settle = new SettleCart(core, inventories);
    const complete = new CompleteReserve(core, inventories, admission, settle);
    const commit = new CommitCart(core, inventories, settle);
    const refunds = new RefundOrder(deps);
    const ticketCancels = new CancelOrderTickets(deps);
    this.#core = core;
    this.#admission = admission;
    this.#settle = settle;
    this.#commit = commit;
    this.#availability = new GetAvailability(core, admission.soldOut);
    this.#getCart = new GetCart(core);
    this.#shippingOptions = new GetShippingOptions(core);
    this.#getOrder = new GetOrder(deps.orders);
    this.#listOrders = new ListOrders(deps.orders);
    this.#reserve = new ReserveTickets(
      core,
      inventories,
      resale,
      admission,
      complete,
      new HoldLimit(deps.carts, deps.settings.heldTicketsPerEvent),
      settle,
    );
    this.#selectShipping = new SelectShipping(core);
    this.#addPayment = new AddPayment(core);
    this.#release = new ReleaseCart(core, inventories, settle);
    this.#sweep = new SweepCarts(
      core,
      complete,
      commit,
      settle,
      refunds,
      new SweepAbandonedPayments(core),
      ticketCancels,
    );
    this.#purge = new PurgeEndedCarts(core);
    this.#cancelOrder = new CancelOrder(deps, refunds, ticketCancels);
    this.#stripeEvent = new HandleStripeEvent(core, this.#cancelOrder);
    this.#printOrder = new PrintOrder(deps);
    this.#recordTracking = new RecordTracking(deps);
    this.#eraseFanContact = new EraseFanContact(deps);
    this.#eraseFanCarts = new EraseFanCarts(core, this.#release);
  }

  // Reads

  availability(input: { eventId: string; sandbox: boolean }): Promise<EventAvailability> {
    return this.#availability.handle(input);
  }

  /** The platform's fee schedule (the commerce offers price with it too). */
  get fees(): FeeSchedule {
    return this.deps.settings.fees;
  }

  offers(event: SellableEvent): Offer[] {
    return offersOf(event, this.deps.settings.fees);
  }

  get(owner: CartOwner, cartId: string, eventId?: string): Promise<CartView> {
    return this.#getCart.handle(owner, cartId, eventId);
  }

  shippingOptions(
    owner: CartOwner,
    cartId: string,
    region: string,
    eventId?: string,
  ): Promise<ShippingOption[]> {
    return this.#shippingOptions.handle(owner, cartId, region, eventId);
  }

  getOrder(orderId: string, appId?: string): Promise<Order> {
    return this.#getOrder.handle(orderId, appId);
  }

  listOrders(
    owner: CartOwner,
    filter?: { eventId?: string; status?: Order['status']; limit?: number },
  ): Promise<Order[]> {
    return this.#listOrders.handle(owner, filter);
  }

  /** The cart as callers see it. */
  view(cart: Cart): Promise<CartView> {
    return this.#core.view(cart);
  }

  /** Redemption URL of an order: the configured base with the order number appended. */
  redemptionUrl(order: Order): string {
    return `${this.deps.settings.redemptionBaseUrl}${encodeURIComponent(order.orderNumber)}`;
  }

  // Commands

  reserve(input: ReserveInput): Promise<CartView> {
    return this.#reserve.handle(input);
  }

  /**
   * The cart a reserve under a claimed Idempotency-Key made (`ReserveInput.claim`), as a retry of
   * it is answered: its view as it is now and the digest of the request that made it, with the
   * failure it ended in when FAILED; `undefined` when the app has no such cart.
   */
  async claimedReserve(
    appId: string,
    claimId: string,
  ): Promise<{ requestDigest: string; view: CartView; failure?: CartError } | undefined> {
    const cart = await this.#core.deps.carts.get(claimedCartId(claimId));
    if (!cart?.requestDigest || cart.appId !== appId) return undefined;
    return {
      requestDigest: cart.requestDigest,
      view: await this.#core.view(cart),
      ...(cart.status === 'FAILED' && cart.failure ? { failure: failureError(cart.failure) } : {}),
    };
  }

  selectShipping(
    owner: CartOwner,
    cartId: string,
    shippingId: string,
    eventId?: string,
  ): Promise<CartView> {
    return this.#selectShipping.handle(owner, cartId, shippingId, eventId);
  }

  addPayment(
    owner: CartOwner,
    cartId: string,
    billing: BillingInput,
    eventId?: string,
  ): Promise<CartView> {
    return this.#addPayment.handle(owner, cartId, billing, eventId);
  }

  commit(owner: CartOwner, cartId: string, eventId?: string): Promise<CommitResult> {
    return this.#commit.handle(owner, cartId, eventId);
  }

  release(
    owner: CartOwner,
    cartId: string,
    eventId?: string,
    reason: ReleaseReason = 'client',
  ): Promise<void> {
    return this.#release.handle(owner, cartId, eventId, reason);
  }

  settle(cartId: string, known?: Stored<Cart>): Promise<void> {
    return this.#settle.handle(cartId, known);
  }

  sweep(): Promise<number> {
    return this.#sweep.handle();
  }

  purgeEnded(limit?: number): Promise<number> {
    return this.#purge.handle(limit);
  }

  /** Cancels the order, or only `ticketIds` of it (a partial cancel) when some are given. */
  cancelOrder(
    orderId: string,
    reason: CancelReason,
    detail: string,
    ticketIds: readonly string[] = [],
  ): Promise<{ order: Order; partnerCancelQueued: boolean }> {
    return this.#cancelOrder.handle(orderId, reason, detail, ticketIds);
  }

  handleStripeEvent(event: StripeEventInput): Promise<string> {
    return this.#stripeEvent.handle(event);
  }

  printOrder(orderId: string, action: 'PRINT' | 'ROLLBACK_PRINT'): Promise<Order> {
    return this.#printOrder.handle(orderId, action);
  }

  recordTracking(input: Parameters<RecordTracking['handle']>[0]): Promise<void> {
    return this.#recordTracking.handle(input);
  }

  /** The fan was deleted: the contact of their orders is erased; resolves with how many. */
  eraseFanContact(fanId: string): Promise<number> {
    return this.#eraseFanContact.handle(fanId);
  }

  /**
   * The fan was deleted (`fan-deleted`): their carts are released (live ones) and blanked
   * (`EraseFanCarts`), then their resale listings, tickets and orders (`EraseFanContact`). Rejects,
   * having erased all it could, while a commit of a cart of theirs has captured and not written its
   * order yet: the record is delivered again and finishes the erasure. Idempotent.
   */
  async eraseFan(fanId: string): Promise<{ carts: number; released: number; orders: number }> {
    const carts = await this.#eraseFanCarts.handle(fanId);
    const orders = await this.#eraseFanContact.handle(fanId);
    if (carts.deferred > 0)
      throw new CartError(
        'unavailable',
        ErrorCode.HOST_DOWN,
        `${carts.deferred} cart(s) of the deleted fan are committing; erased again on redelivery`,
      );
    return { carts: carts.erased, released: carts.released, orders };
  }

  // Admission of reserves (load shedding and the sold-out book; see ReserveAdmission)

  withReserveSlot<T>(work: () => Promise<T>): Promise<T> {
    return this.#admission.withSlot(work);
  }

  takeReserveSlot(): () => void {
    return this.#admission.takeSlot();
  }

  /** A reserve place, waited for a short while (undefined: the event got a sold-out entry). */
  awaitReserveSlot(eventId: string, deadlineMs?: number): Promise<(() => void) | undefined> {
    return this.#admission.awaitSlot(eventId, deadlineMs);
  }

  /** A turn to check a reserve against the sold-out book (see ReserveAdmission.awaitBookCheck). */
  awaitBookCheck(deadlineMs?: number): Promise<() => void> {
    return this.#admission.awaitBookCheck(deadlineMs);
  }

  assertReserveCapacity(): void {
    this.#admission.assertCapacity();
  }

  soldOutHinted(eventId: string): boolean {
    return this.#admission.soldOutHinted(eventId);
  }

  refuseIfJustSoldOut(input: Pick<ReserveInput, 'owner' | 'eventId' | 'requests'>): void {
    this.#admission.refuseIfJustSoldOut(input);
  }

  /** Waits for background reserves of this process (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.#core.inflight.size > 0)
      await Promise.allSettled([...this.#core.inflight.values()]);
  }
}
