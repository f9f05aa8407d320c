import type { LocalizedString } from '@marquee/proto/common/v1';
import {
  EventStatus,
  PriceRangeType,
  type PriceRange,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type Event,
} from '@marquee/proto/catalog/v1';
import {
  isKnownCurrency,
  priceLevelNumber,
  ticketPrice,
  toDecimal,
  type FeeSchedule,
} from '@marquee/platform/money';

/**
 * International discovery (`/mfxapi/v2`) documents: the documented shapes (areas, seat map, similar
 * attractions, venue list) and, where the API documents none, the shapes of the established v1 API
 * (event envelope and fields), with v2's changes (images an object).
 */

/** Domains and their countries (the `domain` values of international discovery). */
export const domainCountries: Readonly<Record<string, { alpha2: string; numeric: number }>> = {
  norway: { alpha2: 'NO', numeric: 578 },
  sweden: { alpha2: 'SE', numeric: 752 },
  switzerland: { alpha2: 'CH', numeric: 756 },
  spain: { alpha2: 'ES', numeric: 724 },
  finland: { alpha2: 'FI', numeric: 246 },
  belgium: { alpha2: 'BE', numeric: 56 },
  netherlands: { alpha2: 'NL', numeric: 528 },
  denmark: { alpha2: 'DK', numeric: 208 },
  germany: { alpha2: 'DE', numeric: 276 },
  austria: { alpha2: 'AT', numeric: 40 },
  unitedarabemirates: { alpha2: 'AE', numeric: 784 },
  canada: { alpha2: 'CA', numeric: 124 },
  poland: { alpha2: 'PL', numeric: 616 },
};
export const domainNames = Object.keys(domainCountries);
const numericOf = new Map(Object.values(domainCountries).map((c) => [c.alpha2, c.numeric]));
const alpha2Of = new Map(Object.values(domainCountries).map((c) => [c.numeric, c.alpha2]));

/** `country_ids` are ISO 3166 numeric codes (the `domain_id` of the results). */
export const countryOfNumericId = (id: number): string | undefined => alpha2Of.get(id);

/**
 * Text in `lang` (`xx-yy` or `xx`, case-insensitive): exact locale, else the same language, else the
 * text's first locale (the international API always names things; unlike discovery v2 it falls back).
 */
export function langText(text: LocalizedString | undefined, lang: string | undefined): string {
  const entries = Object.entries(text?.values ?? {});
  if (entries.length === 0) return '';
  if (lang) {
    const wanted = lang.toLowerCase().replace('_', '-');
    const exact = entries.find(([k]) => k.toLowerCase() === wanted);
    if (exact) return exact[1];
    const language = wanted.split('-')[0];
    const same = entries.find(([k]) => k.toLowerCase().split('-')[0] === language);
    if (same) return same[1];
  }
  return entries[0]![1];
}

const iso = (d: Date | undefined) => (d ? d.toISOString().replace('.000Z', 'Z') : undefined);

export function intlVenue(venue: DiscoveryVenue, lang: string | undefined) {
  return {
    id: venue.id,
    name: langText(venue.names, lang),
    code: venue.id,
    url: `/mfxapi/v2/venues/${venue.id}`,
    location: {
      address: {
        address: langText(venue.address?.line1, lang),
        postal_code: venue.postalCode,
        city: langText(venue.cityNames, lang),
        // The catalog's city id (catalog-indexer README "City ids"); what `city_ids` filters on.
        city_id: venue.cityId || null,
        country: venue.country?.countryCode ?? '',
        long: venue.location?.longitude ?? null,
        lat: venue.location?.latitude ?? null,
      },
    },
  };
}

export function intlAttraction(attraction: DiscoveryAttraction, lang: string | undefined) {
  return {
    id: attraction.id,
    name: langText(attraction.names, lang),
    url: attraction.url || `/mfxapi/v2/attractions/${attraction.id}`,
    event_count: attraction.upcomingEvents,
  };
}

const includesFees = (r: PriceRange) =>
  r.type === PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES;

/** Lowest and highest amount of ranges in minor units (one currency: the first known one). */
function rangeBounds(ranges: readonly PriceRange[]) {
  let min: number | undefined;
  let max: number | undefined;
  let currency = '';
  for (const r of ranges) {
    const own = r.min?.currency || r.max?.currency || '';
    // Amounts are minor units of their currency: one in no known currency cannot be read.
    if (!isKnownCurrency(own) || (currency && own !== currency)) continue;
    currency = own;
    if (r.min) min = Math.min(min ?? Infinity, r.min.amountMinor);
    if (r.max) max = Math.max(max ?? -Infinity, r.max.amountMinor);
  }
  return { min: min ?? max, max: max ?? min, currency };
}

type Bounds = ReturnType<typeof rangeBounds>;

const decimals = (bounds: Bounds, perTicket: (minor: number) => number = (m) => m) => ({
  min: bounds.min === undefined ? null : toDecimal(perTicket(bounds.min), bounds.currency),
  max: bounds.max === undefined ? null : toDecimal(perTicket(bounds.max), bounds.currency),
});

/**
 * Price bounds excluding fees (`standard` ranges) and including them. An event sold through the
 * platform (partner-hosted: it has `ticketing`) includes the fees a cart charges per ticket
 * (`ticketPrice`, the function the cart prices with; the processing fee is per order and shows in
 * the cart). Another event includes what its `standard including fees` ranges say, or equals the
 * standard bounds when they say nothing.
 */
function priceBounds(event: Event, fees: FeeSchedule) {
  const excluding = rangeBounds(event.priceRanges.filter((r) => !includesFees(r)));
  const withFees = rangeBounds(event.priceRanges.filter(includesFees));
  const including = event.ticketing
    ? decimals(excluding, (minor) => ticketPrice(minor, fees).totalMinor)
    : decimals(withFees.min !== undefined ? withFees : excluding);
  return {
    excluding: decimals(excluding),
    including,
    currency: excluding.currency || withFees.currency || event.ticketing?.currency || '',
  };
}

/** The face values of one price level of a partner-hosted event, in minor units. */
function levelBounds(event: Event, levelId: string): Bounds {
  const ticketing = event.ticketing!;
  return rangeBounds(
    ticketing.pricePeriods
      .flatMap((p) => p.prices)
      .filter((p) => p.priceLevelId === levelId && p.amount)
      .map((p) => {
        const amount = { ...p.amount!, currency: p.amount!.currency || ticketing.currency };
        return { type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD, min: amount, max: amount };
      }),
  );
}

/** An event's genres (or segments) as categories, each with its sub-genres as subcategories. */
function intlCategories(event: Event, lang: string | undefined) {
  const categories = new Map<
    string,
    { id: string; name: string; subcategories: { id: string; name: string }[] }
  >();
  for (const c of event.classifications) {
    const top = c.genre ?? c.segment;
    if (!top) continue;
    const category = categories.get(top.id) ?? {
      id: top.id,
      name: langText(top.names, lang),
      subcategories: [],
    };
    const sub = c.subGenre;
    if (sub && !category.subcategories.some((s) => s.id === sub.id)) {
      category.subcategories.push({ id: sub.id, name: langText(sub.names, lang) });
    }
    categories.set(top.id, category);
  }
  return [...categories.values()];
}

/** An event's images by ratio (the first of each ratio; `image_<n>` for one without a ratio). */
function intlImages(event: Event) {
  const images: Record<string, { url: string; width: number; height: number }> = {};
  event.images.forEach((image, i) => {
    images[image.ratio || `image_${i + 1}`] ??= {
      url: image.url,
      width: image.width,
      height: image.height,
    };
  });
  return images;
}

export function intlEvent(
  event: Event,
  venue: DiscoveryVenue | undefined,
  attractions: ReadonlyMap<string, DiscoveryAttraction>,
  lang: string | undefined,
  fees: FeeSchedule,
) {
  const start = event.dates?.start;
  const sale = event.sales?.publicSale;
  const prices = priceBounds(event, fees);
  // What the catalog knows from partner availability (Event.availability): tickets may be on sale
  // with none left.
  const soldOut = event.availability?.soldOut ?? false;
  const country = venue?.country?.countryCode.toUpperCase() ?? '';
  // An event with a date but no time carries the format `date` instead of an event date.
  const eventdate =
    start?.noSpecificTime && start.localDate
      ? { format: 'date', value: start.localDate }
      : start?.dateTime
        ? { format: 'datetime', value: iso(start.dateTime) }
        : undefined;
  return {
    id: event.id,
    domain_id: numericOf.get(country) ?? null,
    name: langText(event.names, lang),
    url: event.url,
    ...(eventdate ? { eventdate } : {}),
    timezone: event.dates?.timezone ?? '',
    ...(start?.localDate
      ? {
          localeventdate: start.localTime
            ? `${start.localDate}T${start.localTime}`
            : start.localDate,
        }
      : {}),
    ...(sale?.startDateTime ? { onsale: iso(sale.startDateTime) } : {}),
    ...(sale?.endDateTime ? { offsale: iso(sale.endDateTime) } : {}),
    ...(event.dates?.access?.startDateTime
      ? { dooropening: iso(event.dates.access.startDateTime) }
      : {}),
    properties: {
      cancelled: event.status === EventStatus.EVENT_STATUS_CANCELLED,
      rescheduled: event.status === EventStatus.EVENT_STATUS_RESCHEDULED,
      seats_avail: event.status === EventStatus.EVENT_STATUS_ONSALE && !soldOut,
      sold_out: soldOut,
      package: event.package,
    },
    ...(venue
      ? {
          venue: {
            id: venue.id,
            name: langText(venue.names, lang),
            location: intlVenue(venue, lang).location,
          },
        }
      : {}),
    categories: intlCategories(event, lang),
    attractions: event.attractions
      .map((a) => attractions.get(a.resolvedId))
      .filter((a): a is DiscoveryAttraction => a !== undefined)
      .map((a) => ({ id: a.id, name: langText(a.names, lang), url: intlAttraction(a, lang).url })),
    price_ranges: {
      excluding_ticket_fees: prices.excluding,
      including_ticket_fees: prices.including,
    },
    currency: prices.currency,
    images: intlImages(event),
  };
}

/**
 * Areas of an event (`/events/{id}/areas`): one per price level of a partner-hosted event, with the
 * face-value range of its prices (excluding fees) and the per-ticket totals a cart charges for them
 * (including fees: `ticketPrice` with the platform's fee schedule, the function the cart prices
 * with). `price_level_ids` holds the level's platform number (`priceLevelNumber`), which a partner
 * cart reserve takes as `price.id`. Published events are not sold through the platform: no areas.
 */
export function intlAreas(event: Event, lang: string | undefined, fees: FeeSchedule) {
  const ticketing = event.ticketing;
  const currency = ticketing?.currency || priceBounds(event, fees).currency;
  const areas = (ticketing?.priceLevels ?? []).map((level) => {
    const bounds = levelBounds(event, level.id);
    return {
      code: level.id,
      name: langText(level.names, lang),
      price_level_ids: [priceLevelNumber(level.id)],
      price_ranges: {
        excluding_ticket_fees: decimals(bounds),
        including_ticket_fees: decimals(bounds, (minor) => ticketPrice(minor, fees).totalMinor),
      },
    };
  });
  return { event: { id: event.id, currency, areas } };
}

/**
 * Seat map of an event (`/events/{id}/seatmap`): the static image of the event's seat map (a
 * published event's `seatmap.staticUrl`), or no image when the event has none.
 */
export function intlSeatmap(event: Event) {
  const url = event.seatmap?.staticUrl;
  return { event: { id: event.id, seatmap: { static: { images: url ? [{ url }] : [] } } } };
}
