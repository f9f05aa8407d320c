/**
 * What cart knows about an event it may sell: the `event-changed` and `availability-changed` records
 * projected into one document per event. This is the read model the partner cart, the commerce API
 * and top picks build on; it is never the truth about inventory (the partner is), only the last
 * known state.
 */

/** Sale status of an event (discovery `dates.status.code`). */
export type SellableEventStatus =
  'ONSALE' | 'OFFSALE' | 'CANCELLED' | 'POSTPONED' | 'RESCHEDULED' | 'UNSPECIFIED';

/** A price level (category) of the event. */
export interface SellablePriceLevel {
  /** The partner's price level id. */
  id: string;
  /** Name in the event's default locale (`''` when the partner gave none). */
  name: string;
  /** Description in the event's default locale. */
  description: string;
}

/** A price type (adult, child, ...) of the event. */
export interface SellablePriceType {
  /** The partner's price type id, leading zeros kept (the partner cart's ticket type id). */
  id: string;
  name: string;
  description: string;
  /** The regular (default) price type; at most one per event. */
  regular: boolean;
  /**
   * The type needs a password (access code). The code itself stays with 3p-connector:
   * `ConnectorService.VerifyAccessCode` tells which types a password opens.
   */
  accessCodeRequired: boolean;
}

/** The face value of one price level and price type, in minor units of the event's currency. */
export interface SellablePrice {
  priceLevelId: string;
  priceTypeId: string;
  amountMinor: number;
}

/** Face values valid in one period. */
export interface SellablePricePeriod {
  id: string;
  startsAt: Date;
  endsAt: Date;
  prices: SellablePrice[];
}

/** Last known availability of one area (from `availability-changed`; counts only, no seats). */
export interface SellableArea {
  /** The partner's area id. */
  areaId: string;
  /** The partner's level id; `''` when none. */
  levelId: string;
  /** The partner's section id; `''` when none. */
  sectionId: string;
  /** Price level the area is assigned to. */
  priceLevelId: string;
  /** General admission (no seats). */
  generalAdmission: boolean;
  /** Tickets that could be sold when the partner answered. */
  available: number;
  /** Tickets sold, held or blocked then. */
  unavailable: number;
}

/**
 * An event as cart sells it. `partnerId` is `''` for events the platform does not sell (published
 * events, with no partner-hosted inventory): they are known so that a reserve can say "not
 * transactable" (90001) rather than "not found".
 */
export interface SellableEvent {
  /** Platform event id (15 alphanumeric characters). */
  id: string;
  /** Platform version of the event state applied (`Event.version`). */
  eventVersion: number;
  /** Partner registration hosting the inventory; `''` for events the platform does not sell. */
  partnerId: string;
  /** The partner's event id. */
  partnerEventId: string;
  /** Name in the event's default locale. */
  name: string;
  /** IANA time zone of the event (`''` when unknown: the maintenance window then uses UTC). */
  timezone: string;
  /** ISO 3166-1 alpha-2 country of the venue or place; `''` when unknown. */
  countryCode: string;
  /** Currency of every price (ISO 4217); `''` for events the platform does not sell. */
  currency: string;
  status: SellableEventStatus;
  /** `false` events are hidden from discovery (the partner's HIDDEN events). */
  active: boolean;
  /** Start of the event, when known. */
  startsAt?: Date;
  /** Public on-sale start, when known. */
  onSaleFrom?: Date;
  /** Public on-sale end, when known. */
  onSaleUntil?: Date;
  /** Tickets use secure entry (`secureTixEnabled`): billing needs `third_party_account_id`. */
  secureEntryEnabled: boolean;
  /** Tickets per transaction at most; 0 = no limit given. */
  ticketLimit: number;
  priceLevels: SellablePriceLevel[];
  priceTypes: SellablePriceType[];
  /** Every price period of the event, as imported. */
  pricePeriods: SellablePricePeriod[];
  /**
   * Face values valid at the time of the read (`EventReader.get`): for each (price level, price
   * type), the price of the period containing that instant, else of the latest period that started.
   */
  prices: SellablePrice[];
  /** Last known availability, by area; empty before the first synchronisation. */
  areas: SellableArea[];
  /** Sum of `available` over `areas`. */
  totalAvailable: number;
  /** When the partner answered the last synchronisation applied. */
  availabilityObservedAt?: Date;
}

/** The event read model, as every cart feature reads it. */
export interface EventReader {
  /** The event as of now, or `undefined` when cart has never seen it (or it was deleted). */
  get(eventId: string): Promise<SellableEvent | undefined>;
}

/** The event is sold through the platform: partner-hosted inventory with ticketing data. */
export const isPartnerEvent = (event: SellableEvent): boolean =>
  event.partnerId !== '' && event.currency !== '';

/** Whether the event can be sold at `now`: partner-hosted, on sale, inside its on-sale window. */
export function isOnSale(event: SellableEvent, now: Date): boolean {
  if (!isPartnerEvent(event)) return false;
  if (event.status === 'CANCELLED' || event.status === 'OFFSALE') return false;
  if (event.status === 'POSTPONED') return false;
  if (event.onSaleFrom && now < event.onSaleFrom) return false;
  if (event.onSaleUntil && now > event.onSaleUntil) return false;
  return true;
}

/** The prices valid at `now` (see `SellableEvent.prices`). */
export function pricesAt(periods: readonly SellablePricePeriod[], now: Date): SellablePrice[] {
  const byKey = new Map<string, { price: SellablePrice; rank: number; start: number }>();
  const t = now.getTime();
  for (const period of periods) {
    const start = period.startsAt.getTime();
    const current = start <= t && t <= period.endsAt.getTime();
    // Current periods win; otherwise the latest period that started; otherwise the earliest one.
    const rank = current ? 2 : start <= t ? 1 : 0;
    for (const price of period.prices) {
      const key = `${price.priceLevelId}\u0000${price.priceTypeId}`;
      const held = byKey.get(key);
      const better =
        !held ||
        rank > held.rank ||
        (rank === held.rank && (rank === 0 ? start < held.start : start > held.start));
      if (better) byKey.set(key, { price: { ...price }, rank, start });
    }
  }
  return [...byKey.values()].map((v) => v.price);
}

/** The face value of a (price level, price type) at read time, when the event has one. */
export function faceValueOf(
  event: SellableEvent,
  priceLevelId: string,
  priceTypeId: string,
): number | undefined {
  return event.prices.find((p) => p.priceLevelId === priceLevelId && p.priceTypeId === priceTypeId)
    ?.amountMinor;
}

/** Event ids as the partner cart takes them: 15 letters or digits. */
export const isEventId = (id: string): boolean => /^[A-Za-z0-9]{15}$/.test(id);
