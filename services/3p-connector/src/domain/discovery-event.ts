/**
 * A partner event as the platform's discovery event: the whole state `event-changed` publishes
 * (adapters/proto/event-message.ts maps it to catalog.v1 `Event`). Only what an import can know is
 * here; the message's other fields stay unset.
 */

/** Locale → text, the default locale first. */
export interface LocalizedText {
  values: Record<string, string>;
}

export interface Money {
  amountMinor: number;
  currency: string;
}

export interface Classification {
  primary: boolean;
  genre: { id: string; names?: LocalizedText | undefined };
}

export interface EventDates {
  start: {
    /** Empty when the partner hides the date. */
    localDate: string;
    /** Empty when the partner hides the time. */
    localTime: string;
    /** Absent when the date or the time is hidden. */
    dateTime?: Date | undefined;
    dateTbd: boolean;
    dateTba: boolean;
    timeTba: boolean;
    noSpecificTime: boolean;
  };
  /** Doors: absent when the partner gives none or hides them. */
  access?:
    | {
        startDateTime?: Date | undefined;
        endDateTime?: Date | undefined;
        startApproximate: boolean;
        endApproximate: boolean;
      }
    | undefined;
  timezone: string;
}

/** A place the partner describes: its name, city and country. */
export interface EventPlace {
  names?: LocalizedText | undefined;
  cityNames?: LocalizedText | undefined;
  country: { countryCode: string; names?: LocalizedText | undefined };
}

/** A venue referenced by the partner's id, under the partner's slug. */
export interface EventVenue {
  ref: { id: string; name: string };
  names?: LocalizedText | undefined;
}

export type EventLocation =
  { kind: 'place'; place: EventPlace } | { kind: 'venue'; venue: EventVenue };

/** From `startDateTime` visible, or visible until `endDateTime`, or not visible at all. */
export interface PublicVisibility {
  visible: boolean;
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
}

export interface PriceLevel {
  id: string;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
}

export interface PriceType {
  id: string;
  regular: boolean;
  /** The code itself never leaves the connector. */
  accessCodeRequired: boolean;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
}

export interface PricePeriod {
  id: string;
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
  prices: { priceLevelId: string; priceTypeId: string; amount?: Money | undefined }[];
}

export interface Ticketing {
  manifestId: string;
  maximumTicketsQuantity: number;
  currency: string;
  secureEntryEnabled: boolean;
  priceLevels: PriceLevel[];
  priceTypes: PriceType[];
  pricePeriods: PricePeriod[];
}

export interface DiscoveryEvent {
  /** Platform event id. */
  id: string;
  /** Who supplies the event: the partner's id and slug. */
  source: { id: string; name: string };
  /** Platform version of this state. */
  version: number;
  active: boolean;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
  classifications: Classification[];
  dates?: EventDates | undefined;
  location?: EventLocation | undefined;
  /** The standard price range over every price period (none without prices). */
  priceRange?: { min: Money; max: Money } | undefined;
  promoter?: { id: string; names?: LocalizedText | undefined } | undefined;
  publicVisibility?: PublicVisibility | undefined;
  /** The public sale, from the first price period's start to the last one's end. */
  publicSale?: { startDateTime?: Date; endDateTime?: Date; startTbd: boolean } | undefined;
  origin: {
    partnerId: string;
    partnerEventId: string;
    partnerVenueId: string;
    lastModification?: Date | undefined;
  };
  cancelled: boolean;
  ticketing?: Ticketing | undefined;
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
}
