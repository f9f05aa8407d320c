import {
  isListingId,
  withdraw,
  withdrawAdmitted,
  type ResaleListing,
} from '../../domain/listing.js';
import { ownershipId, type ListingWrites } from '../core/listing-writes.js';
import type { TopPicksDeps } from '../types.js';

/**
 * Taking a listing off sale: withdrawn by an operator (`handle`), or because a gate admitted one
 * of its seats (`seatAdmitted`, `forAdmission`); the tickets it claimed are no longer claimed.
 */
export class WithdrawListing {
  constructor(
    private readonly deps: TopPicksDeps,
    private readonly writes: ListingWrites,
  ) {}

  async handle(id: string): Promise<ResaleListing> {
    const now = this.deps.clock.now();
    const result = await this.writes.changeListing(id, (l) => withdraw(l, now));
    await Promise.allSettled(
      result.ticketIds.map((t) => this.writes.unclaimTicket(result.eventId, t, result.id, now)),
    );
    return result;
  }

  /**
   * A gate admitted the seat of `ticketId` (from `ticket-scanned`): its live listing, if any, is
   * withdrawn, even while a cart holds it, so an admitted seat is never sold. Idempotent.
   */
  async seatAdmitted(eventId: string, ticketId: string): Promise<ResaleListing | undefined> {
    const owner = await this.deps.ownership.get(ownershipId(eventId, ticketId));
    if (!owner?.listingId) return undefined;
    return this.forAdmission(owner.listingId, this.deps.clock.now());
  }

  async forAdmission(listingId: string, now: Date): Promise<ResaleListing | undefined> {
    const before = isListingId(listingId) ? await this.deps.listings.get(listingId) : undefined;
    if (!before) return undefined;
    const after = await this.writes.changeListing(listingId, (l) => withdrawAdmitted(l, now));
    if (after.state !== 'WITHDRAWN') return undefined;
    await Promise.allSettled(
      after.ticketIds.map((t) => this.writes.unclaimTicket(after.eventId, t, after.id, now)),
    );
    if (before.state !== 'WITHDRAWN') {
      this.deps.log.info(
        { listingId: after.id, eventId: after.eventId },
        'resale listing withdrawn: a gate admitted one of its seats',
      );
    }
    return after;
  }
}
