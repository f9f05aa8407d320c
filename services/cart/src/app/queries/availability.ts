import { orderFees, ticketPrice, type FeeSchedule } from '../../domain/pricing.js';
import { isOnSale, isPartnerEvent, type SellableEvent } from '../../domain/sellable-event.js';
import type { CartCore } from '../core/cart-core.js';
import type { AvailableSeat, LiveArea, SoldOutBook } from '../ports.js';
import type { EventAvailability, Offer } from '../types.js';

/** Available seats an availability answer lists per reserved area, and in all. */
export const SEATS_PER_AREA = 200;
export const SEATS_PER_ANSWER = 2_000;

const bySeat = (a: AvailableSeat, b: AvailableSeat) =>
  a.row.localeCompare(b.row, 'en', { numeric: true }) ||
  a.number.localeCompare(b.number, 'en', { numeric: true });

/**
 * The seats an availability answer lists, so a client can choose `begin_seat`/`end_seat`: the
 * available seats of each reserved area in row and seat order, at most `SEATS_PER_AREA` per area
 * and `SEATS_PER_ANSWER` in all (the first areas first); `available` still counts every seat.
 * General-admission areas list none.
 */
export function listedSeats(areas: readonly LiveArea[]): EventAvailability['areas'] {
  let left = SEATS_PER_ANSWER;
  return areas.map(({ seats, ...area }) => {
    if (area.generalAdmission || left === 0) return { ...area, seats: [] };
    const listed = [...seats].sort(bySeat).slice(0, Math.min(SEATS_PER_AREA, left));
    left -= listed.length;
    return { ...area, seats: listed };
  });
}

/**
 * One offer per (price level, price type) with a current price, with the platform's fees as a cart
 * charges them (`ticketPrice`, `orderFees`: the functions `priceCart` uses).
 */
export function offersOf(event: SellableEvent, fees: FeeSchedule): Offer[] {
  const perOrder = orderFees(fees);
  return event.prices.map((price) => {
    const type = event.priceTypes.find((t) => t.id === price.priceTypeId);
    const level = event.priceLevels.find((l) => l.id === price.priceLevelId);
    const perTicket = ticketPrice(price.amountMinor, fees);
    return {
      priceLevelId: price.priceLevelId,
      priceTypeId: price.priceTypeId,
      name: [level?.name, type?.name].filter(Boolean).join(' - '),
      faceValueMinor: perTicket.faceValueMinor,
      serviceFeeMinor: perTicket.serviceFeeMinor,
      serviceFeeTaxMinor: perTicket.serviceFeeTaxMinor,
      processingFeeMinor: perOrder.processingFeeMinor,
      processingFeeTaxMinor: perOrder.processingFeeTaxMinor,
      protected: type?.accessCodeRequired ?? false,
    };
  });
}

/** Live availability and offers of an event (the last known one when the partner is slow). */
export class GetAvailability {
  constructor(
    private readonly core: CartCore,
    /** A live read showing places of a price level reopens it (and the event) in the book. */
    private readonly soldOut?: SoldOutBook,
  ) {}

  async handle(input: { eventId: string; sandbox: boolean }): Promise<EventAvailability> {
    const { deps } = this.core;
    const event = await this.core.event(input.eventId);
    const now = this.core.now();
    let areas: EventAvailability['areas'] = event.areas;
    let observedAt = event.availabilityObservedAt;
    let stale = true;
    if (!input.sandbox && isPartnerEvent(event)) {
      try {
        const live = await deps.connector.availability({ eventId: event.id, withSeats: true });
        areas = listedSeats(live.areas);
        const open = live.areas.filter((a) => a.available > 0).map((a) => a.priceLevelId);
        if (open.length > 0) this.soldOut?.clear(event.id, [...new Set(open)]);
        observedAt = live.observedAt;
        stale = false;
      } catch (error) {
        deps.log.warn(
          { event_id: event.id, err: error },
          'live availability failed; answering the last known one',
        );
      }
    }
    return {
      event,
      onSale: isOnSale(event, now),
      areas,
      totalAvailable: areas.reduce((s, a) => s + a.available, 0),
      observedAt,
      offers: offersOf(event, deps.settings.fees),
      stale,
    };
  }
}
