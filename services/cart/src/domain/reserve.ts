import type { SellableArea, SellableEvent } from './sellable-event.js';
import type { BookingLine, SealedSecret } from './booking.js';
import { priceLevelOfNumber } from '@marquee/platform/money';
import { CartError, ErrorCode, invalidInput } from './errors.js';

/** Tickets of one price type in a reserve. */
export interface ReserveTicket {
  /** Price type (ticket type) id, leading zeros kept. */
  priceTypeId: string;
  quantity: number;
  /** Best available within this price level; `''` = any. */
  priceLevelId: string;
  /** The price type's password, encrypted (commerce carts of protected offers). */
  accessCodeSealed?: SealedSecret;
}

/** One reserve of a cart (the partner cart `reserve` and each of `additional_reserves`). */
export interface Reserve {
  tickets: ReserveTicket[];
  /** Best available within these areas (in this order of preference); empty = anywhere. */
  areaIds: string[];
  /** Section (the partner's section id, or an area id); `''` = any. */
  section: string;
  /** Row label; `''` = any. */
  row: string;
  /** First and last seat numbers wanted; 0 = not given. */
  beginSeat: number;
  endSeat: number;
  /** When the seats asked for are not available, take the best available instead. */
  acceptBestAvailable: boolean;
}

/**
 * Reserves with each ticket's price level as the event names it. The partner cart's `price.id` is
 * an integer, the platform's price level number (`priceLevelNumber` of `@marquee/platform/money`,
 * the number international discovery's areas list as `price_level_ids`): a level's own id is kept,
 * a number becomes the id of the one level it names. Anything else is left for `validateReserves`
 * to refuse as an unknown price.
 */
export function resolvePriceLevels(reserves: readonly Reserve[], event: SellableEvent): Reserve[] {
  const ids = event.priceLevels.map((l) => l.id);
  return reserves.map((reserve) => ({
    ...reserve,
    tickets: reserve.tickets.map((ticket) => {
      if (!ticket.priceLevelId) return ticket;
      const level = priceLevelOfNumber(ticket.priceLevelId, ids);
      return level === undefined ? ticket : { ...ticket, priceLevelId: level };
    }),
  }));
}

/** Upper bound of tickets in one cart when the event gives no limit. */
export const DEFAULT_MAX_TICKETS = 50;

/**
 * Checks reserves against the event: known price types and levels, positive quantities, the
 * event's ticket limit, consistent seat ranges. Throws invalid input (10002).
 */
export function validateReserves(reserves: readonly Reserve[], event: SellableEvent): void {
  if (reserves.length === 0) throw invalidInput('a reserve with tickets is required', 'reserve');
  const types = new Set(event.priceTypes.map((t) => t.id));
  const levels = new Set(event.priceLevels.map((l) => l.id));
  let total = 0;
  reserves.forEach((reserve, r) => {
    const at = r === 0 ? 'reserve' : `additional_reserves[${r - 1}]`;
    if (reserve.tickets.length === 0) throw invalidInput(`${at}.tickets is empty`, `${at}.tickets`);
    for (const ticket of reserve.tickets) {
      if (!Number.isInteger(ticket.quantity) || ticket.quantity < 1)
        throw invalidInput(`${at}.tickets[].quantity must be a positive integer`, `${at}.tickets`);
      if (!types.has(ticket.priceTypeId))
        throw invalidInput(`unknown ticket type ${ticket.priceTypeId}`, `${at}.tickets`);
      if (ticket.priceLevelId && !levels.has(ticket.priceLevelId))
        throw invalidInput(`unknown price ${ticket.priceLevelId}`, `${at}.tickets`);
      total += ticket.quantity;
    }
    if (reserve.beginSeat < 0 || reserve.endSeat < 0)
      throw invalidInput('seats are positive numbers', `${at}.begin_seat`);
    if (reserve.beginSeat > 0 && reserve.endSeat > 0 && reserve.endSeat < reserve.beginSeat)
      throw invalidInput('end_seat is before begin_seat', `${at}.end_seat`);
    if ((reserve.beginSeat > 0 || reserve.endSeat > 0 || reserve.row) && !reserve.section)
      throw invalidInput('seats and rows need a section', `${at}.section`);
    if (reserve.beginSeat > 0 && reserve.endSeat > 0) {
      const wanted = reserve.tickets.reduce((s, t) => s + t.quantity, 0);
      if (reserve.endSeat - reserve.beginSeat + 1 !== wanted)
        throw invalidInput(
          'begin_seat to end_seat must span as many seats as tickets',
          `${at}.end_seat`,
        );
    }
  });
  const limit = event.ticketLimit > 0 ? event.ticketLimit : DEFAULT_MAX_TICKETS;
  if (total > limit) throw invalidInput(`at most ${limit} tickets per cart`, 'reserve.tickets');
}

const noInventory = (message: string) =>
  new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, message);

/** The area a `section` names: by section id, then by area id. */
export function areaOfSection(
  areas: readonly SellableArea[],
  section: string,
): SellableArea | undefined {
  return (
    areas.find((a) => a.sectionId === section) ??
    areas.find((a) => a.areaId === section) ??
    areas.find((a) => a.sectionId.toLowerCase() === section.toLowerCase())
  );
}

/**
 * The area to ask for among `areaIds`: the first, in the caller's order, whose last known
 * availability covers `quantity` (and whose price level matches when one is asked), else the first.
 */
export function chooseArea(
  areaIds: readonly string[],
  areas: readonly SellableArea[],
  quantity: number,
  priceLevelId: string,
): string {
  const fits = areaIds.find((id) => {
    const area = areas.find((a) => a.areaId === id);
    return (
      area !== undefined &&
      area.available >= quantity &&
      (!priceLevelId || area.priceLevelId === priceLevelId)
    );
  });
  return fits ?? areaIds[0] ?? '';
}

export interface SeatLike {
  id: string;
  row: string;
  number: string;
}

/**
 * Contiguous seats: in `row` when given (any row otherwise, in the order given), from
 * `beginSeat` to `endSeat` when given, else the first run of `quantity` consecutive numbers.
 * `undefined` when no run fits.
 */
export function chooseSeats(
  seats: readonly SeatLike[],
  want: { row: string; beginSeat: number; endSeat: number; quantity: number },
): SeatLike[] | undefined {
  const rows = new Map<string, SeatLike[]>();
  for (const seat of seats) {
    if (want.row && seat.row !== want.row) continue;
    if (!Number.isFinite(Number(seat.number))) continue;
    rows.set(seat.row, [...(rows.get(seat.row) ?? []), seat]);
  }
  for (const rowSeats of rows.values()) {
    const sorted = [...rowSeats].sort((a, b) => Number(a.number) - Number(b.number));
    if (want.beginSeat > 0) {
      const end = want.endSeat > 0 ? want.endSeat : want.beginSeat + want.quantity - 1;
      const run = sorted.filter(
        (s) => Number(s.number) >= want.beginSeat && Number(s.number) <= end,
      );
      if (run.length === want.quantity && run.length === end - want.beginSeat + 1) return run;
      continue;
    }
    for (let i = 0; i + want.quantity <= sorted.length; i += 1) {
      const run = sorted.slice(i, i + want.quantity);
      const first = Number(run[0]!.number);
      if (run.every((s, k) => Number(s.number) === first + k)) return run;
    }
  }
  return undefined;
}

/** The booking lines of a reserve with no seat selection: best available (in an area if asked). */
export function bestAvailableLines(
  reserve: Reserve,
  areas: readonly SellableArea[],
  areaId?: string,
): Omit<BookingLine, 'accessCodeSealed'>[] {
  const total = reserve.tickets.reduce((s, t) => s + t.quantity, 0);
  return reserve.tickets.map((ticket) => ({
    areaId:
      areaId ??
      (reserve.areaIds.length > 0
        ? chooseArea(reserve.areaIds, areas, total, ticket.priceLevelId)
        : ''),
    priceLevelId: ticket.priceLevelId,
    priceTypeId: ticket.priceTypeId,
    quantity: ticket.quantity,
    seatIds: [],
  }));
}

/**
 * The booking lines of a reserve that names seats: the seats of the run are given to its tickets in
 * order. Without a run, best available in the area when the reserve accepts it, else 20052.
 */
export function seatedLines(
  reserve: Reserve,
  area: SellableArea,
  seats: readonly SeatLike[],
): Omit<BookingLine, 'accessCodeSealed'>[] {
  const quantity = reserve.tickets.reduce((s, t) => s + t.quantity, 0);
  const run = chooseSeats(seats, {
    row: reserve.row,
    beginSeat: reserve.beginSeat,
    endSeat: reserve.endSeat,
    quantity,
  });
  if (!run) {
    if (reserve.acceptBestAvailable) return bestAvailableLines(reserve, [area], area.areaId);
    throw noInventory(
      `no ${quantity} contiguous seats in section ${reserve.section}${reserve.row ? ` row ${reserve.row}` : ''}`,
    );
  }
  let next = 0;
  return reserve.tickets.map((ticket) => {
    const ids = run.slice(next, next + ticket.quantity).map((s) => s.id);
    next += ticket.quantity;
    return {
      areaId: area.areaId,
      priceLevelId: ticket.priceLevelId,
      priceTypeId: ticket.priceTypeId,
      quantity: ticket.quantity,
      seatIds: ids,
    };
  });
}
