import { orderFees, ticketPrice, type FeeSchedule } from '../../domain/pricing.js';
import { isOnSale, isPartnerEvent, type SellableEvent } from '../../domain/sellable-event.js';
import type { CartCore } from '../core/cart-core.js';
import type { EventAvailability, Offer } from '../types.js';

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
  constructor(private readonly core: CartCore) {}

  async handle(input: { eventId: string; sandbox: boolean }): Promise<EventAvailability> {
    const { deps } = this.core;
    const event = await this.core.event(input.eventId);
    const now = this.core.now();
    let areas = event.areas;
    let observedAt = event.availabilityObservedAt;
    let stale = true;
    if (!input.sandbox && isPartnerEvent(event)) {
      try {
        const live = await deps.connector.availability({ eventId: event.id, withSeats: false });
        areas = live.areas.map(({ seats: _seats, ...area }) => area);
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
