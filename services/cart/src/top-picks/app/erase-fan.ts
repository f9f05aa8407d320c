import { retryingConflicts } from '@marquee/platform/kernel';
import { eraseSeller, type ResaleListing } from '../domain/listing.js';
import type { Clock, ListingRepository, OwnershipRepository, TicketOwnership } from './ports.js';

/** Ticket ownership records read per pass; each pass reads the fan's records left. */
const BATCH = 100;

export interface EraseFanResaleDeps {
  listings: ListingRepository;
  ownership: OwnershipRepository;
  clock: Clock;
}

/** What one erasure changed. */
export interface FanResaleErased {
  /** Listings withdrawn or stripped of their seller notes. */
  listings: number;
  /** Ticket ownership records whose owner (fan id, partner account id) was blanked. */
  tickets: number;
}

/**
 * A deleted fan's part in resale (docs/security.md, "Personal data"):
 *
 * - every listing of the fan's orders (`orderIds`, the seller's orders) that is still on sale is
 *   withdrawn, held ones included, and every listing of them loses its seller notes; the tickets a
 *   withdrawn listing claimed are no longer claimed;
 * - every ticket the fan holds (`ticket_ownership`, `ownerFanId`) loses its owner's fan id and
 *   partner account id; the order id, which names no one once the order's contact is erased, stays,
 *   so the ticket's history and its resale chain stay whole.
 *
 * Fan sessions name no fan (an app and random ids) and stay until purged. Idempotent: a changed
 * listing or record no longer matches what this changes, so a repeat writes nothing.
 */
export class EraseFanResale {
  constructor(private readonly deps: EraseFanResaleDeps) {}

  async handle(fanId: string, orderIds: readonly string[]): Promise<FanResaleErased> {
    const done: FanResaleErased = { listings: 0, tickets: 0 };
    if (!fanId) return done;
    const now = this.deps.clock.now();
    for (const found of await this.deps.listings.listByOrders(orderIds)) {
      const written = await this.#changeListing(found.id, (l) => eraseSeller(l, now));
      if (!written) continue;
      done.listings += 1;
      if (written.state === 'WITHDRAWN')
        for (const ticketId of written.ticketIds)
          await this.#changeOwnership(`${written.eventId}.${ticketId}`, (o) =>
            o.listingId === written.id ? { ...o, listingId: '', updatedAt: now } : undefined,
          );
    }
    for (;;) {
      const batch = await this.deps.ownership.listByFan(fanId, BATCH);
      if (batch.length === 0) return done;
      for (const record of batch) {
        await this.#changeOwnership(record.id, (o) =>
          o.ownerFanId === fanId
            ? { ...o, ownerFanId: '', thirdPartyAccountId: '', updatedAt: now }
            : undefined,
        );
        done.tickets += 1;
      }
    }
  }

  /** Read, change, compare-and-set; resolves what it wrote, `undefined` when it wrote nothing. */
  async #changeListing(
    id: string,
    change: (listing: ResaleListing) => ResaleListing | undefined,
  ): Promise<ResaleListing | undefined> {
    return retryingConflicts(async () => {
      const current = await this.deps.listings.get(id);
      if (!current) return undefined;
      const { version, ...listing } = current;
      const next = change(listing);
      if (!next) return undefined;
      await this.deps.listings.update(next, version);
      return next;
    });
  }

  async #changeOwnership(
    id: string,
    change: (record: TicketOwnership) => TicketOwnership | undefined,
  ): Promise<void> {
    await retryingConflicts(async () => {
      const current = await this.deps.ownership.get(id);
      if (!current) return;
      const { version, ...record } = current;
      const next = change(record);
      if (next) await this.deps.ownership.update(next, version);
    });
  }
}
