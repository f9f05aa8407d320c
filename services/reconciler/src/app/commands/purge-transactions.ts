import { caseIdFor, moneyCaseIdFor } from '../../domain/case.js';
import { awaitsNothing, type Transaction } from '../../domain/transaction.js';
import { BATCH } from '../core/common.js';
import type { SerialLane } from '../core/serial-lane.js';
import type { ReconcilerDeps } from '../types.js';

/** How much one purge pass reads at most: pages of `batch` transactions. */
export interface PurgePass {
  batch?: number;
  pages?: number;
}

/**
 * Deletes the transactions whose latest fact is older than the retention and that wait for
 * nothing: no money check due, no ended hold unchecked, no open case. Each is deleted at the
 * version read, so a fact recorded meanwhile keeps it. Cases are kept: they are the operators'
 * record of what went wrong and what was done.
 */
export class PurgeSettledTransactions {
  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly lane: SerialLane,
  ) {}

  /** Resolves how many it deleted. */
  handle({ batch = BATCH, pages = 10 }: PurgePass = {}): Promise<number> {
    const retention = this.deps.settings.retentionMs;
    if (retention === undefined) return Promise.resolve(0);
    return this.lane.run(async () => {
      const { transactions, clock, log } = this.deps;
      const before = new Date(clock.now().getTime() - retention);
      // The ones kept stay first in the order, so the next page skips them.
      let kept = 0;
      let purged = 0;
      for (let page = 0; page < pages; page++) {
        const found = await transactions.findInactiveBefore(before, { skip: kept, limit: batch });
        for (const transaction of found) {
          const gone =
            (await this.#settled(transaction)) &&
            (await transactions.deleteAt(transaction.id, transaction.version));
          if (gone) purged++;
          else kept++;
        }
        if (found.length < batch) break;
      }
      if (purged > 0) log.info({ purged, kept }, 'settled transactions purged');
      return purged;
    });
  }

  async #settled(transaction: Transaction): Promise<boolean> {
    if (!awaitsNothing(transaction)) return false;
    const cases = await Promise.all(
      [caseIdFor(transaction.id), moneyCaseIdFor(transaction.id)].map((id) =>
        this.deps.cases.get(id),
      ),
    );
    return cases.every((found) => found === undefined || !found.open);
  }
}
