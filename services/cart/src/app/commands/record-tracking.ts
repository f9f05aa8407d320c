import { invalidInput } from '../../domain/errors.js';
import { isEventId } from '../../domain/sellable-event.js';
import type { Clock, Ids, TrackingRepository } from '../ports.js';

/** Stores an affiliate tracking hit; carts the app reserves for the event soon after carry its sharedId. */
export class RecordTracking {
  constructor(private readonly deps: { tracking: TrackingRepository; ids: Ids; clock: Clock }) {}

  async handle(input: {
    appId: string;
    eventId: string;
    sharedId: string;
    subIds: [string, string, string];
    sandbox: boolean;
  }): Promise<void> {
    if (!isEventId(input.eventId))
      throw invalidInput('event id must be 15 letters or digits', 'event_id');
    for (const [field, value] of [
      ['sharedId', input.sharedId],
      ['subId1', input.subIds[0]],
      ['subId2', input.subIds[1]],
      ['subId3', input.subIds[2]],
    ] as const)
      if (value.length > 32) throw invalidInput(`${field} is at most 32 characters`, field);
    await this.deps.tracking.insert({
      id: this.deps.ids.trackingId(),
      appId: input.appId,
      eventId: input.eventId,
      sharedId: input.sharedId,
      subId1: input.subIds[0],
      subId2: input.subIds[1],
      subId3: input.subIds[2],
      sandbox: input.sandbox,
      at: this.deps.clock.now(),
    });
  }
}
