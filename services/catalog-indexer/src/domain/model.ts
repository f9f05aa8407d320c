/**
 * The catalog's own records: an event as the read model holds it, the discovery venues and
 * attractions resolved from events, the classification tree, and the values they are made of.
 * Nothing in the domain reads a message: the Kafka port maps `event-changed` into these
 * (adapters/proto/kafka-messages.ts) and the gRPC port maps them into CatalogService answers
 * (adapters/proto/catalog-messages.ts), once per event version at ingestion for the events a search
 * forwards as bytes (search/hits.ts, EventCodec).
 *
 * An event keeps every field its producer gave, whether the catalog reads it or only serves it
 * (descriptions, images, ticketing, ...): its answers carry all of them. Optional parts are absent
 * (`undefined`) when the producer gave none, which the answers keep apart from an empty value.
 */

/**
 * A text per locale (BCP 47 tag → text), in the producer's order: the first is its primary locale.
 * A producer may give an empty set of locales, which is not the same as no text (`undefined`).
 */
export interface LocalizedText {
  values: { [locale: string]: string };
}

/** An amount in minor units (cents; whole units for zero-decimal currencies, money.ts). */
export interface Money {
  amountMinor: number;
  currency: string;
}

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

export interface Image {
  url: string;
  width: number;
  height: number;
  ratio: string;
  fallback: boolean;
}

export interface Country {
  /** ISO 3166-1 alpha-2, as the producer gave it (compared upper-case). */
  countryCode: string;
  names?: LocalizedText | undefined;
}

export interface State {
  stateCode: string;
  names?: LocalizedText | undefined;
}

export interface Address {
  line1?: LocalizedText | undefined;
  line2?: LocalizedText | undefined;
}

/** A segment, genre or sub-genre. */
export interface ClassificationLevel {
  id: string;
  names?: LocalizedText | undefined;
}

/** One classification of an event: segment → genre → sub-genre, each level optional. */
export interface Classification {
  primary: boolean;
  segment?: ClassificationLevel | undefined;
  genre?: ClassificationLevel | undefined;
  subGenre?: ClassificationLevel | undefined;
}

/**
 * Sale status (Discovery v2 `dates.status.code`). `unrecognized`: a status this build does not
 * know (from a newer producer), answered as such.
 */
export type EventStatus =
  'unspecified' | 'onsale' | 'offsale' | 'cancelled' | 'postponed' | 'rescheduled' | 'unrecognized';

/**
 * `standard`: face value, excluding ticket fees; `standard-including-fees`: with them (README
 * "Prices and fees"). Any other type counts as excluding fees.
 */
export type PriceRangeType =
  'unspecified' | 'standard' | 'standard-including-fees' | 'unrecognized';

export interface PriceRange {
  type: PriceRangeType;
  min?: Money | undefined;
  max?: Money | undefined;
}

export type OutletType = 'unspecified' | 'venue-box-office' | 'unrecognized';

export interface Outlet {
  url: string;
  type: OutletType;
}

/** A publisher's own id for a venue or attraction, with the publisher's name. */
export interface SourceRef {
  id: string;
  name: string;
}

/** What a reference names: a discovery id, or a publisher's own id (`source`). */
export type RefTarget = { kind: 'id'; id: string } | { kind: 'source'; source: SourceRef };

/**
 * A venue or attraction as an event references it (publishing rules 2, 4 and 5), with the names
 * the producer gave and the discovery id the producer or the catalog resolved it to (empty until
 * resolved, resolution.ts).
 */
export interface EntityRef {
  ref?: RefTarget | undefined;
  names?: LocalizedText | undefined;
  resolvedId: string;
}

/** An inline place: a venue described by the event itself. */
export interface Place {
  names?: LocalizedText | undefined;
  address?: Address | undefined;
  areaNames?: LocalizedText | undefined;
  cityNames?: LocalizedText | undefined;
  country?: Country | undefined;
  state?: State | undefined;
  postalCode: string;
  location?: GeoPoint | undefined;
}

/** Where an event takes place: a referenced venue, or an inline place. */
export type EventLocation = { kind: 'venue'; venue: EntityRef } | { kind: 'place'; place: Place };

export interface PublishingSource {
  id: string;
  name: string;
}

/** The publisher of an event (`source.name` is what Discovery's `source` filter compares). */
export interface EventSource {
  id: string;
  name: string;
  publishingSource?: PublishingSource | undefined;
}

export interface StartDate {
  localDate: string;
  localTime: string;
  dateTime?: Date | undefined;
  dateTbd: boolean;
  dateTba: boolean;
  timeTba: boolean;
  noSpecificTime: boolean;
}

export interface AccessDates {
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
  startApproximate: boolean;
  endApproximate: boolean;
}

export interface EndDate {
  localTime: string;
  dateTime?: Date | undefined;
  approximate: boolean;
}

export interface EventDates {
  start?: StartDate | undefined;
  access?: AccessDates | undefined;
  end?: EndDate | undefined;
  /** IANA time zone; empty when unknown. */
  timezone: string;
}

export interface Promoter {
  id: string;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
}

/** The window in which the public may see an event (either bound optional). */
export interface PublicVisibility {
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
  visible: boolean;
}

export interface PublicSale {
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
  startTbd: boolean;
}

export interface Sales {
  publicSale?: PublicSale | undefined;
}

export interface PublishedOrigin {
  type: 'published';
  appId: string;
}

export interface PartnerImportOrigin {
  type: 'partner-import';
  partnerId: string;
  partnerEventId: string;
  partnerVenueId: string;
  lastModification?: Date | undefined;
}

/** How the event reached the platform (the publishing API, or a partner import). */
export interface EventOrigin {
  kind?: PublishedOrigin | PartnerImportOrigin | undefined;
}

export interface PriceLevel {
  id: string;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
}

export interface PriceType {
  id: string;
  regular: boolean;
  accessCodeRequired: boolean;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
}

export interface Price {
  priceLevelId: string;
  priceTypeId: string;
  amount?: Money | undefined;
}

export interface PricePeriod {
  id: string;
  startDateTime?: Date | undefined;
  endDateTime?: Date | undefined;
  prices: Price[];
}

/** Ticketing data of an event sold on the platform; absent for an event sold elsewhere. */
export interface Ticketing {
  manifestId: string;
  maximumTicketsQuantity: number;
  currency: string;
  priceLevels: PriceLevel[];
  priceTypes: PriceType[];
  pricePeriods: PricePeriod[];
  secureEntryEnabled: boolean;
}

export interface Seatmap {
  staticUrl: string;
}

/** What the catalog knows of an event's availability (`availability-changed`, availability.ts). */
export interface EventAvailability {
  soldOut: boolean;
}

/** An event: the whole state its producer published, as the read model keeps and serves it. */
export interface CatalogEvent {
  /** The platform event id (the `event-changed` key). */
  id: string;
  source?: EventSource | undefined;
  /** Only a greater version replaces the state held (app/catalog.ts). */
  version: number;
  publisherVersion: number;
  active: boolean;
  test: boolean;
  url: string;
  names?: LocalizedText | undefined;
  descriptions?: LocalizedText | undefined;
  infos?: LocalizedText | undefined;
  additionalInfos?: LocalizedText | undefined;
  pleaseNotes?: LocalizedText | undefined;
  attractions: EntityRef[];
  classifications: Classification[];
  dates?: EventDates | undefined;
  images: Image[];
  outlets: Outlet[];
  location?: EventLocation | undefined;
  priceRanges: PriceRange[];
  promoter?: Promoter | undefined;
  publicVisibility?: PublicVisibility | undefined;
  sales?: Sales | undefined;
  marketIds: number[];
  origin?: EventOrigin | undefined;
  status: EventStatus;
  ticketing?: Ticketing | undefined;
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
  seatmap?: Seatmap | undefined;
  /** A package (international `properties.package`). */
  package: boolean;
  /** Set by the catalog alone (sold out, or absent); what a producer puts there is replaced. */
  availability?: EventAvailability | undefined;
}

/** A venue as discovery knows it, merged from the events held there (search/places.ts). */
export interface Venue {
  /** Discovery venue id. */
  id: string;
  names?: LocalizedText | undefined;
  test: boolean;
  /** Empty when unknown. */
  postalCode: string;
  /** IANA time zone; empty when unknown. */
  timezone: string;
  marketIds: number[];
  country?: Country | undefined;
  state?: State | undefined;
  cityNames?: LocalizedText | undefined;
  location?: GeoPoint | undefined;
  address?: Address | undefined;
  /** Visible events that have not started (counted when asked: it moves with the clock). */
  upcomingEvents: number;
  /** The city's stable id (city-id.ts); 0 without a city name. */
  cityId: number;
}

/** An attraction as discovery knows it, merged from the events featuring it (search/places.ts). */
export interface Attraction {
  /** Discovery attraction id. */
  id: string;
  names?: LocalizedText | undefined;
  test: boolean;
  /** Empty when unknown. */
  url: string;
  images: Image[];
  /** The classifications of its events. */
  classifications: Classification[];
  /** Visible events that have not started (counted when asked). */
  upcomingEvents: number;
}

/** A genre with the sub-genres the visible events use under it. */
export interface ClassificationGenre {
  genre?: ClassificationLevel | undefined;
  subGenres: ClassificationLevel[];
}

/** A segment of the classification tree of the visible events (search/classifications.ts). */
export interface ClassificationSegment {
  segment?: ClassificationLevel | undefined;
  genres: ClassificationGenre[];
  /** Visible events classified under the segment. */
  eventCount: number;
}
