import type { AvailabilityChanged } from '@marquee/proto/catalog/v1';
import type { IncomingEvent } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import type { Catalog } from '../../app/catalog.js';
import { availabilityUpdateOf } from '../../adapters/proto/kafka-messages.js';

/**
 * `availability-changed` → the catalog. The topic has no tombstones: a record without a value, like
 * one whose key is not its event id or whose scope is neither full nor partial, is a producer bug
 * and is retried by the bus, then logged and skipped.
 */
export function availabilityChangedHandler(catalog: Catalog, logger: Logger) {
  return async (message: IncomingEvent<AvailabilityChanged>): Promise<void> => {
    if (message.value === null) {
      throw Object.assign(new Error(`availability-changed ${message.key} carries no value`), {
        kind: 'invalid_argument',
      });
    }
    const outcome = await catalog.applyAvailabilityChanged(
      message.key,
      availabilityUpdateOf(message.value),
    );
    logger.debug(
      {
        eventId: message.key,
        sequence: message.value.sequence,
        outcome,
        offset: message.offset,
      },
      'availability-changed applied',
    );
  };
}
