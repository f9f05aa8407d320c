import { CartError, ErrorCode } from '../../domain/errors.js';
import { admissionHorizon, type OnSale } from '../domain/queue.js';
import type { WaitingRoomDeps } from './ports.js';

/**
 * An event's on-sale as this replica's watch last read it (at most a poll old, one read for every
 * caller meanwhile): what the edge's long polls wait on. The edge asks for it once per event and
 * poll for all the fans it holds, then reads a fan's ticket again only when `waitingMayEnd` says
 * the fan may read something else; a queue turned off is answered too (the fans' wait ends).
 */
export class ReadOnSale {
  constructor(private readonly deps: Pick<WaitingRoomDeps, 'watch' | 'settings'>) {}

  /** The on-sale, with its admission horizon (`admissionHorizon`). */
  async handle(eventId: string): Promise<OnSale & { admissionHorizon: number }> {
    const found = await this.deps.watch.latest(eventId);
    if (!found)
      throw new CartError('not_found', ErrorCode.INVALID_CART, `event ${eventId} has no on-sale`, {
        event_id: eventId,
      });
    const { version: _version, ...onSale } = found;
    return { ...onSale, admissionHorizon: admissionHorizon(onSale, this.deps.settings.admitBatch) };
  }
}
