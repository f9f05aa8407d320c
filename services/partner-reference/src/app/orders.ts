import { retryingConflicts } from '@marquee/platform/kernel';
import {
  asSeenAt,
  checkConfirm,
  nextStatusFor,
  orderIdOf,
  tokenOfOrderId,
  type OrderAction,
} from '../domain/booking.js';
import { Err, refused } from '../domain/errors.js';
import { dropSaleParts, findHold } from '../domain/inventory.js';
import type { BookingRecord, PageOf } from '../domain/model.js';
import { placesOf, planPartialCancel } from '../domain/partial-cancel.js';
import { CAS_ATTEMPTS, type PartnerCore } from './partner-core.js';
import type { ConfirmInput, OrderActionInput, OrdersQuery } from './requests.js';

/**
 * POST /orders: confirms a live booking (`created`), or repeats an earlier confirmation. The order
 * is answered as it stands now.
 */
export async function confirm(
  core: PartnerCore,
  input: ConfirmInput,
): Promise<{ order: BookingRecord; created: boolean }> {
  const found = await core.booking(input.token);
  return core.queue.run(found.eventId, async () => {
    const now = core.clock.now();
    const booking = await core.current(found.id, now);
    const event = (await core.event(booking.eventId)).details;
    if (event.salesChannels !== undefined && !event.salesChannels.includes(input.channelType))
      throw refused(Err.UNAUTHORIZED_SALES_CHANNEL, 'this channel may not sell the event');
    const { externalOrderId } = input;
    if (checkConfirm(booking, now, externalOrderId) === 'repeat')
      return { order: asSeenAt(booking, now), created: false };
    if (
      input.ticketsAmountMinor !== booking.ticketsAmountMinor ||
      input.ticketsQuantity !== booking.ticketsQuantity
    )
      throw refused(
        Err.REQUEST_DOES_NOT_MATCH_ORDER,
        `the booking holds ${booking.ticketsQuantity} tickets for ${booking.ticketsAmountMinor}`,
      );
    const inventory = await core.inventories.load(booking.eventId);
    if (inventory === undefined || findHold(inventory, booking.id) === undefined)
      throw refused(Err.RESERVATION_EXPIRED, `booking ${booking.id} holds no seats any more`);
    const confirmed = await core.transition(booking, {
      status: 'CONFIRMED',
      updatedAt: now,
      orderId: orderIdOf(booking.id),
      confirmedAt: now,
      paymentMethodType: input.paymentMethodType,
      deliveryMethodType: input.deliveryMethodType,
      ...(externalOrderId !== undefined ? { externalOrderId } : {}),
    });
    return { order: asSeenAt(confirmed, now), created: true };
  });
}

/** GET /orders/{id}: an order by its id, or any transaction by its inventory token. */
export async function getOrder(core: PartnerCore, id: string): Promise<BookingRecord> {
  const token = tokenOfOrderId(id) ?? id;
  const booking = await core.repos.bookings.get(token);
  if (booking === undefined || (token !== id && booking.orderId !== id))
    throw refused(Err.INVALID_ORDER_ID, `unknown order ${id}`);
  return asSeenAt(booking, core.clock.now());
}

/** POST /orders/{id}: PRINT, ROLLBACK_PRINT or CANCEL (of the whole order or of some tickets). */
export async function orderAction(
  core: PartnerCore,
  input: OrderActionInput,
): Promise<{ action: OrderAction; order: BookingRecord }> {
  const { action, orderId } = input;
  const token = tokenOfOrderId(orderId);
  const found = token === undefined ? undefined : await core.repos.bookings.get(token);
  if (found === undefined || found.orderId !== orderId)
    throw refused(Err.INVALID_ORDER_ID, `unknown order ${orderId}`);
  return core.queue.run(found.eventId, async () => {
    const now = core.clock.now();
    const booking = await core.current(found.id, now);
    if (action === 'CANCEL' && input.ticketIds !== undefined)
      return {
        action,
        order: asSeenAt(await cancelTickets(core, booking, input.ticketIds, now), now),
      };
    const status = nextStatusFor(booking, action);
    const changed = await core.transition(booking, { status, updatedAt: now });
    return { action, order: asSeenAt(changed, now) };
  });
}

/** GET /orders: by inventory token, or an event's transactions of a period, oldest first. */
export async function listOrders(
  core: PartnerCore,
  query: OrdersQuery,
): Promise<PageOf<BookingRecord>> {
  const now = core.clock.now();
  const { size, page } = query;
  if ('inventoryToken' in query) {
    const booking = await core.repos.bookings.get(query.inventoryToken);
    return {
      items: booking === undefined || page > 0 ? [] : [asSeenAt(booking, now)],
      size,
      number: page,
      totalElements: booking === undefined ? 0 : 1,
    };
  }
  await core.event(query.eventId);
  const filter = { eventId: query.eventId, createdAt: { $gte: query.start, $lt: query.end } };
  const [total, records] = await Promise.all([
    core.repos.bookings.count(filter),
    core.repos.bookings.find(filter, { sort: { createdAt: 1 }, skip: page * size, limit: size }),
  ]);
  return {
    items: records.map((record) => asSeenAt(record, now)),
    size,
    number: page,
    totalElements: total,
  };
}

/**
 * CANCEL with `tickets` (domain/partial-cancel.ts): the booking records the cancelled tickets
 * first, then their places leave the sale; every call frees the places of all cancelled tickets
 * again (idempotent), so a retry repairs a crash between the two writes.
 */
async function cancelTickets(
  core: PartnerCore,
  booking: BookingRecord,
  ticketIds: string[],
  now: Date,
): Promise<BookingRecord> {
  if (!core.partialCancel)
    throw refused(Err.PARTIAL_REQUESTS_NOT_ALLOWED, 'this partner cancels whole orders only');
  const plan = planPartialCancel(booking, ticketIds);
  if (plan.whole) return core.transition(booking, { status: 'CANCELLED', updatedAt: now });
  const changed =
    plan.newlyCancelled.length === 0
      ? booking
      : await core.repos.bookings.update(booking.id, booking.version, {
          ...booking,
          cancelledTicketIds: plan.cancelledTicketIds,
          updatedAt: now,
        });
  const { details } = await core.event(booking.eventId);
  const manifest = await core.manifests.get(details.manifestId);
  const cancelled = booking.tickets.filter((t) => plan.cancelledTicketIds.includes(t.ticketId));
  const parts = placesOf(cancelled, manifest.areaIndex, manifest.seatIndex);
  await retryingConflicts(
    async () => {
      const inventory = await core.inventories.load(booking.eventId);
      if (inventory === undefined || !dropSaleParts(inventory, booking.id, parts)) return;
      inventory.updatedAt = now;
      await core.inventories.save(inventory);
    },
    { attempts: CAS_ATTEMPTS },
  );
  return changed;
}
