import type { IncomingEvent } from '@marquee/platform/bus';
import type { AvailabilityChanged, EventChanged } from '@marquee/proto/catalog/v1';
import type { EventProjectionStore } from '../../adapters/event-projection-store.js';

/**
 * `event-changed` → the event projection. Idempotent and order-safe: a state applies only when its
 * version is greater than the one held; a tombstone removes the event. A record whose key does not
 * match its event throws: retried, then parked on `event-changed.dlq`.
 */
export function eventChangedHandler(projection: EventProjectionStore) {
  return async (record: IncomingEvent<EventChanged>): Promise<void> => {
    if (record.value === null) {
      await projection.deleteEvent(record.key);
      return;
    }
    const event = record.value.event;
    if (!event?.id) throw new Error('event-changed record without an event id');
    if (event.id !== record.key)
      throw new Error(`event-changed record key ${record.key} does not match event ${event.id}`);
    await projection.applyEvent(event);
  };
}

/**
 * `availability-changed` → the areas of the projection, by `sequence` (older or repeated records are
 * dropped). Tombstones carry nothing and are skipped.
 */
export function availabilityChangedHandler(projection: EventProjectionStore) {
  return async (record: IncomingEvent<AvailabilityChanged>): Promise<void> => {
    if (record.value === null) return;
    if (!record.value.eventId) throw new Error('availability-changed record without an event id');
    await projection.applyAvailability(record.value);
  };
}
