import type { Manifest, VersionedRecord } from './model.js';

/**
 * An event as partner-reference keeps it. Date-times the partner states (the show, the doors, price
 * periods, a visibility change) are kept as the zoned ISO 8601 text they were given in: the offset
 * is part of what they say (local time at the venue), and they are answered exactly as given.
 */
export type ZonedDateTime = string;

export type EventStatus = 'ON_SALE' | 'CANCELED';

export interface TextInfo {
  lang: string;
  name: string;
  description?: string;
}

export interface PriceTypeText extends TextInfo {
  additionalInfo?: string;
  printedDescription?: string;
}

export interface DateTimeProperties {
  dateHidden: boolean;
  timeHidden: boolean;
}

export type Visibility = 'VISIBLE' | 'NOT_VISIBLE' | 'HIDDEN';

export interface EventVisibility {
  defaultVisibility: Visibility;
  override?: { visibility: Visibility; startsOn: ZonedDateTime };
}

export interface EventPriceLevel {
  id: string;
  textInfos: TextInfo[];
}

export interface PriceType {
  id: string;
  regular: boolean;
  /** A password; a booking of this type must repeat it. */
  accessCode?: string;
  textInfos: PriceTypeText[];
}

export interface FacePrice {
  priceLevelId: string;
  priceTypeId: string;
  amountMinor: number;
}

/** The face values of one period of sale. */
export interface PricePeriod {
  id: string;
  start: ZonedDateTime;
  end: ZonedDateTime;
  prices: FacePrice[];
}

export interface LogoRef {
  id: string;
  position: string;
}

export interface PriceComponent {
  id: string;
  amountMinor: number;
  taxPlanId: string;
  taxableOrganization?: string;
}

/** What an event is; its id, venue and last change are on its record. */
export interface EventDetails {
  manifestId: string;
  venueInfo?: { name: string; city?: string; country?: string };
  organization: { promoterId: string; promoterName: string };
  textInfos: TextInfo[];
  /** 0 = no limit per booking. */
  maximumTicketsQuantity: number;
  genres: Array<{ genreId: string; genreName: string }>;
  dateTime: ZonedDateTime;
  dateTimeProperties: DateTimeProperties;
  /** IANA time zone. */
  timezone: string;
  /** ISO 4217, of every amount of the event. */
  currency: string;
  secureEntry?: boolean;
  visibility: EventVisibility;
  doorsDateTime?: ZonedDateTime;
  doorsDateTimeProperties?: DateTimeProperties;
  priceLevels: EventPriceLevel[];
  priceTypes: PriceType[];
  faceValuePrices: PricePeriod[];
  ticketTexts?: string[];
  logos?: LogoRef[];
  priceComponents?: PriceComponent[];
  /** Sale channels allowed; absent = every channel. */
  salesChannels?: string[];
}

/** An event: what it is, its status and what listing needs. */
export interface EventRecord extends VersionedRecord {
  venueId: string;
  status: EventStatus;
  details: EventDetails;
  createdAt: Date;
  /** The last change of the event (its `last_modification`); range filters use it. */
  lastModifiedAt: Date;
  /** `details.dateTime` as a Date, for sorting. */
  startsAt: Date;
  /** Lower-cased display name (en-us, else the first), for sorting. */
  sortName: string;
}

/**
 * The face value prices in force at `now`: the period that contains it, else the latest one that
 * has started, else the earliest. Keyed `<price level>|<price type>`, minor units.
 */
export function pricesAt(event: EventDetails, now: Date): Map<string, number> {
  const periods = [...event.faceValuePrices].sort((a, b) => a.start.localeCompare(b.start));
  const t = now.getTime();
  const starts = (p: PricePeriod) => Date.parse(p.start);
  const ends = (p: PricePeriod) => Date.parse(p.end);
  const chosen =
    periods.find((p) => starts(p) <= t && t < ends(p)) ??
    [...periods].reverse().find((p) => starts(p) <= t) ??
    periods[0];
  const prices = new Map<string, number>();
  for (const price of chosen?.prices ?? [])
    prices.set(`${price.priceLevelId}|${price.priceTypeId}`, price.amountMinor);
  return prices;
}

/** The name used for sorting: en-us, else the first text. */
export function displayName(event: EventDetails): string {
  return (event.textInfos.find((t) => t.lang === 'en-us') ?? event.textInfos[0])?.name ?? '';
}

/** Bookable: on sale and not yet started. */
export function isOnSale(record: EventRecord, now: Date): boolean {
  return record.status === 'ON_SALE' && record.startsAt.getTime() > now.getTime();
}

/**
 * The 3P API's rules on an event that its schema cannot express (`eventRuleProblems` of
 * `@marquee/partner-api`, same wording; a unit test holds them together): at most one regular
 * price type, and each logo listed once.
 */
export function eventRuleProblems(event: Pick<EventDetails, 'priceTypes' | 'logos'>): string[] {
  const regular = event.priceTypes.filter((t) => t.regular).map((t) => t.id);
  const logoIds = (event.logos ?? []).map((logo) => logo.id);
  // Every listing of a logo after its first is one problem.
  const repeated = logoIds.filter((id, i) => logoIds.indexOf(id) !== i);
  return [
    ...(regular.length > 1
      ? [`price_types: at most one is regular, not ${regular.join(', ')}`]
      : []),
    ...repeated.map((id) => `logos: ${id} is listed twice`),
  ];
}

/**
 * What is wrong with an event against its manifest (empty when nothing): every price names a
 * price level and type of the event, every price level of the event exists in the manifest,
 * periods are well ordered, at most one price type is regular and no logo is listed twice; that
 * logos and tax plans exist is checked by the caller (they live elsewhere). Problems name the
 * fields as the back office's bodies do.
 */
export function eventProblems(event: EventDetails, manifest: Manifest): string[] {
  const problems: string[] = [];
  const manifestLevels = new Set(manifest.priceLevels.map((p) => p.id));
  const levels = new Set(event.priceLevels.map((p) => p.id));
  const types = new Set(event.priceTypes.map((p) => p.id));
  if (levels.size !== event.priceLevels.length) problems.push('price_levels: duplicate id');
  if (types.size !== event.priceTypes.length) problems.push('price_types: duplicate id');
  for (const level of levels)
    if (!manifestLevels.has(level))
      problems.push(`price_levels: ${level} is not a price level of manifest ${manifest.id}`);
  for (const [i, period] of event.faceValuePrices.entries()) {
    if (!(Date.parse(period.start) < Date.parse(period.end)))
      problems.push(`face_value_prices[${i}]: the period must end after it starts`);
    for (const price of period.prices) {
      if (!levels.has(price.priceLevelId))
        problems.push(`face_value_prices[${i}]: unknown price level ${price.priceLevelId}`);
      if (!types.has(price.priceTypeId))
        problems.push(`face_value_prices[${i}]: unknown price type ${price.priceTypeId}`);
    }
  }
  if (event.textInfos.length === 0) problems.push('text_infos: at least one is required');
  problems.push(...eventRuleProblems(event));
  return problems;
}

/** What is wrong with a manifest (empty when nothing). */
export function manifestProblems(manifest: Manifest): string[] {
  const problems: string[] = [];
  const levels = new Set(manifest.levels.map((l) => l.id));
  const sections = new Set(manifest.sections.map((s) => s.id));
  const priceLevels = new Set(manifest.priceLevels.map((p) => p.id));
  const areaIds = new Set<string>();
  const places = new Set<string>();
  for (const area of manifest.areas) {
    if (areaIds.has(area.id)) problems.push(`areas: duplicate id ${area.id}`);
    areaIds.add(area.id);
    if (area.levelId !== undefined && !levels.has(area.levelId))
      problems.push(`area ${area.id}: unknown level ${area.levelId}`);
    if (area.sectionId !== undefined && !sections.has(area.sectionId))
      problems.push(`area ${area.id}: unknown section ${area.sectionId}`);
    const place = `${area.levelId ?? ''}|${area.sectionId ?? ''}`;
    if (area.levelId !== undefined && area.sectionId !== undefined) {
      if (places.has(place))
        problems.push(`area ${area.id}: another area has level and section ${place}`);
      places.add(place);
    }
    if (!priceLevels.has(area.priceLevelId))
      problems.push(`area ${area.id}: unknown price level ${area.priceLevelId}`);
    if (area.generalAdmission) {
      if ((area.seats?.length ?? 0) > 0)
        problems.push(`area ${area.id}: general admission has no seats`);
    } else {
      const seats = area.seats ?? [];
      if (seats.length !== area.capacity)
        problems.push(`area ${area.id}: capacity must equal the number of seats`);
      if (new Set(seats.map((s) => s.id)).size !== seats.length)
        problems.push(`area ${area.id}: duplicate seat id`);
    }
  }
  if (manifest.areas.length === 0) problems.push('areas: at least one is required');
  return problems;
}
