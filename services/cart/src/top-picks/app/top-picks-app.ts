import { TopPicksError } from '../domain/errors.js';
import type { ResaleListing } from '../domain/listing.js';
import { CreateListing } from './commands/create-listing.js';
import { HoldListings } from './commands/hold-listings.js';
import { PurgeSessions } from './commands/purge-sessions.js';
import { ReleaseListings } from './commands/release-listings.js';
import { SellListings } from './commands/sell-listings.js';
import { WithdrawListing } from './commands/withdraw-listing.js';
import { ListingWrites } from './core/listing-writes.js';
import { EraseFanResale, type FanResaleErased } from './erase-fan.js';
import type { TicketOwnership } from './ports.js';
import { GetListing, ListListings, TicketOwner } from './queries/listings.js';
import { GetTopPicks } from './queries/top-picks.js';
import type {
  HeldListing,
  NewListing,
  ResoldTicket,
  TopPicksDeps,
  TopPicksRequest,
  TopPicksResult,
} from './types.js';

export type {
  HeldListing,
  NewListing,
  ResoldTicket,
  TopPicksDeps,
  TopPicksRequest,
  TopPicksResult,
} from './types.js';
export { MAX_LISTING_TICKETS } from './commands/create-listing.js';
export { ownershipId } from './core/listing-writes.js';
export { MAX_QUANTITY } from './queries/top-picks.js';

/**
 * Top picks, fan sessions and resale listings, composed: one handler per operation, the reads in
 * `queries/` (top picks, listings, ticket owners) and the resale writes in `commands/` (listings
 * made and withdrawn by operators; held, released and sold for carts), over the listing and
 * ownership writes they share (`core/listing-writes.ts`). It holds no logic of its own beyond
 * handing each call to its handler.
 *
 * Every write is a compare-and-set on one document; several-document changes (claiming the tickets
 * of a listing, holding several listings) undo what they did when a later step fails, and a
 * half-done change left by a crash is harmless (a claim whose listing does not exist or is no
 * longer on sale counts as no claim).
 */
export class TopPicksApp {
  readonly #eraseFan: EraseFanResale;
  readonly #getTopPicks: GetTopPicks;
  readonly #listListings: ListListings;
  readonly #getListing: GetListing;
  readonly #ticketOwner: TicketOwner;
  readonly #createListing: CreateListing;
  readonly #withdrawListing: WithdrawListing;
  readonly #holdListings: HoldListings;
  readonly #releaseListings: ReleaseListings;
  readonly #sellListings: SellListings;
  readonly #purgeSessions: PurgeSessions;

  // `deps` stays a property of the app: tests reach the stores through it (`raisePrice`).
  constructor(private readonly deps: TopPicksDeps) {
    const writes = new ListingWrites(deps);
    this.#eraseFan = new EraseFanResale(deps);
    this.#getTopPicks = new GetTopPicks(deps);
    this.#listListings = new ListListings(deps);
    this.#getListing = new GetListing(deps);
    this.#ticketOwner = new TicketOwner(deps);
    this.#withdrawListing = new WithdrawListing(deps, writes);
    this.#createListing = new CreateListing(deps, writes, this.#withdrawListing);
    this.#releaseListings = new ReleaseListings(deps, writes);
    this.#holdListings = new HoldListings(deps, writes, this.#releaseListings);
    this.#sellListings = new SellListings(deps, writes);
    this.#purgeSessions = new PurgeSessions(deps);
  }

  /**
   * A deleted fan's part in resale: the open listings of the fan's orders `orderIds` withdrawn,
   * their seller notes and the fan's ticket ownership blanked (`EraseFanResale`). Idempotent.
   */
  eraseFan(fanId: string, orderIds: readonly string[]): Promise<FanResaleErased> {
    return this.#eraseFan.handle(fanId, orderIds);
  }

  // ---------------------------------------------------------------- top picks

  getTopPicks(request: TopPicksRequest): Promise<TopPicksResult> {
    return this.#getTopPicks.handle(request);
  }

  // ---------------------------------------------------------------- listings (operators)

  createListing(input: NewListing): Promise<ResaleListing> {
    return this.#createListing.handle(input);
  }

  /**
   * A gate admitted the seat of `ticketId` (from `ticket-scanned`): its live listing, if any, is
   * withdrawn, even while a cart holds it, so an admitted seat is never sold. Idempotent.
   */
  seatAdmitted(eventId: string, ticketId: string): Promise<ResaleListing | undefined> {
    return this.#withdrawListing.seatAdmitted(eventId, ticketId);
  }

  listListings(
    query: Parameters<ListListings['handle']>[0],
  ): Promise<{ listings: ResaleListing[]; total: number }> {
    return this.#listListings.handle(query);
  }

  getListing(id: string): Promise<ResaleListing> {
    return this.#getListing.handle(id);
  }

  withdrawListing(id: string): Promise<ResaleListing> {
    return this.#withdrawListing.handle(id);
  }

  // ---------------------------------------------------------------- resale inventory (cart)

  /**
   * Holds a listing for a cart for `resaleHoldMs`, at the price the fan sees under the live fan
   * session (`priceForFan`), or the asking price without one. One listing per reserve (an order
   * confirmed from it names one seller's order); the shape takes several so that can grow, all or
   * nothing. Unknown listing: INVALID_ARGUMENT; not on sale:
   * RESOURCE_EXHAUSTED (partner cart code 20052).
   */
  holdListings(
    input: Parameters<HoldListings['handle']>[0],
  ): Promise<{ listings: HeldListing[]; expiresAt: Date }> {
    return this.#holdListings.handle(input);
  }

  /** Gives the cart's listings back for sale; idempotent (listings the cart does not hold are left). */
  releaseListings(cartId: string, listingIds: readonly string[]): Promise<void> {
    return this.#releaseListings.handle(cartId, listingIds);
  }

  /**
   * Sells the cart's listings to the buyer's order and moves their tickets to it. Idempotent: a retried
   * commit with the same order id answers the same tickets. Returns every ticket with the order that
   * held it before, whose ticket is void from now on.
   */
  sellListings(input: Parameters<SellListings['handle']>[0]): Promise<ResoldTicket[]> {
    return this.#sellListings.handle(input);
  }

  /** Who holds a ticket now (the original order's buyer when it was never listed). */
  ownerOf(eventId: string, ticketId: string): Promise<TicketOwnership | undefined> {
    return this.#ticketOwner.handle(eventId, ticketId);
  }

  /** Deletes fan sessions expired for longer than `keepMs`. */
  purgeSessions(keepMs: number, limit = 500): Promise<number> {
    return this.#purgeSessions.handle(keepMs, limit);
  }
}

export { TopPicksError };
