import { Err, refused } from './errors.js';
import type { Area, TransactionStatus, VersionedRecord } from './model.js';

/**
 * The inventory of one event, kept in ONE document so that every change to it is one
 * compare-and-set: no seat can be held or sold twice, whatever the interleaving.
 *
 * Compact on purpose (it is rewritten whole on every booking): a reserved-seating area is a string
 * with one character per seat of the manifest, in manifest order (`.` free, `h` held, `s` sold); a
 * general-admission area is two counters. Which token owns which seats is kept here too, one short
 * line per live hold (`holds`) and per sale (`sales`): `<token>~<expires ms>~<area>:<seat>.<seat>;
 * <area>:g<places>`. Each list is one string (not an array of them) so that copying and storing the
 * document stays cheap with tens of thousands of holds. That makes every change idempotent by token and lets a crash between the
 * inventory write and the booking write be repaired: the booking record decides, the inventory
 * follows (`settle`).
 */
export const FREE = '.';
export const HELD = 'h';
export const SOLD = 's';

export interface AreaStock {
  areaId: string;
  generalAdmission: boolean;
  capacity: number;
  /** Reserved seating: one state character per seat; empty for general admission. */
  seats: string;
  /** General admission: places held and sold. */
  held: number;
  sold: number;
}

export interface InventoryRecord extends VersionedRecord {
  eventId: string;
  areas: AreaStock[];
  /** Live holds, one encoded allocation per line (one string: cheap to copy and to store). */
  holds: string;
  /** Sales, one encoded allocation per line. */
  sales: string;
  /** Earliest expiry of a hold (epoch ms); null without holds. What the sweeper looks for. */
  nextExpiryAt: number | null;
  updatedAt: Date;
}

export interface AllocationPart {
  /** Index into `areas`. */
  area: number;
  /** Reserved seating: seat indexes in the area. */
  seats: number[];
  /** General admission: places. */
  places: number;
}

export interface Allocation {
  token: string;
  /** Epoch ms; 0 for sales. */
  expiresAt: number;
  parts: AllocationPart[];
}

export function newInventory(
  eventId: string,
  areas: readonly Area[],
  now: Date,
): Omit<InventoryRecord, 'version'> {
  return {
    id: eventId,
    eventId,
    areas: areas.map((area) => ({
      areaId: area.id,
      generalAdmission: area.generalAdmission,
      capacity: area.generalAdmission ? area.capacity : (area.seats?.length ?? 0),
      seats: area.generalAdmission ? '' : FREE.repeat(area.seats?.length ?? 0),
      held: 0,
      sold: 0,
    })),
    holds: '',
    sales: '',
    nextExpiryAt: null,
    updatedAt: now,
  };
}

export function encodeAllocation(allocation: Allocation): string {
  const parts = allocation.parts.map((part) =>
    part.seats.length > 0 ? `${part.area}:${part.seats.join('.')}` : `${part.area}:g${part.places}`,
  );
  return `${allocation.token}~${allocation.expiresAt}~${parts.join(';')}`;
}

export function decodeAllocation(encoded: string): Allocation {
  const [token = '', expiresAt = '0', body = ''] = encoded.split('~');
  const parts = body
    .split(';')
    .filter((part) => part.length > 0)
    .map((part): AllocationPart => {
      const [area = '0', what = ''] = part.split(':');
      return what.startsWith('g')
        ? { area: Number(area), seats: [], places: Number(what.slice(1)) }
        : { area: Number(area), seats: what.split('.').map(Number), places: 0 };
    });
  return { token, expiresAt: Number(expiresAt), parts };
}

/** The lines of a list. */
export const entriesOf = (list: string): string[] => (list === '' ? [] : list.split('\n'));

const tokenOfEntry = (entry: string): string => entry.slice(0, entry.indexOf('~'));

/** Tokens with a hold or a sale. */
export const tokensOf = (inventory: InventoryRecord): string[] =>
  [...entriesOf(inventory.holds), ...entriesOf(inventory.sales)].map(tokenOfEntry);

/** Where a token's line is in a list: `[start, end)`, or undefined. */
function locate(list: string, token: string): [number, number] | undefined {
  const at = `\n${list}`.indexOf(`\n${token}~`);
  if (at < 0) return undefined;
  const newline = list.indexOf('\n', at);
  return [at, newline < 0 ? list.length : newline];
}

function entryOf(list: string, token: string): string | undefined {
  const where = locate(list, token);
  return where === undefined ? undefined : list.slice(where[0], where[1]);
}

function without(list: string, token: string): string {
  const [start, end] = locate(list, token)!;
  if (start === 0) return list.slice(end + 1);
  return list.slice(0, start - 1) + list.slice(end);
}

const appended = (list: string, entry: string): string =>
  list === '' ? entry : `${list}\n${entry}`;

export const findHold = (inventory: InventoryRecord, token: string): Allocation | undefined => {
  const entry = entryOf(inventory.holds, token);
  return entry === undefined ? undefined : decodeAllocation(entry);
};

export const hasSale = (inventory: InventoryRecord, token: string): boolean =>
  locate(inventory.sales, token) !== undefined;

/** Free places of an area. */
export function availableIn(stock: AreaStock): number {
  if (stock.generalAdmission) return Math.max(0, stock.capacity - stock.held - stock.sold);
  let free = 0;
  for (let i = 0; i < stock.seats.length; i += 1) if (stock.seats.charCodeAt(i) === 46) free += 1;
  return free;
}

export const totalAvailable = (inventory: InventoryRecord): number =>
  inventory.areas.reduce((sum, stock) => sum + availableIn(stock), 0);

function setSeats(stock: AreaStock, seats: readonly number[], from: string, to: string): void {
  const chars = stock.seats.split('');
  for (const seat of seats) {
    if (chars[seat] !== from)
      throw new Error(`inventory ${stock.areaId}: seat ${seat} is '${chars[seat]}', not '${from}'`);
    chars[seat] = to;
  }
  stock.seats = chars.join('');
}

function recomputeNextExpiry(inventory: InventoryRecord): void {
  let next: number | null = null;
  for (const hold of entriesOf(inventory.holds)) {
    const expiresAt = Number(hold.split('~')[1]);
    if (next === null || expiresAt < next) next = expiresAt;
  }
  inventory.nextExpiryAt = next;
}

/** Marks the allocation's places held and records the hold. The places must be free. */
export function applyHold(inventory: InventoryRecord, allocation: Allocation): void {
  for (const part of allocation.parts) {
    const stock = inventory.areas[part.area]!;
    if (part.seats.length > 0) setSeats(stock, part.seats, FREE, HELD);
    else {
      if (availableIn(stock) < part.places)
        throw new Error(`inventory ${stock.areaId}: not ${part.places} free places`);
      stock.held += part.places;
    }
  }
  inventory.holds = appended(inventory.holds, encodeAllocation(allocation));
  if (inventory.nextExpiryAt === null || allocation.expiresAt < inventory.nextExpiryAt)
    inventory.nextExpiryAt = allocation.expiresAt;
}

/** Frees a held allocation; false when the token holds nothing. */
export function dropHold(inventory: InventoryRecord, token: string): boolean {
  const allocation = findHold(inventory, token);
  if (allocation === undefined) return false;
  for (const part of allocation.parts) {
    const stock = inventory.areas[part.area]!;
    if (part.seats.length > 0) setSeats(stock, part.seats, HELD, FREE);
    else stock.held -= part.places;
  }
  inventory.holds = without(inventory.holds, token);
  recomputeNextExpiry(inventory);
  return true;
}

/** Turns a hold into a sale; false when the token holds nothing. */
export function sellHold(inventory: InventoryRecord, token: string): boolean {
  const allocation = findHold(inventory, token);
  if (allocation === undefined) return false;
  for (const part of allocation.parts) {
    const stock = inventory.areas[part.area]!;
    if (part.seats.length > 0) setSeats(stock, part.seats, HELD, SOLD);
    else {
      stock.held -= part.places;
      stock.sold += part.places;
    }
  }
  inventory.holds = without(inventory.holds, token);
  inventory.sales = appended(inventory.sales, encodeAllocation({ ...allocation, expiresAt: 0 }));
  recomputeNextExpiry(inventory);
  return true;
}

/** Puts a sale's places back on sale; false when the token has no sale. */
export function dropSale(inventory: InventoryRecord, token: string): boolean {
  const entry = entryOf(inventory.sales, token);
  if (entry === undefined) return false;
  const allocation = decodeAllocation(entry);
  for (const part of allocation.parts) {
    const stock = inventory.areas[part.area]!;
    if (part.seats.length > 0) setSeats(stock, part.seats, SOLD, FREE);
    else stock.sold -= part.places;
  }
  inventory.sales = without(inventory.sales, token);
  return true;
}

/**
 * Puts some places of a sale back on sale (a partial cancel): the seats of `parts` that the
 * token's sale still has, and up to `places` of each general-admission area. Idempotent: places
 * freed before are not in the sale any more and are skipped. The sale keeps its other places (and
 * disappears when it has none left). Returns whether the inventory changed.
 */
export function dropSaleParts(
  inventory: InventoryRecord,
  token: string,
  parts: readonly AllocationPart[],
): boolean {
  const entry = entryOf(inventory.sales, token);
  if (entry === undefined) return false;
  const sale = decodeAllocation(entry);
  let changed = false;
  const kept: AllocationPart[] = [];
  for (const part of sale.parts) {
    const dropping = parts.filter((p) => p.area === part.area);
    const seats = new Set(dropping.flatMap((p) => p.seats));
    const places = dropping.reduce((sum, p) => sum + p.places, 0);
    const stock = inventory.areas[part.area]!;
    const freedSeats = part.seats.filter((seat) => seats.has(seat));
    const freedPlaces = Math.min(part.places, places);
    if (freedSeats.length > 0) setSeats(stock, freedSeats, SOLD, FREE);
    stock.sold -= freedPlaces;
    changed ||= freedSeats.length > 0 || freedPlaces > 0;
    const rest = {
      area: part.area,
      seats: part.seats.filter((seat) => !seats.has(seat)),
      places: part.places - freedPlaces,
    };
    if (rest.seats.length > 0 || rest.places > 0) kept.push(rest);
  }
  if (!changed) return false;
  inventory.sales = without(inventory.sales, token);
  if (kept.length > 0)
    inventory.sales = appended(inventory.sales, encodeAllocation({ ...sale, parts: kept }));
  return true;
}

/** Tokens whose hold has run out at `now`. */
export function expiredHolds(inventory: InventoryRecord, now: number): string[] {
  if (inventory.nextExpiryAt === null || inventory.nextExpiryAt > now) return [];
  return entriesOf(inventory.holds)
    .map(decodeAllocation)
    .filter((hold) => hold.expiresAt <= now)
    .map((hold) => hold.token);
}

/**
 * Makes the inventory follow a booking's status (`undefined`: no booking record). Idempotent; used
 * after every transition and by the repair at start-up:
 * - CONFIRMED / PRINTED: a hold becomes a sale;
 * - RELEASED / EXPIRED / CANCELLED: the hold or sale is freed;
 * - no record (a crash between the hold and the booking write): the hold is freed once expired;
 * - BOOKED: nothing (the sweeper expires the booking first, then settles).
 * Returns whether the inventory changed.
 */
export function settle(
  inventory: InventoryRecord,
  token: string,
  status: TransactionStatus | undefined,
  now: number,
): boolean {
  switch (status) {
    case 'CONFIRMED':
    case 'PRINTED':
      return sellHold(inventory, token);
    case 'RELEASED':
    case 'EXPIRED':
    case 'CANCELLED': {
      const hold = dropHold(inventory, token);
      const sale = dropSale(inventory, token);
      return hold || sale;
    }
    case undefined: {
      const hold = findHold(inventory, token);
      return hold !== undefined && hold.expiresAt <= now ? dropHold(inventory, token) : false;
    }
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Best available

/** Consecutive seat indexes of one row of an area, `[start, end)` in manifest order. */
export interface RowRange {
  start: number;
  end: number;
}

/** Rows of a reserved-seating area: runs of consecutive seats with the same row. */
export function rowRanges(area: Area): RowRange[] {
  const seats = area.seats ?? [];
  const ranges: RowRange[] = [];
  for (let i = 0; i < seats.length; i += 1) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && seats[last.start]!.row === seats[i]!.row) last.end = i + 1;
    else ranges.push({ start: i, end: i + 1 });
  }
  return ranges;
}

export interface SeatRequest {
  /** Area indexes allowed for this line, in order of preference. */
  candidates: number[];
  quantity: number;
  /** Named seats (indexes in `candidates[0]`); absent = best available. */
  seats?: number[];
}

/**
 * Chooses places for each request line without changing the inventory (the caller applies the
 * result with `applyHold`). Best available: the first candidate area with `quantity` side by side
 * in one row; else the first area with `quantity` free anywhere; else spread over the candidates
 * in order. Throws 306 when the event has nothing left, 303 when a line asks for more than its
 * areas have, 307 when a named seat is taken.
 */
export function chooseSeats(
  inventory: InventoryRecord,
  rowsOf: (area: number) => readonly RowRange[],
  requests: readonly SeatRequest[],
): AllocationPart[][] {
  if (totalAvailable(inventory) === 0)
    throw refused(Err.EVENT_HAS_NO_AVAILABILITY, 'the event has no availability');
  const work = new WorkingAreas(inventory);
  return requests.map((request): AllocationPart[] => {
    const { candidates } = request;
    if (request.seats !== undefined) {
      const area = candidates[0]!;
      const chars = work.stateOf(area);
      if (request.seats.some((seat) => chars[seat] !== FREE))
        throw refused(Err.ITEMS_NOT_AVAILABLE, 'some requested seats are not available');
      return [work.take(area, [...request.seats], 0)];
    }
    return sideBySide(work, rowsOf, request) ?? anywhere(work, request);
  });
}

/** Best available, first choice: `quantity` side by side in one row of the first area that has them. */
function sideBySide(
  work: WorkingAreas,
  rowsOf: (area: number) => readonly RowRange[],
  { candidates, quantity }: SeatRequest,
): AllocationPart[] | undefined {
  for (const area of candidates) {
    if (work.generalAdmission(area)) {
      if (work.freeIn(area) >= quantity) return [work.take(area, [], quantity)];
      continue;
    }
    const chars = work.stateOf(area);
    for (const row of rowsOf(area)) {
      let run = 0;
      for (let seat = row.start; seat < row.end; seat += 1) {
        run = chars[seat] === FREE ? run + 1 : 0;
        if (run === quantity) {
          const seats = Array.from({ length: quantity }, (_, i) => seat - quantity + 1 + i);
          return [work.take(area, seats, 0)];
        }
      }
    }
  }
  return undefined;
}

/** Best available, else: one area with `quantity` free anywhere, else spread over the candidates. */
function anywhere(work: WorkingAreas, { candidates, quantity }: SeatRequest): AllocationPart[] {
  const total = candidates.reduce((sum, area) => sum + work.freeIn(area), 0);
  if (total < quantity)
    throw refused(
      Err.AVAILABLE_TICKETS_EXCEEDED,
      `only ${total} places available for ${quantity} requested`,
    );
  const single = candidates.find((area) => work.freeIn(area) >= quantity);
  const order = single === undefined ? candidates : [single];
  const parts: AllocationPart[] = [];
  let missing = quantity;
  for (const area of order) {
    if (missing === 0) break;
    const n = Math.min(missing, work.freeIn(area));
    if (n === 0) continue;
    if (work.generalAdmission(area)) parts.push(work.take(area, [], n));
    else {
      const seats: number[] = [];
      const chars = work.stateOf(area);
      for (let seat = 0; seat < chars.length && seats.length < n; seat += 1)
        if (chars[seat] === FREE) seats.push(seat);
      parts.push(work.take(area, seats, 0));
    }
    missing -= n;
  }
  return parts;
}

/**
 * Working copies of the areas one `chooseSeats` call touches, so later lines of a request see the
 * places earlier lines took; the stored inventory is not changed.
 */
class WorkingAreas {
  readonly #seatState = new Map<number, string[]>();
  readonly #placesLeft = new Map<number, number>();

  constructor(private readonly inventory: InventoryRecord) {}

  generalAdmission(area: number): boolean {
    return this.inventory.areas[area]!.generalAdmission;
  }

  /** Seat states to read: the working copy once this request took seats of the area, else the stored string. */
  stateOf(area: number): string | string[] {
    return this.#seatState.get(area) ?? this.inventory.areas[area]!.seats;
  }

  freeIn(area: number): number {
    const stock = this.inventory.areas[area]!;
    if (stock.generalAdmission) return this.#placesLeft.get(area) ?? availableIn(stock);
    const chars = this.#seatState.get(area);
    return chars === undefined
      ? availableIn(stock)
      : chars.reduce((n, c) => (c === FREE ? n + 1 : n), 0);
  }

  take(area: number, seats: number[], places: number): AllocationPart {
    if (this.generalAdmission(area)) this.#placesLeft.set(area, this.freeIn(area) - places);
    else {
      const chars = this.#seatsOf(area);
      for (const seat of seats) chars[seat] = HELD;
    }
    return { area, seats, places: this.generalAdmission(area) ? places : 0 };
  }

  #seatsOf(area: number): string[] {
    let chars = this.#seatState.get(area);
    if (chars === undefined) {
      chars = this.inventory.areas[area]!.seats.split('');
      this.#seatState.set(area, chars);
    }
    return chars;
  }
}
