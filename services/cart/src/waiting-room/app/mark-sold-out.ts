import { retryingConflicts } from '@marquee/platform/kernel';
import type { WaitingRoomDeps } from './ports.js';

/**
 * Tells an event's waiting room whether the event is sold out, as cart learns it from the
 * availability it keeps: sold out stops admissions and every waiting fan reads SOLD_OUT on its
 * next ask; places coming back (released holds) reopen the queue for those still waiting.
 */
export class MarkSoldOut {
  constructor(private readonly deps: Pick<WaitingRoomDeps, 'onSales' | 'clock'>) {}

  /** Resolves whether the on-sale changed. */
  async handle(eventId: string, soldOut: boolean): Promise<boolean> {
    const { onSales, clock } = this.deps;
    return retryingConflicts(async () => {
      const found = await onSales.get(eventId);
      if (!found?.queue || (found.soldOutAt !== undefined) === soldOut) return false;
      const { version, soldOutAt: _was, ...current } = found;
      const now = clock.now();
      await onSales.update(
        { ...current, ...(soldOut ? { soldOutAt: now } : {}), updatedAt: now },
        version,
      );
      return true;
    });
  }
}
