import {
  captured,
  commit as commitCart,
  fail,
  isExpired,
  prepareCommit,
  type Cart,
} from '../../domain/cart.js';
import { errorKindOf } from '@marquee/platform/kernel';
import { staleCart } from '../../domain/errors.js';
import { orderNumberFrom, type Order } from '../../domain/order.js';
import { priceCart } from '../../domain/pricing.js';
import { DEFAULT_SHIPPING } from '../../domain/shipping.js';
import type { CartCore } from '../core/cart-core.js';
import { withoutVersion } from '@marquee/platform/kernel';
import { hostDown } from '../core/refusals.js';
import type { Inventories } from '../inventory/inventory.js';
import type { ResoldTicket, Stored } from '../ports.js';
import type { CartOwner, CommitResult } from '../types.js';
import type { SettleCart } from './settle.js';

/**
 * Commits a paid cart: the order id, number and token are fixed on the cart first, then the
 * inventory confirms the sale (idempotent per order id), the payment is captured, and the order is
 * written with `order-confirmed`. A retry, or a commit of an already committed cart by its app,
 * answers the same order and token. An inventory that refuses for good fails the cart, gives back
 * what it owes, and answers 90003.
 */
export class CommitCart {
  constructor(
    private readonly core: CartCore,
    private readonly inventories: Inventories,
    private readonly settle: SettleCart,
  ) {}

  async handle(owner: CartOwner, cartId: string, eventId?: string): Promise<CommitResult> {
    const { deps } = this.core;
    let cart = await this.core.owned(owner, cartId, eventId);
    if (cart.status === 'COMMITTED') return this.#committed(cart);
    this.core.assertOutsideMaintenance(cart);
    const now = this.core.now();
    if (cart.status !== 'PAID')
      throw staleCart(`cart ${cart.id} is ${cart.status}: only a paid cart can be committed`, {
        status: cart.status,
      });
    if (isExpired(cart, now) && !cart.order)
      throw staleCart(`the hold of cart ${cart.id} has expired`);
    this.core.committing.add(cart.id);
    try {
      if (!cart.order) {
        const token = deps.ids.orderToken();
        const order = {
          orderId: deps.ids.orderId(),
          orderNumber: orderNumberFrom(deps.ids.orderNumberBytes()),
          tokenSha256: deps.hasher.sha256(token),
          tokenSealed: deps.secrets.seal(token),
        };
        cart = (await this.core.mutate(cart.id, (current) => prepareCommit(current, order, now)))!;
      }
      const existing = await deps.orders.get(cart.order!.orderId);
      if (!existing) await this.#confirm(cart);
      const committed = await this.core.mutate(cart.id, (current) => {
        if (current.status === 'COMMITTED') return undefined;
        return commitCart(
          current,
          {
            inventoryOrderId: existing?.inventoryOrderId ?? current.order!.inventoryOrderId ?? '',
            confirmedAt: now,
          },
          now,
        );
      });
      return this.#committed(committed ?? cart);
    } finally {
      this.core.committing.delete(cart.id);
    }
  }

  /**
   * Marks committed a paid cart whose order was written by a commit that did not get to write the
   * cart (the sweeper finds it once the hold has ended).
   */
  async finishRecorded(cartId: string): Promise<void> {
    const now = this.core.now();
    await this.core.mutate(cartId, (current) =>
      current.status === 'PAID' && current.order
        ? commitCart(
            current,
            { inventoryOrderId: current.order.inventoryOrderId ?? '', confirmedAt: now },
            now,
          )
        : undefined,
    );
  }

  /** The inventory's sale, the capture, the order document with `order-confirmed`. */
  async #confirm(cart: Stored<Cart>): Promise<void> {
    const { deps } = this.core;
    const ref = cart.order!;
    const now = this.core.now();
    const delivery = cart.delivery ?? DEFAULT_SHIPPING;
    const priced = priceCart({ tickets: cart.tickets, fees: cart.fees!, delivery });
    const outcome = await this.inventories.of(cart).confirm({
      cart,
      orderId: ref.orderId,
      merchandiseMinor: priced.totals.merchandise,
      delivery,
    });
    if ('refused' in outcome) {
      // Refused for good (the hold is gone): void, release, FAILED.
      const { refused } = outcome;
      await this.core.mutate(cart.id, (current) =>
        current.status === 'PAID'
          ? fail(current, { code: refused.code, message: refused.message }, now)
          : undefined,
      );
      await this.settle.handle(cart.id);
      throw refused;
    }
    const { inventoryOrderId, resold } = outcome.confirmed;
    try {
      await this.core
        .processorFor(cart)
        .capture(cart.payment!.paymentId, cart.payment!.amountMinor, cart.currency);
    } catch (_error) {
      throw hostDown('the payment could not be captured yet; retry the commit');
    }
    const provider = this.core.processorFor(cart).name;
    // Recorded with `payment-captured` before the order: money taken is never without a trace.
    // The order is built from the cart as this write found it: a cart whose fan was deleted while
    // the commit ran (its personal data blanked, `EraseFanCarts`) gives an order without contact.
    const latest = await this.core.mutate(
      cart.id,
      (current) => captured(current, this.core.now()),
      (_before, after) => [{ type: 'payment-captured', cart: after, provider }],
    );
    const buyer = latest?.order?.orderId === ref.orderId ? latest : cart;
    try {
      await deps.orders.insertConfirmed(orderOf(buyer, inventoryOrderId, resold, now, provider));
    } catch (error) {
      if (errorKindOf(error) !== 'already_exists') throw error;
    }
  }

  async #committed(cart: Cart): Promise<CommitResult> {
    const { deps } = this.core;
    const order = await deps.orders.get(cart.order!.orderId);
    if (!order) throw hostDown(`order of cart ${cart.id} is not written yet; retry the commit`);
    return {
      view: await this.core.view(cart),
      order: withoutVersion(order),
      orderToken: deps.secrets.open(cart.order!.tokenSealed),
    };
  }
}

/** The order document of a cart whose sale was confirmed and captured. */
function orderOf(
  cart: Stored<Cart>,
  inventoryOrderId: string,
  resold: readonly ResoldTicket[],
  now: Date,
  provider: string,
): Order {
  const ref = cart.order!;
  const delivery = cart.delivery ?? DEFAULT_SHIPPING;
  const priced = priceCart({ tickets: cart.tickets, fees: cart.fees!, delivery });
  return {
    id: ref.orderId,
    orderNumber: ref.orderNumber,
    cartId: cart.id,
    appId: cart.appId,
    channel: cart.channel,
    ...(cart.fanId !== undefined ? { fanId: cart.fanId } : {}),
    eventId: cart.eventId,
    partnerId: cart.partnerId,
    sandbox: cart.sandbox,
    inventoryToken: cart.inventoryToken ?? '',
    inventoryOrderId,
    status: 'CONFIRMED',
    currency: cart.currency,
    tickets: cart.tickets.map((t) => ({
      ticketId: t.ticketId,
      areaId: t.areaId,
      section: t.section,
      row: t.row,
      seat: t.seat,
      priceLevelId: t.priceLevelId,
      priceTypeId: t.priceTypeId,
      faceValueMinor: t.faceValueMinor,
      generalAdmission: t.generalAdmission,
    })),
    fees: cart.fees!,
    merchandiseMinor: priced.totals.merchandise,
    feeMinor: priced.totals.fee,
    taxMinor: priced.totals.tax,
    deliveryMinor: priced.totals.delivery,
    grandMinor: priced.totals.grand,
    delivery,
    paymentId: cart.payment!.paymentId,
    payment: {
      provider,
      paymentId: cart.payment!.paymentId,
      authorizedMinor: cart.payment!.amountMinor,
      capturedMinor: cart.payment!.amountMinor,
      refundedMinor: 0,
      refunds: [],
    },
    customerEmail: cart.billing?.email ?? '',
    thirdPartyAccountId: cart.billing?.thirdPartyAccountId ?? '',
    secureEntryEnabled: cart.secureEntryEnabled,
    tokenSha256: ref.tokenSha256,
    confirmedAt: now,
    ...(resold.length > 0
      ? {
          resoldTicketIds: resold.map((t) => t.ticketId),
          resoldFromOrderId: resold[0]!.previousOrderId,
        }
      : {}),
  };
}
