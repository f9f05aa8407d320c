import { CartError, ErrorCode, overloaded } from '../../domain/errors.js';
import { isListingId } from '../../domain/listing-id.js';
import type { Reserve } from '../../domain/reserve.js';
import type { SoldOutBook } from '../ports.js';
import { FifoSlots } from './fifo-slots.js';
import type { ReserveInput } from '../types.js';

const DEFAULT_MAX_RESERVES_IN_FLIGHT = 64;
const DEFAULT_SOLD_OUT_HINT_MS = 5_000;
const DEFAULT_RESERVE_QUEUE_MAX = 2_048;
const DEFAULT_RESERVE_QUEUE_WAIT_MS = 1_500;
const RESERVE_RETRY_AFTER_MS = 1_000;
/**
 * What a request leaving the line keeps of its caller's deadline at least: the PENDING answer's
 * wait (1.5 s by default) and its writes. When served requests take longer now (a slow store),
 * twice their recent time is kept instead.
 */
const AFTER_LINE_MS = 3_000;
/**
 * Requests checked against the sold-out book at once (each reads its Idempotency-Key), the next
 * waiting their turn: a thousand fans told "sold out" together would otherwise queue a thousand
 * reads in the store's connection pool ahead of the writes of the reserves still running.
 */
const BOOK_CHECKS_AT_ONCE = 32;
/** A caller's deadline when it gave none (the platform's default for a gRPC call). */
const DEFAULT_DEADLINE_MS = 5_000;
/** What a book check keeps of its caller's deadline: its read and its answer. */
const AFTER_BOOK_LINE_MS = 1_000;

/** A reserve request waiting for a place (awaitSlot), first come first served. */
interface Waiter {
  eventId: string;
  /** A place, or `undefined`: the sold-out book got an entry of the event meanwhile. */
  resolve: (release: (() => void) | undefined) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** What the sold-out book looks at in a reserve. */
export type SoldOutProbe = Pick<
  Reserve,
  'section' | 'row' | 'beginSeat' | 'endSeat' | 'areaIds'
> & {
  tickets: readonly { quantity: number; priceLevelId?: string }[];
};

/**
 * A reserve that names no section, row, seats or areas (best available anywhere): its tickets and
 * the price levels they ask for (`''`: any); else undefined.
 */
function bestAvailable(
  requests: readonly SoldOutProbe[],
): { quantity: number; priceLevelIds: string[] } | undefined {
  let quantity = 0;
  const levels = new Set<string>();
  for (const r of requests) {
    if (r.section || r.row || r.beginSeat || r.endSeat || r.areaIds.length > 0) return undefined;
    for (const t of r.tickets) {
      quantity += t.quantity;
      levels.add(t.priceLevelId ?? '');
    }
  }
  return quantity > 0 ? { quantity, priceLevelIds: [...levels] } : undefined;
}

export interface ReserveAdmissionSettings {
  /** Reserves this process runs at once (answered or still running after a PENDING answer). */
  maxReservesInFlight?: number;
  /** How long a partner's sold-out answer refuses equal or larger best-available reserves. */
  soldOutHintMs?: number;
  /** Reserve requests that may wait for a place (awaitSlot) when none is free; more are refused. */
  reserveQueueMax?: number;
  /** How long one waits for a place at most before it is refused (0: refused at once). */
  reserveQueueWaitMs?: number;
}

/** The sold-out book's TTL when the settings give none. */
export const soldOutTtlOf = (settings: ReserveAdmissionSettings): number =>
  settings.soldOutHintMs ?? DEFAULT_SOLD_OUT_HINT_MS;

/**
 * Which reserves this process takes on: a bounded number at once (load shedding), and none the
 * partner has just answered sold out for (the sold-out book). Both refuse before a reserve costs
 * anything, so a refused client's retry is harmless.
 */
export class ReserveAdmission {
  /** Reserve requests being served (withSlot). */
  #admitted = 0;
  /** Reserves still running after their request was answered PENDING. */
  #unanswered = 0;
  /** Requests waiting for a place, oldest first. */
  readonly #waiters: Waiter[] = [];
  /** How long a request held its place lately (ms, moving average; undefined: none yet). */
  #servedMs: number | undefined;
  readonly #bookChecks = new FifoSlots(BOOK_CHECKS_AT_ONCE);
  constructor(
    private readonly settings: ReserveAdmissionSettings,
    /**
     * Price levels the partner just answered sold out for: a best-available reserve they cover is
     * refused at once, without a cart or a partner call. When 2,000 fans ask for the last 200
     * places, the 1,800 who cannot have one hear so in one step instead of each costing a cart, a
     * booking attempt and the writes of a failure. Seats asked for by section, row or area always
     * go to the partner; the partner stays the only judge of what is held.
     */
    readonly soldOut: SoldOutBook,
  ) {}

  /**
   * Runs `work` (a reserve request, from its first store access to its answer) in one of
   * `maxReservesInFlight` places, shared with reserves still running after a PENDING answer; with
   * none free it is refused at once, `unavailable` (503 with Retry-After at the edge). Under a rush
   * (thousands of fans on one on-sale) the admitted reserves then finish within their callers'
   * deadlines, instead of all of them queueing for the store and the partner until every caller
   * has given up. A refusal writes nothing, so an idempotent retry is harmless.
   */
  async withSlot<T>(work: () => Promise<T>): Promise<T> {
    const release = this.takeSlot();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Takes one of the places `withSlot` hands out, at once (refused like it when none is free); the
   * function returned gives it back (calling it again does nothing). For a port that must hold the
   * place across work of its own before the reserve, such as its idempotency record, so that a
   * burst cannot pass the capacity check all at once and only then find no place.
   */
  takeSlot(): () => void {
    this.assertCapacity();
    return this.#take();
  }

  /**
   * Takes a place like takeSlot, but when none is free waits for one, first come first served, up
   * to `reserveQueueWaitMs` (1.5 s) and with at most `reserveQueueMax` (2,048) requests waiting; past
   * either it is refused `overloaded` as takeSlot is. Under a burst the requests a moment too late
   * for a place then get one as the reserves before them end, instead of going back to their
   * clients for a retry. Resolves `undefined`, without a place, as soon as the sold-out book gets
   * an entry of `eventId` (noteSoldOut): the caller checks the book, which needs no place, and
   * asks again only if its reserve is not covered. `deadlineMs`, the caller's time left, shortens
   * the wait so that the reserve still answers within it: it keeps 3 s for the PENDING answer's
   * wait and its writes, or twice the time requests held their places lately when that is more
   * (the store is slow): then the line shrinks, down to none, and the excess is refused at once
   * rather than answered 504 by a caller that gave up.
   */
  awaitSlot(eventId: string, deadlineMs?: number): Promise<(() => void) | undefined> {
    if (this.#waiters.length === 0 && this.#hasRoom()) return Promise.resolve(this.#take());
    const waitMs = Math.min(
      this.settings.reserveQueueWaitMs ?? DEFAULT_RESERVE_QUEUE_WAIT_MS,
      deadlineMs === undefined
        ? Infinity
        : deadlineMs - Math.max(AFTER_LINE_MS, 2 * (this.#servedMs ?? 0)),
    );
    const max = this.settings.reserveQueueMax ?? DEFAULT_RESERVE_QUEUE_MAX;
    if (waitMs <= 0 || this.#waiters.length >= max) return Promise.reject(this.#refusal());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        eventId,
        resolve,
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          reject(this.#refusal());
        }, waitMs),
      };
      this.#waiters.push(waiter);
    });
  }

  /**
   * A turn to be checked against the sold-out book (a key read, then "sold out" or a reserve that
   * takes its place): at most 32 at once, the rest waiting in arrival order while their caller's
   * deadline leaves 1 s; past that refused `overloaded`. Give the turn back before waiting for a
   * reserve place.
   */
  awaitBookCheck(deadlineMs?: number): Promise<() => void> {
    const waitMs = (deadlineMs ?? DEFAULT_DEADLINE_MS) - AFTER_BOOK_LINE_MS;
    return this.#bookChecks.acquire(waitMs, () => this.#refusal());
  }

  /** Requests waiting for a place now (awaitSlot). */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Refuses at once, as withSlot would, when no place is free; takes none. */
  assertCapacity(): void {
    if (!this.#hasRoom()) throw this.#refusal();
  }

  #hasRoom(): boolean {
    const limit = this.settings.maxReservesInFlight ?? DEFAULT_MAX_RESERVES_IN_FLIGHT;
    return this.#admitted + this.#unanswered < limit;
  }

  /** 1 to 3 s, at random: refused clients spread their retries instead of returning together. */
  #refusal(): Error {
    return overloaded(
      'too many reservations in progress; retry shortly',
      RESERVE_RETRY_AFTER_MS + Math.floor(Math.random() * 3) * 1_000,
    );
  }

  /** Takes a place (there is room); the function returned gives it back once. */
  #take(): () => void {
    this.#admitted += 1;
    const since = Date.now();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#admitted -= 1;
      const served = Date.now() - since;
      this.#servedMs =
        this.#servedMs === undefined ? served : this.#servedMs + (served - this.#servedMs) / 4;
      this.#handOn();
    };
  }

  /** Places freed: the oldest waiters take them. */
  #handOn(): void {
    while (this.#waiters.length > 0 && this.#hasRoom()) {
      const waiter = this.#waiters.shift()!;
      clearTimeout(waiter.timer);
      waiter.resolve(this.#take());
    }
  }

  /** A reserve answered PENDING keeps its place until `work` settles. */
  keepPlaceUntil(work: Promise<unknown>): void {
    this.#unanswered += 1;
    void work.finally(() => {
      this.#unanswered -= 1;
      this.#handOn();
    });
  }

  /** Whether the sold-out book has a live entry of the event (refuseIfJustSoldOut may refuse). */
  soldOutHinted(eventId: string): boolean {
    return this.soldOut.hasEntries(eventId);
  }

  /**
   * The sold-out book as a check a port runs before work of its own (an idempotency record): a
   * best-available partner reserve the book covers is refused here at once (RESOURCE_EXHAUSTED
   * 20052). Sandbox and resale reserves are never refused by it. The reserve applies the same rule
   * itself, on the price levels as the event resolves them.
   */
  refuseIfJustSoldOut(input: Pick<ReserveInput, 'owner' | 'eventId' | 'requests'>): void {
    if (input.owner.sandbox || !this.soldOut.hasEntries(input.eventId)) return;
    const requests = input.requests.map((r) => ({
      tickets: r.tickets.map((t) => ({
        priceTypeId: t.priceTypeId,
        quantity: t.quantity,
        priceLevelId: t.priceLevelId ?? '',
      })),
      areaIds: r.areaIds ?? [],
      section: r.section ?? '',
      row: r.row ?? '',
      beginSeat: r.beginSeat ?? 0,
      endSeat: r.endSeat ?? 0,
    }));
    if (requests.some((r) => r.tickets.some((t) => isListingId(t.priceTypeId)))) return;
    this.refuseIfSoldOut(input.eventId, requests);
  }

  /** Refuses the reserve if the sold-out book covers it. */
  refuseIfSoldOut(eventId: string, requests: readonly SoldOutProbe[]): void {
    if (!this.soldOut.hasEntries(eventId)) return;
    const probe = bestAvailable(requests);
    if (probe && this.soldOut.isSoldOut(eventId, probe.priceLevelIds, probe.quantity))
      throw new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, 'sold out', {
        event_id: eventId,
      });
  }

  /** The partner answered this reserve sold out. */
  noteSoldOut(eventId: string, requests: readonly Reserve[]): void {
    const probe = bestAvailable(requests);
    if (probe) this.soldOut.markSoldOut(eventId, probe.priceLevelIds, probe.quantity);
    if (this.soldOut.hasEntries(eventId)) this.#wakeToBook(eventId);
  }

  /** The event's waiters leave the queue without a place, to be checked against the book. */
  #wakeToBook(eventId: string): void {
    for (let i = this.#waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.#waiters[i]!;
      if (waiter.eventId !== eventId) continue;
      this.#waiters.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.resolve(undefined);
    }
  }

  /** Places went back to the partner: the event may sell again. */
  placesReturned(eventId: string, priceLevelIds?: readonly string[]): void {
    this.soldOut.clear(eventId, priceLevelIds);
  }
}
