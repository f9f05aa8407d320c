import { Err, invalid, refused } from './errors.js';
import type { AllocationPart } from './inventory.js';
import type { BookingRecord, Ticket } from './model.js';

/**
 * A partial cancel (CANCEL with `request.tickets`, Marquee's extension of the 3P API): the named
 * tickets of a confirmed order are cancelled and their places go back on sale; the order keeps its
 * other tickets. Cancelling tickets cancelled before is a success (a repeat changes nothing), so a
 * caller may retry. The last tickets cancel the order (CANCELLED), as a whole CANCEL does.
 */
export interface PartialCancelPlan {
  /** Every ticket cancelled once this is done (the earlier ones and these). */
  cancelledTicketIds: string[];
  /** Tickets this request cancels now (none: a repeat). */
  newlyCancelled: Ticket[];
  /** No ticket is left: the order is CANCELLED. */
  whole: boolean;
}

/**
 * Checks a partial cancel against the order: 400 id 114 for a ticket the order does not have;
 * 410 id 315 for an order cancelled already; 410 id 206 for a booking that is not an order.
 */
export function planPartialCancel(
  booking: BookingRecord,
  ticketIds: readonly string[],
): PartialCancelPlan {
  if (booking.status === 'CANCELLED')
    throw refused(Err.ORDER_CANCELLED, `order ${booking.orderId} has already been cancelled`);
  if (booking.status !== 'CONFIRMED' && booking.status !== 'PRINTED')
    throw refused(Err.INVALID_ORDER_ID, `booking ${booking.id} has no confirmed order`);
  const byId = new Map(booking.tickets.map((t) => [t.ticketId, t]));
  const unknown = ticketIds.filter((id) => !byId.has(id));
  if (unknown.length > 0)
    throw invalid(
      Err.INVALID_TICKET_ID,
      `order ${booking.orderId} has no ticket ${unknown.join(', ')}`,
    );
  const before = new Set(booking.cancelledTicketIds ?? []);
  const newlyCancelled = [...new Set(ticketIds)]
    .filter((id) => !before.has(id))
    .map((id) => byId.get(id)!);
  const cancelledTicketIds = [...before, ...newlyCancelled.map((t) => t.ticketId)];
  return {
    cancelledTicketIds,
    newlyCancelled,
    whole: booking.tickets.every((t) => cancelledTicketIds.includes(t.ticketId)),
  };
}

/** The inventory places of `tickets`: a seat each in reserved areas, one place each in GA. */
export function placesOf(
  tickets: readonly Ticket[],
  areaIndex: ReadonlyMap<string, number>,
  seatIndex: readonly ReadonlyMap<string, number>[],
): AllocationPart[] {
  const parts: AllocationPart[] = [];
  for (const ticket of tickets) {
    const area = areaIndex.get(ticket.areaId);
    if (area === undefined) continue;
    if (ticket.generalAdmission) {
      parts.push({ area, seats: [], places: 1 });
      continue;
    }
    const seat = ticket.seatId === undefined ? undefined : seatIndex[area]?.get(ticket.seatId);
    if (seat !== undefined) parts.push({ area, seats: [seat], places: 0 });
  }
  return parts;
}
