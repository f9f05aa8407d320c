import type { IncomingEvent } from '@marquee/platform/bus';
import type { EventChanged } from '@marquee/proto/catalog/v1';
import type { DealChanged } from '@marquee/proto/deals/v1';
import { fromDealMessage } from '../../adapters/deal-message.js';
import type { DealsApp } from '../../app/deals-app.js';
import { toDealEvent } from './event-projection.js';

/**
 * `event-changed` → this replica's deals projection (a global subscription: every replica reads the
 * topic whole). Idempotent and order-safe: a state applies only when its version is greater than the
 * one held; a tombstone (null value) deletes. A record the handler cannot map throws, so the bus
 * retries it, then logs and skips it.
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

/**
 * `event-changed` tombstones → the deals of the deleted event end (shared consumer group: once for
 * the service, not once per replica). Other records are not this consumer's business.
 */
export function deletedEventDealsHandler(app: DealsApp) {
  return async (record: IncomingEvent<EventChanged>): Promise<void> => {
    if (record.value === null) await app.endDealsOfDeletedEvent(record.key);
  };
}

/** `deal-changed` → this replica's index (global subscription): every replica's deal writes. */
export function dealChangedHandler(app: DealsApp) {
  return async (record: IncomingEvent<DealChanged>): Promise<void> => {
    const deal = record.value?.deal && fromDealMessage(record.value.deal);
    if (!deal) throw new Error(`deal-changed record ${record.key} without a valid deal`);
    app.applyDealChange(deal);
  };
}
