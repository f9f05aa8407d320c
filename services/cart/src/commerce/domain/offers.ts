import { ticketPrice, type FeeSchedule } from '../../domain/pricing.js';
import type { SellableArea, SellableEvent, SellablePrice } from '../../domain/sellable-event.js';
import { offerId, passwordId } from '../../domain/offer-ids.js';

/**
 * The commerce offers of an event, built from cart's event projection (price levels, price types,
 * face values, last known availability) and the platform's fee schedule. Pure: the caller gives the
 * time and the price types the caller's passwords opened.
 *
 * Rules (written down in the cart README, "Commerce"):
 * - one offer per price type × price level that has a face value now; id = offerId(type, level);
 * - offers of a protected price type (`accessCodeRequired`) are listed only when it is unlocked;
 *   its password entry is always listed (so a client knows to ask), without offers until unlocked;
 * - price zones are the price levels; areas come from the availability, each in its level's zone;
 * - per ticket: the face value, the service fee (`serviceFeeBps` of the face value, at least
 *   `serviceFeeMinMinor`) and the tax on it (`feeTaxBps`); the order processing fee is per cart;
 * - `limits.max` is the event's ticket limit, else DEFAULT_MAX_TICKETS; an offer's `max` is that,
 *   capped by what its areas had available at the last synchronisation (`sellableQty`).
 */

export const DEFAULT_MAX_TICKETS = 20;

export interface OfferCharge {
  amountMinor: number;
  label: string;
  type: string;
}

export interface BuiltOffer {
  id: string;
  priceTypeId: string;
  priceLevelId: string;
  name: string;
  description: string;
  rank: number;
  offerType: 'STANDARD' | 'SPECIAL' | 'DEFAULT';
  protected: boolean;
  start?: Date;
  end?: Date;
  faceValueMinor: number;
  fees: OfferCharge[];
  taxes: OfferCharge[];
  totalMinor: number;
  limit: { min: number; max: number; sellableQty: number; multiples: number };
  areaIds: string[];
  passwordIds: string[];
}

export interface BuiltPriceZone {
  id: string;
  name: string;
  offerIds: string[];
  areaIds: string[];
}

export interface BuiltArea {
  id: string;
  rank: number;
  name: string;
  description: string;
  areaType: 'LEVEL' | 'SECTION' | 'AREA';
  priceZoneId: string;
  offerIds: string[];
}

export interface BuiltPassword {
  id: string;
  priceTypeId: string;
  name: string;
  text: string;
  start?: Date;
  end?: Date;
  unlocked: boolean;
  offerIds: string[];
}

export interface EventOffers {
  eventId: string;
  currency: string;
  limitMax: number;
  offers: BuiltOffer[];
  priceZones: BuiltPriceZone[];
  areas: BuiltArea[];
  passwords: BuiltPassword[];
}

/** The price period of a (level, type) that applies at `now` (current, else latest started, else first). */
function periodOf(event: SellableEvent, levelId: string, typeId: string, now: Date) {
  const t = now.getTime();
  const periods = event.pricePeriods.filter((p) =>
    p.prices.some((x) => x.priceLevelId === levelId && x.priceTypeId === typeId),
  );
  return (
    periods.find((p) => p.startsAt.getTime() <= t && t <= p.endsAt.getTime()) ??
    periods
      .filter((p) => p.startsAt.getTime() <= t)
      .sort((a, b) => b.startsAt.getTime() - a.startsAt.getTime())[0] ??
    periods.sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime())[0]
  );
}

const areaType = (area: SellableArea): BuiltArea['areaType'] =>
  area.sectionId ? 'SECTION' : area.levelId ? 'LEVEL' : 'AREA';

/** The event's prices of known levels and types: by level, regular types first, then by type. */
function rankedPrices(event: SellableEvent): SellablePrice[] {
  const levelOrder = new Map(event.priceLevels.map((l, i) => [l.id, i]));
  const typeOrder = new Map(event.priceTypes.map((t, i) => [t.id, i]));
  const typeOf = (id: string) => event.priceTypes.find((t) => t.id === id);
  const known = (p: SellablePrice) =>
    event.priceLevels.some((l) => l.id === p.priceLevelId) && typeOf(p.priceTypeId);
  return event.prices
    .filter(known)
    .sort(
      (a, b) =>
        (levelOrder.get(a.priceLevelId) ?? 0) - (levelOrder.get(b.priceLevelId) ?? 0) ||
        Number(typeOf(b.priceTypeId)!.regular) - Number(typeOf(a.priceTypeId)!.regular) ||
        (typeOrder.get(a.priceTypeId) ?? 0) - (typeOrder.get(b.priceTypeId) ?? 0),
    );
}

/** The offer of one price (a type at a level), ranked `rank`, limited by what its areas have. */
function offerOf(
  event: SellableEvent,
  price: SellablePrice,
  context: { rank: number; fees: FeeSchedule; limitMax: number; now: Date },
): BuiltOffer {
  const type = event.priceTypes.find((t) => t.id === price.priceTypeId)!;
  const level = event.priceLevels.find((l) => l.id === price.priceLevelId)!;
  const period = periodOf(event, level.id, type.id, context.now);
  const perTicket = ticketPrice(price.amountMinor, context.fees);
  const areas = event.areas.filter((a) => a.priceLevelId === level.id);
  const sellableQty = areas.reduce((sum, a) => sum + Math.max(0, a.available), 0);
  return {
    id: offerId(type.id, level.id),
    priceTypeId: type.id,
    priceLevelId: level.id,
    name: type.name || type.id,
    description: [type.description, level.name].filter(Boolean).join(', '),
    rank: context.rank,
    offerType: type.accessCodeRequired ? 'SPECIAL' : type.regular ? 'STANDARD' : 'DEFAULT',
    protected: type.accessCodeRequired,
    ...(period ? { start: period.startsAt, end: period.endsAt } : {}),
    faceValueMinor: price.amountMinor,
    fees: [{ amountMinor: perTicket.serviceFeeMinor, label: 'Service fee', type: 'service' }],
    taxes: [{ amountMinor: perTicket.serviceFeeTaxMinor, label: 'Tax on fees', type: 'tax' }],
    totalMinor: perTicket.totalMinor,
    limit: { min: 1, max: Math.min(context.limitMax, sellableQty), sellableQty, multiples: 1 },
    areaIds: areas.map((a) => a.areaId),
    passwordIds: type.accessCodeRequired ? [passwordId(type.id)] : [],
  };
}

/** One password per protected type with a price; its window spans its offers' periods. */
function passwordsOf(
  event: SellableEvent,
  priced: readonly SellablePrice[],
  offers: readonly BuiltOffer[],
  unlocked: ReadonlySet<string>,
): BuiltPassword[] {
  return event.priceTypes
    .filter((t) => t.accessCodeRequired && priced.some((p) => p.priceTypeId === t.id))
    .map((type) => {
      const own = offers.filter((o) => o.priceTypeId === type.id);
      const starts = own.map((o) => o.start).filter((d): d is Date => d !== undefined);
      const ends = own.map((o) => o.end).filter((d): d is Date => d !== undefined);
      return {
        id: passwordId(type.id),
        priceTypeId: type.id,
        name: type.name || type.id,
        text: type.description || `Enter the password for ${type.name || 'this presale'}`,
        ...(starts.length > 0 ? { start: new Date(Math.min(...starts.map(Number))) } : {}),
        ...(ends.length > 0 ? { end: new Date(Math.max(...ends.map(Number))) } : {}),
        unlocked: unlocked.has(type.id),
        offerIds: own.map((o) => o.id),
      };
    });
}

export function buildOffers(input: {
  event: SellableEvent;
  fees: FeeSchedule;
  /** Protected price types the caller's passwords opened. */
  unlocked: ReadonlySet<string>;
  now: Date;
}): EventOffers {
  const { event, fees, unlocked, now } = input;
  const limitMax = event.ticketLimit > 0 ? event.ticketLimit : DEFAULT_MAX_TICKETS;
  const levelOf = (id: string) => event.priceLevels.find((l) => l.id === id);
  const areasOf = (levelId: string) => event.areas.filter((a) => a.priceLevelId === levelId);
  const priced = rankedPrices(event);
  const offers: BuiltOffer[] = [];
  for (const price of priced) {
    const type = event.priceTypes.find((t) => t.id === price.priceTypeId)!;
    if (type.accessCodeRequired && !unlocked.has(type.id)) continue;
    offers.push(offerOf(event, price, { rank: offers.length + 1, fees, limitMax, now }));
  }
  const pricedLevels = event.priceLevels.filter((l) => priced.some((p) => p.priceLevelId === l.id));
  const priceZones: BuiltPriceZone[] = pricedLevels.map((level) => ({
    id: level.id,
    name: level.name || level.id,
    offerIds: offers.filter((o) => o.priceLevelId === level.id).map((o) => o.id),
    areaIds: areasOf(level.id).map((a) => a.areaId),
  }));
  const areas: BuiltArea[] = event.areas
    .filter((a) => levelOf(a.priceLevelId))
    .map((area, index) => ({
      id: area.areaId,
      rank: index + 1,
      name: area.sectionId || area.levelId || area.areaId,
      description: [area.levelId, area.sectionId].filter(Boolean).join(' ') || area.areaId,
      areaType: areaType(area),
      priceZoneId: area.priceLevelId,
      offerIds: offers.filter((o) => o.priceLevelId === area.priceLevelId).map((o) => o.id),
    }));
  return {
    eventId: event.id,
    currency: event.currency,
    limitMax,
    offers,
    priceZones,
    areas,
    passwords: passwordsOf(event, priced, offers, unlocked),
  };
}
