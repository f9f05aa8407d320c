import { openOrderContact, type ContactKey } from '@marquee/proto/order-contact';
import type { IncomingEvent } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import type { catalogV1 } from '@marquee/proto';
import type { FanDeleted } from '@marquee/proto/auth/v1';
import type { OrderCancelled, OrderConfirmed } from '@marquee/proto/cart/v1';
import type { FanErasure } from '../../app/fan-erasure.js';
import type { SecureEntry } from '../../app/secure-entry.js';
import type { ConfirmedOrder } from '../../domain/issue.js';

const minor = (money: { amountMinor: number } | undefined) => Number(money?.amountMinor ?? 0);

/**
 * `order-confirmed` in secure-entry's terms. The buyer's contact is opened from `sealed_contact`
 * with the contact key ring; a contact that does not open throws (the record is retried, then
 * parked on `order-confirmed.dlq`, still sealed).
 */
export function toConfirmedOrder(
  message: OrderConfirmed,
  contactKeys: readonly ContactKey[],
): ConfirmedOrder {
  const contact = openOrderContact(message.sealedContact, message.orderId, contactKeys);
  const currency =
    message.grandTotal?.currency || message.ticketsAmount?.currency || message.fees?.currency || '';
  const replaces = message.resoldTicketIds;
  return {
    orderId: message.orderId,
    eventId: message.eventId,
    partnerId: message.partnerId,
    appId: message.appId,
    tokenHash: message.orderTokenSha256.toLowerCase(),
    customerEmail: contact?.customerEmail ?? '',
    thirdPartyAccountId: contact?.thirdPartyAccountId ?? '',
    fanId: contact?.fanId ?? '',
    secureEntry: message.secureEntryEnabled,
    sandbox: message.sandbox,
    delivery: {
      id: message.deliveryOption?.id ?? '',
      carrier: message.deliveryOption?.carrier ?? '',
      serviceLevel: message.deliveryOption?.serviceLevel ?? '',
      description: message.deliveryOption?.description ?? '',
    },
    confirmedAt: message.confirmedAt ?? new Date(),
    tickets: message.tickets.map((t) => ({
      partnerTicketId: t.ticketId,
      section: t.item?.section ?? '',
      row: t.item?.row ?? '',
      seat: t.seat || t.item?.seats[0] || '',
      unitPriceMinor: minor(t.item?.unitPrice),
      currency: t.item?.unitPrice?.currency ?? currency,
    })),
    feesMinor: minor(message.fees),
    taxesMinor: minor(message.taxes),
    deliveryMinor: minor(message.delivery),
    currency,
    replaces,
  };
}

/**
 * `order-confirmed` → tickets. The contact of an order of a deleted fan is blanked before it is
 * stored (`FanErasure.screen`), or just after when the deletion raced the write (`recheck`). A record without an order token hash cannot be read by anyone and
 * is skipped with a warning; anything else that fails throws, so the bus retries it and then parks
 * it on `order-confirmed.dlq`.
 */
export function orderConfirmedHandler(deps: {
  entry: SecureEntry;
  erasure: Pick<FanErasure, 'screen' | 'recheck'>;
  logger: Logger;
  contactKeys: readonly ContactKey[];
}) {
  return async (record: IncomingEvent<OrderConfirmed>): Promise<void> => {
    const message = record.value;
    if (message === null) return;
    if (!message.orderId || !/^[0-9a-f]{64}$/i.test(message.orderTokenSha256)) {
      deps.logger.warn(
        { order_id: message.orderId },
        'order-confirmed without an order id or order token hash: no tickets issued',
      );
      return;
    }
    const order = await deps.erasure.screen(toConfirmedOrder(message, deps.contactKeys));
    await deps.entry.confirm(order);
    await deps.erasure.recheck(order);
  };
}

/**
 * `fan-deleted` → the contact of the fan's orders erased (`FanErasure`). A record naming no fan is
 * skipped; anything that fails throws, so the bus retries it, then parks it on `fan-deleted.dlq`.
 * Logs the count, never the fan id.
 */
export function fanDeletedHandler(deps: {
  erasure: Pick<FanErasure, 'eraseFan'>;
  logger: Pick<Logger, 'info'>;
}) {
  return async (record: IncomingEvent<FanDeleted>): Promise<void> => {
    const fanId = record.value?.fanId || record.key;
    if (!fanId) return;
    const orders = await deps.erasure.eraseFan(fanId);
    if (orders > 0) deps.logger.info({ orders }, "a deleted fan's order contacts erased");
  };
}

/**
 * `order-cancelled` → the order's tickets voided (idempotent). A partial cancel (`partial`) voids
 * only the entry tickets of its `ticket_ids`; the cancel of an order's last tickets voids what is
 * left, as a whole cancel does.
 */
export function orderCancelledHandler(deps: { entry: SecureEntry }) {
  return async (record: IncomingEvent<OrderCancelled>): Promise<void> => {
    const message = record.value;
    if (message === null || !message.orderId) return;
    if (message.partial && message.ticketIds.length > 0) {
      await deps.entry.cancelTickets(
        message.orderId,
        message.ticketIds,
        message.cancelledAt ?? record.time,
      );
      return;
    }
    await deps.entry.cancel(message.orderId, message.eventId, message.cancelledAt ?? record.time);
  };
}

/** `event-changed` → the event's start time (delayed delivery, token refresh). */
export function eventChangedHandler(deps: { entry: SecureEntry }) {
  return async (record: IncomingEvent<catalogV1.EventChanged>): Promise<void> => {
    if (record.value === null) {
      await deps.entry.eventChanged({
        id: record.key,
        eventVersion: Number.MAX_SAFE_INTEGER,
        deleted: true,
      });
      return;
    }
    const event = record.value.event;
    if (!event?.id) return;
    const startsAt = event.dates?.start?.dateTime;
    await deps.entry.eventChanged({
      id: event.id,
      eventVersion: Number(event.version),
      ...(startsAt ? { startsAt } : {}),
      deleted: false,
    });
  };
}
