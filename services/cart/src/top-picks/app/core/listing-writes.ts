import { retryingConflicts, withoutVersion } from '@marquee/platform/kernel';
import { notFound } from '../../domain/errors.js';
import { isListingId, type ResaleListing } from '../../domain/listing.js';
import type { TicketOwnership } from '../ports.js';
import type { TopPicksDeps } from '../types.js';

export const ownershipId = (eventId: string, ticketId: string): string => `${eventId}.${ticketId}`;

/**
 * The writes the resale commands share: a listing changed by compare-and-set, and a ticket's
 * ownership record changed or its listing claim dropped.
 */
export class ListingWrites {
  constructor(private readonly deps: TopPicksDeps) {}

  async unclaimTicket(
    eventId: string,
    ticketId: string,
    listingId: string,
    now: Date,
  ): Promise<void> {
    await this.updateOwnership(ownershipId(eventId, ticketId), (current) =>
      current.listingId === listingId ? { ...current, listingId: '', updatedAt: now } : undefined,
    );
  }

  async updateOwnership(
    id: string,
    change: (current: TicketOwnership) => TicketOwnership | undefined,
  ): Promise<void> {
    await retryingConflicts(async () => {
      const current = await this.deps.ownership.get(id);
      if (!current) return;
      const next = change(withoutVersion(current));
      if (next) await this.deps.ownership.update(next, current.version);
    });
  }

  /** Reads, applies `change` (undefined = nothing to write) and compare-and-sets, retrying races. */
  async changeListing(
    id: string,
    change: (listing: ResaleListing) => ResaleListing | undefined,
  ): Promise<ResaleListing> {
    return retryingConflicts(async () => {
      const current = isListingId(id) ? await this.deps.listings.get(id) : undefined;
      if (!current) throw notFound(`resale listing ${id} not found`);
      const next = change(withoutVersion(current));
      if (!next) return withoutVersion(current);
      return withoutVersion(await this.deps.listings.update(next, current.version));
    });
  }
}
