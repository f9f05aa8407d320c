import type { IncomingEvent } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import type { OrderCancelled } from '@marquee/proto/cart/v1';
import type { CancelQueue } from '../../app/cancel-queue.js';
import type { ImportedEventRepository } from '../../app/ports.js';

/**
 * `order-cancelled` → the partner cancel, sent now or queued. A partial record (`partial`: some
 * tickets of an order that stays confirmed) is skipped: cart had the partner cancel those tickets
 * through OrderAction before it wrote the record. The record of a partial cancel of the last
 * tickets is not partial and is sent as a whole cancel, which the partner answers 315 ("already
 * cancelled", done) or takes. Idempotent: the queue id is
 * deterministic per partner + inventory order, and a cancel the partner already took answers 315,
 * which counts as done. A record that cannot be cancelled (unknown event, refused order id) throws,
 * so the bus retries it and then parks it on `order-cancelled.dlq`.
 */
export function orderCancelledHandler(deps: {
  cancels: CancelQueue;
  events: ImportedEventRepository;
  logger: Logger;
}) {
  return async (record: IncomingEvent<OrderCancelled>): Promise<void> => {
    const cancelled = record.value;
    if (cancelled === null) return;
    if (cancelled.partial) {
      deps.logger.info(
        { order_id: cancelled.orderId, tickets: cancelled.ticketIds.length },
        'order-cancelled of some tickets: the partner took it before the record',
      );
      return;
    }
    if (!cancelled.inventoryOrderId) {
      deps.logger.info(
        { order_id: cancelled.orderId },
        'order-cancelled without a partner order: nothing to cancel',
      );
      return;
    }
    let partnerId = cancelled.partnerId;
    if (!partnerId) {
      const imported = await deps.events.get(cancelled.eventId);
      if (!imported) throw new Error(`order-cancelled for unknown event ${cancelled.eventId}`);
      partnerId = imported.partnerId;
    }
    await deps.cancels.cancel({
      partnerId,
      eventId: cancelled.eventId,
      inventoryOrderId: cancelled.inventoryOrderId,
      orderId: cancelled.orderId,
      language: '',
      channelType: '',
    });
  };
}
