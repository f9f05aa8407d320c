import { withoutVersion } from '@marquee/platform/kernel';
import { notFound } from '../../domain/errors.js';
import { isListingId, type ResaleListing } from '../../domain/listing.js';
import { ownershipId } from '../core/listing-writes.js';
import type { TicketOwnership } from '../ports.js';
import type { TopPicksDeps } from '../types.js';

/** A page of an event's resale listings (operators). */
export class ListListings {
  constructor(private readonly deps: TopPicksDeps) {}

  async handle(query: {
    eventId: string;
    activeOnly: boolean;
    offset: number;
    limit: number;
  }): Promise<{ listings: ResaleListing[]; total: number }> {
    return this.deps.listings.list(query);
  }
}

/** One resale listing by id. */
export class GetListing {
  constructor(private readonly deps: TopPicksDeps) {}

  async handle(id: string): Promise<ResaleListing> {
    const listing = isListingId(id) ? await this.deps.listings.get(id) : undefined;
    if (!listing) throw notFound(`resale listing ${id} not found`);
    return withoutVersion(listing);
  }
}

/** Who holds a ticket now (the original order's buyer when it was never listed). */
export class TicketOwner {
  constructor(private readonly deps: TopPicksDeps) {}

  async handle(eventId: string, ticketId: string): Promise<TicketOwnership | undefined> {
    const found = await this.deps.ownership.get(ownershipId(eventId, ticketId));
    return found && withoutVersion(found);
  }
}
