import { withoutContact } from '../../domain/order.js';
import { retryingConflicts } from '@marquee/platform/kernel';
import { withoutVersion } from '@marquee/platform/kernel';
import type { Clock, OrderRepository, ResaleInventory } from '../ports.js';

/** Orders read per pass; each pass reads the fan's orders left. */
const BATCH = 100;

/**
 * A fan was deleted (`fan-deleted`): the contact of every order of the fan is erased (e-mail,
 * partner account id, fan id; `withoutContact`), the orders kept as commercial records. Before a
 * batch of orders is erased, resale erases what the fan put up for sale from them and the tickets
 * the fan holds (`ResaleInventory.eraseFan`): it finds the fan's listings by these orders, so it
 * runs while they still name the fan, and a failure there leaves the orders for the next delivery.
 * An erased order no longer names the fan, so a repeat (a redelivery, a replay of the topic) finds
 * nothing and writes nothing. Resolves with how many orders it erased.
 */
export class EraseFanContact {
  constructor(
    private readonly deps: {
      orders: OrderRepository;
      clock: Clock;
      resale?: Pick<ResaleInventory, 'eraseFan'>;
    },
  ) {}

  async handle(fanId: string): Promise<number> {
    if (!fanId) return 0;
    const { orders, clock, resale } = this.deps;
    let erased = 0;
    for (;;) {
      const batch = await orders.listByFan(fanId, BATCH);
      // Also with no order left: the tickets the fan holds are found by the fan id.
      await resale?.eraseFan(
        fanId,
        batch.map((order) => order.id),
      );
      if (batch.length === 0) return erased;
      for (const found of batch) {
        let current = found;
        await retryingConflicts(
          () =>
            orders.updateContactErased(
              withoutContact(withoutVersion(current), clock.now()),
              current.version,
            ),
          {
            beforeRetry: async (error) => {
              const again = await orders.get(found.id);
              if (!again) throw error;
              current = again;
            },
          },
        );
        erased += 1;
      }
    }
  }
}
