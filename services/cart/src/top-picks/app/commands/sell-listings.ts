import { errorKindOf } from '@marquee/platform/kernel';
import { unavailable } from '../../domain/errors.js';
import { keepForSale, sell } from '../../domain/listing.js';
import { ownershipId, type ListingWrites } from '../core/listing-writes.js';
import type { ResoldTicket, TopPicksDeps } from '../types.js';

/** How long a sale in progress keeps its listings out of other carts' reach. */
const SALE_GRACE_MS = 10 * 60_000;

/** Resale inventory for the cart: a cart's listings sold to its order, their tickets moved to it. */
export class SellListings {
  constructor(
    private readonly deps: TopPicksDeps,
    private readonly writes: ListingWrites,
  ) {}

  /**
   * Sells the cart's listings to the buyer's order and moves their tickets to it. Idempotent: a retried
   * commit with the same order id answers the same tickets. Returns every ticket with the order that
   * held it before, whose ticket is void from now on.
   */
  async handle(input: {
    cartId: string;
    orderId: string;
    buyer: { appId: string; fanId: string; thirdPartyAccountId: string };
    listingIds: readonly string[];
  }): Promise<ResoldTicket[]> {
    const now = this.deps.clock.now();
    // First make sure every listing is still the cart's and stays so while the sale runs (a hold that
    // ended but was not taken by anyone is extended); only then sell: a lost hold fails the commit
    // before anything is sold, and the second phase cannot fail on a race.
    const until = new Date(now.getTime() + SALE_GRACE_MS);
    for (const id of input.listingIds) {
      await this.writes
        .changeListing(id, (l) =>
          keepForSale(l, { cartId: input.cartId, orderId: input.orderId, until, now }),
        )
        .catch((error: unknown) => {
          throw errorKindOf(error) === 'not_found'
            ? unavailable(`listing ${id} is no longer held by cart ${input.cartId}`)
            : error;
        });
    }
    const resold: ResoldTicket[] = [];
    for (const id of input.listingIds) {
      const listing = await this.writes.changeListing(id, (l) =>
        sell(l, { cartId: input.cartId, orderId: input.orderId, now }),
      );
      for (const ticketId of listing.ticketIds) {
        const key = ownershipId(listing.eventId, ticketId);
        let previousOrderId = listing.orderId;
        await this.writes.updateOwnership(key, (current) => {
          if (current.orderId === input.orderId) {
            previousOrderId =
              current.previous[current.previous.length - 1]?.orderId ?? listing.orderId;
            return undefined;
          }
          previousOrderId = current.orderId;
          return {
            ...current,
            orderId: input.orderId,
            ownerAppId: input.buyer.appId,
            ownerFanId: input.buyer.fanId,
            thirdPartyAccountId: input.buyer.thirdPartyAccountId,
            listingId: '',
            previous: [
              ...current.previous,
              { orderId: current.orderId, listingId: listing.id, until: now },
            ],
            updatedAt: now,
          };
        });
        resold.push({ ticketId, listingId: listing.id, previousOrderId });
      }
    }
    return resold;
  }
}
