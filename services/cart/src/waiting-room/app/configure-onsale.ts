import { errorKindOf, retryingConflicts } from '@marquee/platform/kernel';
import { invalidInput, staleCart } from '../../domain/errors.js';
import { DEFAULT_CONTROL } from '../domain/admission.js';
import type { OnSaleRecord, WaitingRoomDeps } from './ports.js';

/**
 * Turns an event's waiting room on or off and sets its opening (the admin API's
 * `PUT /admin/v1/events/{eventId}/onsale`). The opening may move until the early joiners were
 * ordered at it; after that it is fixed (their lottery was drawn against it).
 */
export class ConfigureOnSale {
  constructor(private readonly deps: Pick<WaitingRoomDeps, 'onSales' | 'clock'>) {}

  async handle(eventId: string, input: { opensAt: Date; queue: boolean }): Promise<OnSaleRecord> {
    if (!eventId) throw invalidInput('the event id is required', 'event_id');
    if (Number.isNaN(input.opensAt.getTime()))
      throw invalidInput('opensAt must be a date-time', 'opensAt');
    const { onSales, clock } = this.deps;
    return retryingConflicts(async () => {
      const now = clock.now();
      const found = await onSales.get(eventId);
      if (!found) {
        try {
          return await onSales.insert(fresh(eventId, input, now));
        } catch (error) {
          if (errorKindOf(error) === 'already_exists')
            throw Object.assign(new Error('created meanwhile'), { kind: 'aborted' });
          throw error;
        }
      }
      const { version, ...current } = found;
      const moved = current.opensAt.getTime() !== input.opensAt.getTime();
      if (moved && current.frozenAt)
        throw staleCart(
          `the on-sale of event ${eventId} opened at ${current.opensAt.toISOString()}; its opening cannot move now`,
        );
      return onSales.update({ ...current, ...input, updatedAt: now }, version);
    });
  }
}

function fresh(eventId: string, input: { opensAt: Date; queue: boolean }, now: Date): OnSaleRecord {
  return {
    eventId,
    opensAt: input.opensAt,
    queue: input.queue,
    earlyCount: 0,
    admittedThrough: 0,
    admissionsPerSecond: 0,
    control: DEFAULT_CONTROL,
    updatedAt: now,
  };
}
