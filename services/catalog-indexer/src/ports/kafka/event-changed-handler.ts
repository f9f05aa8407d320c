import type { EventChanged } from '@marquee/proto/catalog/v1';
import type { IncomingEvent } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import { metrics } from '@marquee/platform/metrics';
import type { Catalog } from '../../app/catalog.js';
import { catalogEventOf } from '../../adapters/proto/kafka-messages.js';

/**
 * `event-changed` → the catalog. A record without an event (a malformed producer message) is
 * treated like the tombstone it cannot be distinguished from only when its value is null; a value
 * without `event` is a producer bug: retried by the bus, then logged and skipped. The event is
 * handed to the catalog as its record (messages.ts).
 */
export function eventChangedHandler(catalog: Catalog, logger: Logger) {
  // Every replica reads the whole topic (and again at each start): a replica's count is what it
  // applied, the catch-up at start included, not the platform's number of changes.
  const changes = metrics.counter('marquee_catalog_event_changes', {
    description: 'event-changed records this replica applied to its catalogue, by outcome',
  });
  return async (message: IncomingEvent<EventChanged>): Promise<void> => {
    if (message.value !== null && !message.value.event) {
      throw Object.assign(new Error(`event-changed ${message.key} carries no event`), {
        kind: 'invalid_argument',
      });
    }
    const event = message.value?.event;
    const outcome = await catalog.applyEventChanged(
      message.key,
      event ? catalogEventOf(event) : null,
    );
    changes.add(1, { outcome });
    logger.debug(
      { eventId: message.key, outcome, offset: message.offset },
      'event-changed applied',
    );
  };
}
