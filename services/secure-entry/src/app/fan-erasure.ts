import { retryingConflicts } from '@marquee/platform/kernel';
import type { ConfirmedOrder } from '../domain/issue.js';
import { withoutContact } from '../domain/model.js';
import type { Clock, ErasedFanRepository, OrderRepository } from './ports.js';

/** Orders read per pass; each pass reads the fan's orders left. */
const BATCH = 100;

export interface FanErasureDeps {
  orders: OrderRepository;
  erasedFans: ErasedFanRepository;
  clock: Clock;
}

/**
 * A deleted fan's contact leaves secure-entry's orders (docs/security.md, "Personal data"):
 * `eraseFan` on `fan-deleted` blanks the e-mail, partner account id and fan id of every order of
 * the fan and remembers the fan id, and `screen` blanks the contact of an `order-confirmed` of that
 * fan arriving later (the two topics keep no order between them). An erased order no longer names
 * the fan, so a redelivery or a replay finds nothing more to change.
 */
export class FanErasure {
  constructor(private readonly deps: FanErasureDeps) {}

  /** Resolves with how many orders were erased by this call. */
  async eraseFan(fanId: string): Promise<number> {
    if (!fanId) return 0;
    const { orders, erasedFans, clock } = this.deps;
    // First: an order stored after the pass below read the fan's orders is caught by `recheck`.
    await erasedFans.record(fanId, clock.now());
    let erased = 0;
    for (;;) {
      const batch = await orders.listByFan(fanId, BATCH);
      if (batch.length === 0) return erased;
      for (const found of batch) {
        await retryingConflicts(async () => {
          const current = await orders.get(found.id);
          if (!current || current.fanId !== fanId) return;
          await orders.update(withoutContact(current, clock.now()));
        });
        erased += 1;
      }
    }
  }

  /**
   * After an order was stored: when its fan was deleted meanwhile (screened before `fan-deleted`
   * was recorded, stored after `eraseFan` read the fan's orders), its contact is erased now. One
   * of the two always sees the other: `eraseFan` records the fan before it reads the orders, and
   * this reads the record after the order was stored.
   */
  async recheck(order: ConfirmedOrder): Promise<void> {
    if (order.fanId && (await this.deps.erasedFans.has(order.fanId)))
      await this.eraseFan(order.fanId);
  }

  /** The order as it may be stored: without contact when its fan was deleted. */
  async screen(order: ConfirmedOrder): Promise<ConfirmedOrder> {
    if (!order.fanId || !(await this.deps.erasedFans.has(order.fanId))) return order;
    return {
      ...order,
      customerEmail: '',
      thirdPartyAccountId: '',
      fanId: '',
      contactErasedAt: this.deps.clock.now(),
    };
  }
}
