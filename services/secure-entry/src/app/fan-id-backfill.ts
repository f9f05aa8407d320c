import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutContact, type EntryOrder } from '../domain/model.js';
import type {
  BackfillProgressRepository,
  CartOrders,
  Clock,
  ErasedFanRepository,
  OrderRepository,
} from './ports.js';

/** The progress record's name. */
export const FAN_ID_BACKFILL = 'order-fan-ids';
/** Orders read per batch; the progress is saved after each. */
const BATCH = 100;

export interface FanIdBackfillDeps {
  orders: OrderRepository;
  erasedFans: ErasedFanRepository;
  progress: BackfillProgressRepository;
  cartOrders: CartOrders;
  clock: Clock;
}

export interface BackfillOutcome {
  /** Orders given their fan id by this call. */
  filled: number;
  /** Orders whose contact this call erased (cart's was erased, or the fan was deleted). */
  erased: number;
}

/**
 * Orders stored before secure-entry kept the fan id have none, so a fan's deletion does not find
 * them (docs/security.md, "Personal data"). This pass asks cart's GetOrder for the fan id of each
 * order without one, once, at start:
 *
 * - cart names the fan: the order gets the fan id; if that fan was deleted already, its contact
 *   is erased at once, as `FanErasure.recheck` does for a late order;
 * - cart's order has no fan id and its contact was erased: the fan was deleted, so this order's
 *   contact is erased now;
 * - otherwise (a partner order, no fan; an order cart does not have): nothing changes.
 *
 * Batched and resumable: the last order id done is saved (`progress`) after each batch, and the
 * pass ends by marking itself done, so a later start does nothing. Several replicas may run it at
 * once: each order is changed by a compare-and-set only while it still has no fan id and no
 * erased contact, and the progress by a compare-and-set too (a replica that lost it goes on from
 * where the winner got). A failure (cart unavailable) throws with the progress of the batches
 * done kept; the caller runs it again later.
 */
export class FanIdBackfill {
  constructor(private readonly deps: FanIdBackfillDeps) {}

  async run(): Promise<BackfillOutcome> {
    const { orders, progress } = this.deps;
    const outcome: BackfillOutcome = { filled: 0, erased: 0 };
    for (;;) {
      const at = await progress.get(FAN_ID_BACKFILL);
      if (at?.done) return outcome;
      const after = at?.after ?? '';
      const batch = await orders.listWithoutFanId(after, BATCH);
      for (const order of batch) await this.#backfill(order, outcome);
      const last = batch.at(-1)?.id ?? after;
      // Lost: another replica moved on meanwhile; read where it stands and go on from there.
      await progress.save(
        FAN_ID_BACKFILL,
        { after: last, done: batch.length < BATCH },
        at?.version,
      );
    }
  }

  async #backfill(found: EntryOrder, outcome: BackfillOutcome): Promise<void> {
    const { orders, erasedFans, cartOrders, clock } = this.deps;
    if (found.contactErasedAt) return;
    const contact = await cartOrders.contactOf(found.id);
    if (!contact) return;
    const fanErased = contact.fanId !== '' && (await erasedFans.has(contact.fanId));
    const erase = fanErased || (contact.fanId === '' && contact.contactErasedAt !== undefined);
    if (contact.fanId === '' && !erase) return;
    await retryingConflicts(async () => {
      const current = await orders.get(found.id);
      if (!current || current.fanId || current.contactErasedAt) return;
      if (erase) {
        await orders.update(withoutContact(current, clock.now()));
        outcome.erased += 1;
      } else {
        await orders.update({ ...current, fanId: contact.fanId });
        outcome.filled += 1;
      }
    });
    // A deletion of the fan that read its orders before this one had the fan id recorded the fan
    // first (`FanErasure.eraseFan`): read after the write, so one of the two sees the other.
    if (!erase && (await erasedFans.has(contact.fanId))) {
      await retryingConflicts(async () => {
        const current = await orders.get(found.id);
        if (!current || current.fanId !== contact.fanId) return;
        await orders.update(withoutContact(current, clock.now()));
        outcome.erased += 1;
      });
    }
  }
}
