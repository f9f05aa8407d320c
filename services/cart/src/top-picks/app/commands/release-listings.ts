import { errorKindOf } from '@marquee/platform/kernel';
import { release } from '../../domain/listing.js';
import type { ListingWrites } from '../core/listing-writes.js';
import type { TopPicksDeps } from '../types.js';

/** Resale inventory for the cart: a cart's listings given back for sale (release of its hold). */
export class ReleaseListings {
  constructor(
    private readonly deps: TopPicksDeps,
    private readonly writes: ListingWrites,
  ) {}

  /** Gives the cart's listings back for sale; idempotent (listings the cart does not hold are left). */
  async handle(cartId: string, listingIds: readonly string[]): Promise<void> {
    const now = this.deps.clock.now();
    for (const id of listingIds) {
      await this.writes
        .changeListing(id, (l) => release(l, cartId, now))
        .catch((error: unknown) => {
          if (errorKindOf(error) !== 'not_found') throw error;
        });
    }
  }
}
