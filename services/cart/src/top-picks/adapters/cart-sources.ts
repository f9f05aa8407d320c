import { offerId } from '../../domain/offer-ids.js';
import type { PartnerConnector } from '../../app/ports.js';
import type { OrderRepository } from '../../app/ports.js';
import { orderFees, ticketPrice, type FeeSchedule } from '../../domain/pricing.js';
import { isOnSale, isPartnerEvent, type EventReader } from '../../domain/sellable-event.js';
import type { LiveSeats, OrderLookup, PicksEventSource } from '../app/ports.js';
import type { Money } from '@marquee/platform/money';
import type { AreaSeat, OfferCharge, PicksEvent, PrimaryOffer } from '../domain/picks.js';

/**
 * Top picks over the cart's event projection: offers with the cart's own fees (so a pick's total is
 * what the reserve then charges per ticket), offer ids as the commerce API's (`offerId(type,
 * level)`), areas from the last availability synchronisation. An event not sold through the
 * platform is `undefined` (404); outside its on-sale period it has no primary areas (resale only).
 */
export function projectionEventSource(
  events: EventReader,
  context: { fees: FeeSchedule; now: () => Date },
): PicksEventSource {
  return {
    async get(eventId) {
      const event = await events.get(eventId);
      if (!event || !isPartnerEvent(event)) return undefined;
      const currency = event.currency;
      const chargesFor = cartCharges(context.fees);
      const offers: PrimaryOffer[] = event.prices.map((price) => {
        const type = event.priceTypes.find((t) => t.id === price.priceTypeId);
        const level = event.priceLevels.find((l) => l.id === price.priceLevelId);
        const faceValue = { amountMinor: price.amountMinor, currency };
        const charges = chargesFor(faceValue);
        return {
          offerId: offerId(price.priceTypeId, price.priceLevelId),
          ticketTypeId: price.priceTypeId,
          priceLevelId: price.priceLevelId,
          name: [level?.name, type?.name].filter(Boolean).join(' - ') || price.priceTypeId,
          description: type?.description ?? '',
          faceValue,
          charges,
          protected: type?.accessCodeRequired ?? false,
        };
      });
      const picksEvent: PicksEvent = {
        id: event.id,
        currency,
        secureEntryEnabled: event.secureEntryEnabled,
        ticketLimit: event.ticketLimit,
        priceLevels: event.priceLevels.map((l) => ({ id: l.id, name: l.name || l.id })),
        offers,
        chargesFor,
        areas: isOnSale(event, context.now())
          ? event.areas.map((a) => ({
              id: a.areaId,
              name: [a.levelId, a.sectionId].filter(Boolean).join(' ') || a.areaId,
              description: '',
              section: a.sectionId || a.areaId,
              priceLevelId: a.priceLevelId,
              generalAdmission: a.generalAdmission,
              available: a.available,
            }))
          : [],
      };
      return picksEvent;
    },
  };
}

/**
 * The charges of one ticket at a price as a cart makes them (`ticketPrice`, `orderFees`: the
 * functions `priceCart` uses): the price, the service fee and its tax per ticket, and the
 * processing fee with its tax per order.
 */
export function cartCharges(fees: FeeSchedule): (price: Money) => OfferCharge[] {
  const perOrder = orderFees(fees);
  return (price) => {
    const money = (amountMinor: number) => ({ amountMinor, currency: price.currency });
    const perTicket = ticketPrice(price.amountMinor, fees);
    return [
      { reason: 'face value', type: 'face_value', amount: price, feeType: 'per ticket' },
      {
        reason: 'service fee',
        type: 'service',
        amount: money(perTicket.serviceFeeMinor),
        feeType: 'per ticket',
      },
      {
        reason: 'tax on fees',
        type: 'tax',
        amount: money(perTicket.serviceFeeTaxMinor),
        feeType: 'per ticket',
      },
      ...(perOrder.totalMinor > 0
        ? [
            {
              reason: 'order processing fee',
              type: 'processing',
              amount: money(perOrder.totalMinor),
              feeType: 'per order' as const,
            },
          ]
        : []),
    ];
  };
}

/** Available seats of every reserved area, from the partner through 3p-connector. */
export function connectorLiveSeats(connector: PartnerConnector): LiveSeats {
  return {
    async availableSeats(eventId) {
      const { areas } = await connector.availability({ eventId, withSeats: true });
      const seats = new Map<string, AreaSeat[]>();
      for (const area of areas) {
        // An empty list with seats available means the partner did not list them: counts only.
        if (!area.generalAdmission && (area.seats.length > 0 || area.available === 0))
          seats.set(area.areaId, area.seats);
      }
      return seats;
    },
  };
}

/** The cart's orders as listings read them; sandbox orders cannot be resold (not confirmed here). */
export function cartOrderLookup(orders: OrderRepository): OrderLookup {
  return {
    async getOrder(orderId) {
      const order = await orders.get(orderId);
      if (!order) return undefined;
      return {
        id: order.id,
        eventId: order.eventId,
        confirmed: order.status === 'CONFIRMED' && !order.sandbox,
        appId: order.appId,
        fanId: order.fanId ?? '',
        thirdPartyAccountId: order.thirdPartyAccountId,
        tickets: order.tickets.map((t) => ({
          ticketId: t.ticketId,
          areaId: t.areaId,
          section: t.section,
          row: t.row,
          seat: t.seat,
          generalAdmission: t.generalAdmission,
          priceLevelId: t.priceLevelId,
          priceTypeId: t.priceTypeId,
          faceValue: { amountMinor: t.faceValueMinor, currency: order.currency },
        })),
      };
    },
  };
}
