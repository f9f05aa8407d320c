import { openCase } from '../../domain/case.js';
import { belongsTo, decide } from '../../domain/decision.js';
import { BATCH, messageOf } from '../core/common.js';
import { openOrReopen } from '../core/open-case.js';
import type { SerialLane } from '../core/serial-lane.js';
import type { ReconcilerDeps } from '../types.js';

/**
 * The stale-hold sweep: holds that ended (plus the grace period) without an order are checked
 * against the partner, and a STALE_BOOKING case is opened for each the partner did not end too.
 */
export class SweepStaleBookings {
  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly lane: SerialLane,
  ) {}

  /**
   * Holds that ended (plus the grace period) without an order: the partner is asked about each. A
   * hold the partner also ended (released, expired) needs nothing; anything else, or no answer,
   * opens a STALE_BOOKING case, due now.
   */
  handle(): Promise<number> {
    return this.lane.run(async () => {
      const now = this.deps.clock.now();
      const { graceMs } = this.deps.settings;
      const holds = await this.deps.transactions.findUncheckedHoldsEndedBefore(
        new Date(now.getTime() - graceMs),
        BATCH,
      );
      let opened = 0;
      for (const hold of holds) {
        let needsCase = true;
        let detail = `hold ${hold.inventoryToken ?? '?'} ended ${hold.expiresAt?.toISOString() ?? '?'} with no order`;
        try {
          const partner = hold.inventoryToken
            ? await this.deps.connector.listOrders({
                eventId: hold.eventId,
                inventoryToken: hold.inventoryToken,
              })
            : [];
          const decision = decide({
            platform: hold,
            partner: partner.filter((p) => belongsTo(hold, p)),
            now,
            settledBefore: new Date(now.getTime() - graceMs),
          });
          needsCase = decision.outcome !== 'CONSISTENT';
        } catch (error) {
          detail += `; the partner could not be read (${messageOf(error)})`;
        }
        if (needsCase) {
          await openOrReopen(
            this.deps.cases,
            openCase({
              transaction: hold,
              trigger: 'STALE_BOOKING',
              observedAt: hold.expiresAt ?? now,
              ...(hold.inventoryToken ? { inventoryToken: hold.inventoryToken } : {}),
              dueAt: now,
              now,
              detail,
            }),
          );
          opened++;
        }
        await this.deps.transactions.upsert(hold.id, (current) =>
          current &&
          current.phase === 'held' &&
          current.heldAt?.getTime() === hold.heldAt?.getTime()
            ? { ...current, staleChecked: true }
            : undefined,
        );
      }
      return opened;
    });
  }
}
