import { effectiveStatus } from '../domain/booking.js';
import { expiredHolds, settle, tokensOf } from '../domain/inventory.js';
import type { PartnerCore } from './partner-core.js';

/** Expires every hold whose time has come (the sweeper's interval). Returns how many. */
export async function sweep(core: PartnerCore): Promise<number> {
  const now = core.clock.now();
  const due = await core.repos.inventories.find({ nextExpiryAt: { $lte: now.getTime() } });
  let expired = 0;
  for (const inventory of due) {
    await core.queue.run(inventory.eventId, async () => {
      const current = await core.inventories.load(inventory.id);
      if (current === undefined) return;
      expired += expiredHolds(current, now.getTime()).length;
      await core.expireDue(current, now);
    });
  }
  return expired;
}

/**
 * Start-up repair of what a crash between two writes can leave: every hold and sale of every
 * inventory is made to follow its booking record, and bookings past their time-out are expired.
 * Returns how many inventories changed.
 */
export async function repair(core: PartnerCore): Promise<number> {
  const now = core.clock.now();
  let repaired = 0;
  for (const { id } of await core.repos.inventories.find({})) {
    await core.queue.run(id, async () => {
      core.inventories.forget(id);
      const inventory = await core.inventories.load(id);
      if (inventory === undefined) return;
      let changed = false;
      for (const token of tokensOf(inventory)) {
        let booking = await core.repos.bookings.get(token);
        if (booking !== undefined && effectiveStatus(booking, now) !== booking.status)
          booking = await core.expire(booking, now);
        changed = settle(inventory, token, booking?.status, now.getTime()) || changed;
      }
      if (changed) {
        inventory.updatedAt = now;
        await core.inventories.save(inventory);
        repaired += 1;
      }
    });
  }
  for (const booking of await core.repos.bookings.find({
    status: 'BOOKED',
    expiresAt: { $lte: now },
  })) {
    await core.queue.run(booking.eventId, () => core.current(booking.id, now));
  }
  return repaired;
}
