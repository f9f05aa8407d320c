import { CartError, ErrorCode, overloaded } from '../../domain/errors.js';
import { isListingId } from '../../domain/listing-id.js';
import type { Reserve } from '../../domain/reserve.js';
import type { SoldOutBook } from '../ports.js';
import type { ReserveInput } from '../types.js';

const DEFAULT_MAX_RESERVES_IN_FLIGHT = 64;
const DEFAULT_SOLD_OUT_HINT_MS = 5_000;
const RESERVE_RETRY_AFTER_MS = 1_000;

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
    this.#admitted += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#admitted -= 1;
    };
  }

  /** Refuses at once, as withSlot would, when no place is free; takes none. */
  assertCapacity(): void {
    const limit = this.settings.maxReservesInFlight ?? DEFAULT_MAX_RESERVES_IN_FLIGHT;
    if (this.#admitted + this.#unanswered >= limit)
      // 1 to 4 s, at random: refused clients spread their retries instead of returning together.
      throw overloaded(
        'too many reservations in progress; retry shortly',
        RESERVE_RETRY_AFTER_MS + Math.floor(Math.random() * 3) * 1_000,
      );
  }

  /** A reserve answered PENDING keeps its place until `work` settles. */
  keepPlaceUntil(work: Promise<unknown>): void {
    this.#unanswered += 1;
    void work.finally(() => (this.#unanswered -= 1));
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
  }

  /** Places went back to the partner: the event may sell again. */
  placesReturned(eventId: string, priceLevelIds?: readonly string[]): void {
    this.soldOut.clear(eventId, priceLevelIds);
  }
}
