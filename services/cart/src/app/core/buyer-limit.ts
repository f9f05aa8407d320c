import type { Cart } from '../../domain/cart.js';
import { CartError, ErrorCode } from '../../domain/errors.js';
import type { SellableEvent } from '../../domain/sellable-event.js';
import type { CartRepository, OrderRepository } from '../ports.js';

/** More live carts, or orders, than one buyer of one event can have under any limit. */
const READ_LIMIT = 1_000;

/** Who buys: the signed-in fan of a commerce cart, or the app's `third_party_account_id`. */
export type Buyer = { fanId: string } | { accountId: string };

const ticketsOf = (cart: Pick<Cart, 'requests'>): number =>
  cart.requests.reduce((sum, r) => sum + r.tickets.reduce((n, t) => n + t.quantity, 0), 0);

const describe = (buyer: Buyer) =>
  'fanId' in buyer ? `fan ${buyer.fanId}` : `third_party_account_id ${buyer.accountId}`;

/**
 * The event's `maximum_tickets_quantity` as a bound per buyer, not only per cart: the tickets one
 * buyer of an app holds (live carts) and has bought (confirmed orders) of one event, with the
 * cart at hand, stay within it. A buyer is the signed-in fan of a commerce cart, or the
 * `third_party_account_id` a payment names (the partner cart learns it only then: the cart claims
 * the account, `buyerAccountId`, before the payment is authorised).
 *
 * Like the held-ticket quota, the check runs on a cart already written (reserved, or claimed by
 * the account) and counts every other live cart of the buyer: concurrent carts of one buyer never
 * pass the bound together; near it both may be refused, and the refused one stops counting at
 * once (FAILED, or its claim withdrawn), so a retry passes. A cart committing at the moment of a
 * read may count twice (as a paid cart and as an order): a refusal a retry then passes, never an
 * excess. Events without a `maximum_tickets_quantity` have no bound across carts; sandbox carts
 * are not counted.
 */
export class BuyerLimit {
  constructor(
    private readonly carts: CartRepository,
    private readonly orders: OrderRepository,
  ) {}

  /** The refusal of the written cart when its buyer is over the event's bound with it. */
  async refusalOf(cart: Cart, buyer: Buyer, event: SellableEvent): Promise<CartError | undefined> {
    const limit = event.ticketLimit;
    if (cart.sandbox || limit <= 0) return undefined;
    const mine = (other: Cart) =>
      'fanId' in buyer ? other.fanId === buyer.fanId : other.buyerAccountId === buyer.accountId;
    const live = await this.carts.findLive(cart.appId, cart.eventId, READ_LIMIT);
    const held = live
      .filter((other) => other.id !== cart.id && !other.sandbox && mine(other))
      .reduce((sum, other) => sum + ticketsOf(other), 0);
    const orders = await this.orders.listByBuyer({
      appId: cart.appId,
      eventId: cart.eventId,
      ...('fanId' in buyer ? { fanId: buyer.fanId } : { thirdPartyAccountId: buyer.accountId }),
      limit: READ_LIMIT,
    });
    const bought = orders.reduce((sum, order) => sum + order.tickets.length, 0);
    const wanted = ticketsOf(cart);
    if (held + bought + wanted <= limit) return undefined;
    return new CartError(
      'failed_precondition',
      ErrorCode.BUYER_TICKET_LIMIT,
      `event ${cart.eventId} sells at most ${limit} tickets to one buyer; ${describe(buyer)} holds ${held} and has bought ${bought}, and this cart has ${wanted}`,
      { limit, held, bought, requested: wanted, event_id: cart.eventId },
    );
  }
}
