import type { IncomingEvent } from '@marquee/platform/bus';
import type { EventChanged } from '@marquee/proto/catalog/v1';
import type { DealsApp } from '../../app/deals-app.js';
import { toDealEvent } from './event-projection.js';

/**
 * `event-changed` → the deals projection. Idempotent and order-safe: a state applies only when its
 * version is greater than the one held; a tombstone (null value) deletes. A record the handler
 * cannot map throws, so the bus retries it and then parks it on `event-changed.dlq`.
 */
export function eventChangedHandler(app: DealsApp) {
  return async (record: IncomingEvent<EventChanged>): Promise<void> => {
    if (record.value === null) {
      await app.deleteEvent(record.key);
      return;
    }
    const event = record.value.event;
    if (!event || !event.id) throw new Error('event-changed record without an event id');
    if (event.id !== record.key)
      throw new Error(`event-changed record key ${record.key} does not match event ${event.id}`);
    await app.applyEvent(toDealEvent(event));
  };
}
