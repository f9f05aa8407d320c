import type { EventAnswer, Manifest, PartnerEvent, TextInfo } from '@marquee/partner-api';
import type {
  DiscoveryEvent,
  EventDates,
  EventLocation,
  LocalizedText,
  Money,
  PriceLevel,
  PublicVisibility,
  Ticketing,
} from './discovery-event.js';

/** `en-us` → `en-US`: the platform's locale keys (compared case-insensitively by discovery). */
export function platformLocale(lang: string): string {
  const [language, country] = lang.split('-');
  return country ? `${language!.toLowerCase()}-${country.toUpperCase()}` : language!.toLowerCase();
}

/** The locale of texts that have none of their own (promoter, genre, manifest names): `en-*` or the first. */
export function defaultLocale(texts: readonly { lang: string }[]): string {
  const english = texts.find((t) => t.lang.toLowerCase().startsWith('en-'));
  return platformLocale((english ?? texts[0])?.lang ?? 'en-us');
}

type Texts = readonly (Pick<TextInfo, 'lang' | 'name'> & { description?: string | undefined })[];

/** One entry per locale, the default locale first (discovery's "first locale" is the primary one). */
function localized(
  texts: Texts,
  pick: (t: Texts[number]) => string | undefined,
  first: string,
): LocalizedText | undefined {
  const values: Record<string, string> = {};
  const ordered = [...texts].sort(
    (a, b) => Number(platformLocale(b.lang) === first) - Number(platformLocale(a.lang) === first),
  );
  for (const text of ordered) {
    const value = pick(text);
    const locale = platformLocale(text.lang);
    if (value && values[locale] === undefined) values[locale] = value;
  }
  return Object.keys(values).length > 0 ? { values } : undefined;
}

const single = (locale: string, value: string | undefined): LocalizedText | undefined =>
  value ? { values: { [locale]: value } } : undefined;

const money = (amount: string, currency: string): Money => ({
  amountMinor: Number(amount),
  currency,
});

const LOCAL_PARTS = (timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });

/** Date and time of an instant in a time zone: `YYYY-MM-DD`, `HH:MM:SS` (UTC when the zone is unknown). */
export function localDateTime(instant: Date, timeZone: string): { date: string; time: string } {
  let format: Intl.DateTimeFormat;
  try {
    format = LOCAL_PARTS(timeZone || 'UTC');
  } catch {
    format = LOCAL_PARTS('UTC');
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}`,
  };
}

function visibility(event: PartnerEvent): {
  active: boolean;
  publicVisibility: PublicVisibility | undefined;
} {
  const base = event.visibility.default_visibility;
  const override = event.visibility.visibility_override;
  const from = override ? new Date(override.starts_on) : undefined;
  if (override && (override.visibility === 'VISIBLE') !== (base === 'VISIBLE')) {
    // Visible from starts_on (hidden before), or visible until starts_on (hidden after).
    return override.visibility === 'VISIBLE'
      ? {
          active: true,
          publicVisibility: { visible: true, startDateTime: from, endDateTime: undefined },
        }
      : {
          active: true,
          publicVisibility: { visible: true, startDateTime: undefined, endDateTime: from },
        };
  }
  if (base === 'HIDDEN') return { active: false, publicVisibility: undefined };
  if (base === 'NOT_VISIBLE')
    return {
      active: true,
      publicVisibility: { visible: false, startDateTime: undefined, endDateTime: undefined },
    };
  return { active: true, publicVisibility: undefined };
}

export const isCancelledStatus = (status: string | undefined): boolean =>
  /^cancell?ed$/i.test(status ?? '');

function ticketing(event: PartnerEvent, manifest: Manifest | undefined, locale: string): Ticketing {
  const currency = event.currency;
  const manifestLevelName = (id: string) =>
    manifest?.price_levels.find((l) => l.id === id)?.name ??
    manifest?.areas.find((a) => a.price_level_id === id)?.name;
  const declared = new Set(event.price_levels.map((l) => l.id));
  const priceLevels: PriceLevel[] = event.price_levels.map((level) => ({
    id: level.id,
    names:
      localized(level.text_infos, (t) => t.name, locale) ??
      single(locale, manifestLevelName(level.id)),
    descriptions: localized(level.text_infos, (t) => t.description, locale),
  }));
  // Levels the prices use but the event does not describe: named after the manifest.
  for (const period of event.face_value_prices) {
    for (const price of period.prices) {
      if (declared.has(price.price_level_id)) continue;
      declared.add(price.price_level_id);
      priceLevels.push({
        id: price.price_level_id,
        names: single(locale, manifestLevelName(price.price_level_id)),
        descriptions: undefined,
      });
    }
  }
  return {
    manifestId: event.manifest_id,
    maximumTicketsQuantity: event.maximum_tickets_quantity,
    currency,
    secureEntryEnabled: event.secure_entry === true,
    priceLevels,
    priceTypes: event.price_types.map((type) => ({
      id: type.id,
      regular: type.regular,
      accessCodeRequired: Boolean(type.access_code),
      names: localized(type.text_infos, (t) => t.name, locale),
      descriptions: localized(type.text_infos, (t) => t.description, locale),
    })),
    pricePeriods: event.face_value_prices.map((period) => ({
      id: period.price_period.id,
      startDateTime: new Date(period.price_period.start_date_time),
      endDateTime: new Date(period.price_period.end_date_time),
      prices: period.prices.map((p) => ({
        priceLevelId: p.price_level_id,
        priceTypeId: p.price_type_id,
        amount: money(p.amount, currency),
      })),
    })),
  };
}

function priceRange(event: PartnerEvent): DiscoveryEvent['priceRange'] {
  const amounts = event.face_value_prices.flatMap((p) =>
    p.prices.map((price) => Number(price.amount)),
  );
  if (amounts.length === 0) return undefined;
  return {
    min: { amountMinor: Math.min(...amounts), currency: event.currency },
    max: { amountMinor: Math.max(...amounts), currency: event.currency },
  };
}

function publicSale(event: PartnerEvent): DiscoveryEvent['publicSale'] {
  const periods = event.face_value_prices.map((p) => p.price_period);
  if (periods.length === 0) return undefined;
  const starts = periods.map((p) => Date.parse(p.start_date_time));
  const ends = periods.map((p) => Date.parse(p.end_date_time));
  return {
    startDateTime: new Date(Math.min(...starts)),
    endDateTime: new Date(Math.max(...ends)),
    startTbd: false,
  };
}

function dates(event: PartnerEvent): EventDates {
  const start = new Date(event.date_time);
  const local = localDateTime(start, event.timezone);
  const dateHidden = event.date_time_properties.date_hidden;
  const timeHidden = event.date_time_properties.time_hidden;
  const doorsHidden =
    event.doors_date_time_properties?.date_hidden || event.doors_date_time_properties?.time_hidden;
  return {
    start: {
      localDate: dateHidden ? '' : local.date,
      localTime: timeHidden ? '' : local.time,
      dateTime: dateHidden || timeHidden ? undefined : start,
      dateTbd: false,
      dateTba: dateHidden,
      timeTba: timeHidden,
      noSpecificTime: false,
    },
    access:
      event.doors_date_time && !doorsHidden
        ? {
            startDateTime: new Date(event.doors_date_time),
            endDateTime: undefined,
            startApproximate: false,
            endApproximate: false,
          }
        : undefined,
    timezone: event.timezone,
  };
}

export interface MappingInput {
  /** Platform event id. */
  id: string;
  /** Platform version of this state. */
  version: number;
  partner: { id: string; slug: string };
  /** The partner venue the event was imported for. */
  venueId: string;
  answer: Pick<EventAnswer, 'event' | 'status'>;
  /** The event's manifest, when the connector has it: names of areas and levels, the venue's name. */
  manifest: Manifest | undefined;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Where the event takes place. A partner that describes its venue (`venue_info` with a country) gets
 * a place discovery can show with its city and country, and international discovery can file under
 * its market; otherwise a venue referenced by the partner's id, named after the manifest.
 */
function location(event: EventAnswer['event'], input: MappingInput, locale: string): EventLocation {
  const info = event.venue_info;
  if (info?.country) {
    return {
      kind: 'place',
      place: {
        names: single(locale, info.name),
        cityNames: single(locale, info.city),
        country: { countryCode: info.country },
      },
    };
  }
  return {
    kind: 'venue',
    venue: {
      ref: { id: event.venue_id || input.venueId, name: input.partner.slug },
      names: single(locale, info?.name ?? input.manifest?.name),
    },
  };
}

/**
 * A partner event as the platform's discovery event (whole state, published as catalog.v1 `Event`).
 * The rules are listed in the README ("Mapping"). Access codes never leave the connector: price
 * types only say that one is required.
 */
export function toDiscoveryEvent(input: MappingInput): DiscoveryEvent {
  const event = input.answer.event;
  const locale = defaultLocale(event.text_infos);
  const { active, publicVisibility } = visibility(event);
  return {
    id: input.id,
    source: { id: input.partner.id, name: input.partner.slug },
    version: input.version,
    active,
    names: localized(event.text_infos, (t) => t.name, locale),
    descriptions: localized(event.text_infos, (t) => t.description, locale),
    classifications: event.genre_info.map((genre, i) => ({
      primary: i === 0,
      genre: { id: genre.genre_id, names: single(locale, genre.genre_name) },
    })),
    dates: dates(event),
    location: location(event, input, locale),
    priceRange: priceRange(event),
    promoter: {
      id: event.organization_info.promoter_id,
      names: single(locale, event.organization_info.promoter_name),
    },
    publicVisibility,
    publicSale: publicSale(event),
    origin: {
      partnerId: input.partner.id,
      partnerEventId: event.event_id,
      partnerVenueId: input.venueId,
      lastModification: new Date(event.last_modification),
    },
    cancelled: isCancelledStatus(input.answer.status),
    ticketing: ticketing(event, input.manifest, locale),
    createdAt: input.createdAt,
    updatedAt: input.updatedAt,
  };
}

/** The access codes of an event's price types (kept by the connector, never published). */
export const accessCodesOf = (event: PartnerEvent): { priceTypeId: string; code: string }[] =>
  event.price_types
    .filter((t) => t.access_code)
    .map((t) => ({ priceTypeId: t.id, code: t.access_code! }));

/** Logo and tax plan ids an event refers to. */
export function referencedResources(event: PartnerEvent): { logos: string[]; taxPlans: string[] } {
  return {
    logos: [...new Set((event.logos ?? []).map((l) => l.id))],
    taxPlans: [...new Set((event.price_components ?? []).map((c) => c.tax_plan_id))],
  };
}
