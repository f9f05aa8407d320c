import { FINAL_STATUSES } from '../../domain/cart.js';
import type { CartCore } from '../core/cart-core.js';

/**
 * Deletes carts that ended longer ago than the retention and owe nothing (no release, no void);
 * each at the version read, so a cart written meanwhile stays. Their orders are records of their
 * own and are kept.
 */
export class PurgeEndedCarts {
  constructor(private readonly core: CartCore) {}

  /** Resolves how many it deleted. */
  async handle(limit = 500): Promise<number> {
    const { deps } = this.core;
    const retention = deps.settings.endedRetentionMs;
    if (retention === undefined) return 0;
    const cutoff = new Date(this.core.now().getTime() - retention);
    let purged = 0;
    for (const cart of await deps.carts.findEndedBefore(cutoff, limit)) {
      if (!FINAL_STATUSES.includes(cart.status) || cart.releaseOwed || cart.voidOwed) continue;
      if (await deps.carts.deleteAt(cart.id, cart.version)) purged += 1;
    }
    if (purged > 0) deps.log.info({ purged }, 'ended carts purged');
    return purged;
  }
}
