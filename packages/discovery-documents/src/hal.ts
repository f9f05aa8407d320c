import {
  EventStatus,
  PriceRangeType,
  type Classification,
  type ClassificationGenre,
  type ClassificationLevel,
  type ClassificationSegment,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type Event,
  type Image,
} from '@marquee/proto/catalog/v1';
import { isKnownCurrency, toDecimal } from '@marquee/platform/money';
import { localized, reportedLocale } from './localized.js';

/**
 * Discovery v2 HAL documents: the event of a search result, its embedded venues and attractions.
 * Optional fields are left out when the event has no value for them, as the established Discovery
 * v2 API does; booleans are always present.
 */

export const DISCOVERY_BASE = '/discovery/v2';

const iso = (date: Date | undefined) => date?.toISOString();

/**
 * Marks a document whose `undefined` properties are absent data: JSON serialisation leaves them out
 * (absent, not `null`), so nothing is copied here (copying every object of every page cost 8 % of
 * the edge's time per search, measured with bench/discovery).
 */
function compact<T extends Record<string, unknown>>(object: T): Partial<T> {
  return object;
}

/** An optional text: left out when empty (names stay, empty, when the locale has none: no fallback). */
const opt = (text: string | undefined) => (text ? text : undefined);

const statusCodes: Record<EventStatus, string | undefined> = {
  [EventStatus.EVENT_STATUS_UNSPECIFIED]: undefined,
  [EventStatus.EVENT_STATUS_ONSALE]: 'onsale',
  [EventStatus.EVENT_STATUS_OFFSALE]: 'offsale',
  [EventStatus.EVENT_STATUS_CANCELLED]: 'cancelled',
  [EventStatus.EVENT_STATUS_POSTPONED]: 'postponed',
  [EventStatus.EVENT_STATUS_RESCHEDULED]: 'rescheduled',
  [EventStatus.UNRECOGNIZED]: undefined,
};

const images = (list: readonly Image[]) =>
  list.map((i) => ({
    ratio: i.ratio || undefined,
    url: i.url,
    width: i.width,
    height: i.height,
    fallback: i.fallback,
  }));

function classifications(list: readonly Classification[], locale: string | undefined) {
  const level = (l: Classification['segment']) =>
    l && compact({ id: opt(l.id), name: localized(l.names, locale) });
  return list.map((c) =>
    compact({
      primary: c.primary,
      segment: level(c.segment),
      genre: level(c.genre),
      subGenre: level(c.subGenre),
    }),
  );
}

export function venueDocument(venue: DiscoveryVenue, locale: string | undefined) {
  return compact({
    name: localized(venue.names, locale),
    type: 'venue',
    id: venue.id,
    test: venue.test,
    locale: reportedLocale(locale, venue.names),
    postalCode: opt(venue.postalCode),
    timezone: opt(venue.timezone),
    markets: venue.marketIds.map((id) => ({ id: String(id) })),
    country:
      venue.country &&
      compact({
        name: localized(venue.country.names, locale),
        countryCode: venue.country.countryCode,
      }),
    state:
      venue.state &&
      compact({ name: localized(venue.state.names, locale), stateCode: venue.state.stateCode }),
    city: venue.cityNames && { name: localized(venue.cityNames, locale) },
    location: venue.location && {
      latitude: String(venue.location.latitude),
      longitude: String(venue.location.longitude),
    },
    address:
      venue.address &&
      compact({
        line1: localized(venue.address.line1, locale),
        line2: opt(localized(venue.address.line2, locale)),
      }),
    upcomingEvents: { _total: venue.upcomingEvents },
    _links: { self: { href: `${DISCOVERY_BASE}/venues/${venue.id}` } },
  });
}

export function attractionDocument(attraction: DiscoveryAttraction, locale: string | undefined) {
  const list = images(attraction.images);
  return compact({
    name: localized(attraction.names, locale),
    type: 'attraction',
    id: attraction.id,
    test: attraction.test,
    locale: reportedLocale(locale, attraction.names),
    url: opt(attraction.url),
    image: list[0] && { url: list[0].url },
    images: list,
    classifications: classifications(attraction.classifications, locale),
    upcomingEvents: { _total: attraction.upcomingEvents },
    _links: { self: { href: `${DISCOVERY_BASE}/attractions/${attraction.id}` } },
  });
}

export interface Resolved {
  venues: ReadonlyMap<string, DiscoveryVenue>;
  attractions: ReadonlyMap<string, DiscoveryAttraction>;
}

/** A Discovery v2 event document, as a search result shows it. */
export function eventDocument(event: Event, resolved: Resolved, locale: string | undefined) {
  return { ...eventBody(event, locale), ...eventLinks(eventRefs(event), resolved, locale) };
}

/** What an event document takes from the venues and attractions of its page. */
export interface EventRefs {
  id: string;
  /** The resolved venue id; '' without one. */
  venueId: string;
  attractionIds: string[];
}

export function eventRefs(event: Event): EventRefs {
  return {
    id: event.id,
    venueId: event.location?.$case === 'venue' ? event.location.value.resolvedId : '',
    attractionIds: event.attractions.map((a) => a.resolvedId),
  };
}

/**
 * The end of an event document: `_links` and `_embedded`, which name the venues and attractions
 * of the page (their details and upcoming-event counts change without the event changing).
 */
export function eventLinks(refs: EventRefs, resolved: Resolved, locale: string | undefined) {
  const venue = refs.venueId ? resolved.venues.get(refs.venueId) : undefined;
  const attractions = refs.attractionIds
    .map((id) => resolved.attractions.get(id))
    .filter((a): a is DiscoveryAttraction => a !== undefined);
  return {
    _links: {
      self: {
        href: `${DISCOVERY_BASE}/events/${refs.id}${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`,
      },
      attractions: attractions.map((a) => ({ href: `${DISCOVERY_BASE}/attractions/${a.id}` })),
      venues: venue ? [{ href: `${DISCOVERY_BASE}/venues/${venue.id}` }] : [],
    },
    _embedded: {
      venues: venue ? [venueDocument(venue, locale)] : [],
      attractions: attractions.map((a) => attractionDocument(a, locale)),
    },
  };
}

/**
 * The images of an event (`/discovery/v2/events/{id}/images`): the event's images as its document
 * shows them, named by type and id, with a link to itself (and its locale, as the event's own).
 */
export function eventImagesDocument(event: Event, locale: string | undefined) {
  return {
    type: 'event' as const,
    id: event.id,
    images: images(event.images),
    _links: {
      self: {
        href: `${DISCOVERY_BASE}/events/${event.id}/images${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`,
      },
    },
  };
}

/**
 * An event document up to its links: everything that depends on the event (one version of it) and
 * the locale alone, so it can be rendered once per version (catalog-indexer when it indexes the event, the edge for
 * a requested locale: page-json.ts).
 */
export function eventBody(event: Event, locale: string | undefined) {
  const start = event.dates?.start;
  const access = event.dates?.access;
  const end = event.dates?.end;
  const sale = event.sales?.publicSale;
  return compact({
    name: localized(event.names, locale),
    type: 'event',
    id: event.id,
    test: event.test,
    url: opt(event.url),
    locale: reportedLocale(locale, event.names),
    description: opt(localized(event.descriptions, locale)),
    info: opt(localized(event.infos, locale)),
    additionalInfo: opt(localized(event.additionalInfos, locale)),
    pleaseNote: opt(localized(event.pleaseNotes, locale)),
    images: images(event.images),
    sales: sale && {
      public: compact({
        startDateTime: iso(sale.startDateTime),
        startTBD: sale.startTbd,
        endDateTime: iso(sale.endDateTime),
      }),
    },
    dates: compact({
      start:
        start &&
        compact({
          localDate: opt(start.localDate),
          localTime: opt(start.localTime),
          dateTime: iso(start.dateTime),
          dateTBD: start.dateTbd,
          dateTBA: start.dateTba,
          timeTBA: start.timeTba,
          noSpecificTime: start.noSpecificTime,
        }),
      access:
        access &&
        compact({
          startDateTime: iso(access.startDateTime),
          startApproximate: access.startApproximate,
          endDateTime: iso(access.endDateTime),
          endApproximate: access.endApproximate,
        }),
      end:
        end &&
        compact({
          localTime: opt(end.localTime),
          dateTime: iso(end.dateTime),
          approximate: end.approximate,
        }),
      timezone: opt(event.dates?.timezone),
      status: statusCodes[event.status] ? { code: statusCodes[event.status] } : undefined,
    }),
    classifications: classifications(event.classifications, locale),
    promoter:
      event.promoter &&
      compact({ id: event.promoter.id, name: opt(localized(event.promoter.names, locale)) }),
    // Amounts are minor units of their currency; a range in no known currency cannot be read.
    priceRanges: event.priceRanges.flatMap((r) => {
      const currency = r.min?.currency || r.max?.currency || '';
      if (!isKnownCurrency(currency)) return [];
      return compact({
        type:
          r.type === PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES
            ? 'standard including fees'
            : 'standard',
        currency: opt(currency),
        min: r.min && toDecimal(r.min.amountMinor, currency),
        max: r.max && toDecimal(r.max.amountMinor, currency),
      });
    }),
    // The real Discovery v2 event's `seatmap.staticUrl` (publisher README: our extension).
    seatmap: event.seatmap?.staticUrl ? { staticUrl: event.seatmap.staticUrl } : undefined,
  });
}

export function resolvedOf(
  venues: readonly DiscoveryVenue[],
  attractions: readonly DiscoveryAttraction[],
): Resolved {
  return {
    venues: new Map(venues.map((v) => [v.id, v])),
    attractions: new Map(attractions.map((a) => [a.id, a])),
  };
}

const levelLink = (kind: 'segments' | 'genres' | 'subgenres', id: string) => ({
  self: { href: `${DISCOVERY_BASE}/classifications/${kind}/${id}` },
});

function subGenreDocument(level: ClassificationLevel, locale: string | undefined) {
  return {
    id: level.id,
    name: localized(level.names, locale),
    _links: levelLink('subgenres', level.id),
  };
}

function genreDocument(genre: ClassificationGenre, locale: string | undefined) {
  const level = genre.genre;
  return {
    id: level?.id ?? '',
    name: localized(level?.names, locale),
    _links: levelLink('genres', level?.id ?? ''),
    _embedded: { subgenres: genre.subGenres.map((s) => subGenreDocument(s, locale)) },
  };
}

export function segmentDocument(segment: ClassificationSegment, locale: string | undefined) {
  const level = segment.segment;
  return {
    id: level?.id ?? '',
    name: localized(level?.names, locale),
    _links: levelLink('segments', level?.id ?? ''),
    _embedded: { genres: segment.genres.map((g) => genreDocument(g, locale)) },
  };
}

/** A classification (Discovery v2 `/classifications`): the segment tree and its event count. */
export function classificationDocument(segment: ClassificationSegment, locale: string | undefined) {
  return {
    _links: { self: { href: `${DISCOVERY_BASE}/classifications/${segment.segment?.id ?? ''}` } },
    segment: segmentDocument(segment, locale),
    upcomingEvents: { _total: segment.eventCount },
  };
}

/** One level of a classification tree, by the level its id names. */
export function levelDocument(
  segment: ClassificationSegment,
  level: 'segment' | 'genre' | 'subgenre',
  id: string,
  locale: string | undefined,
) {
  if (level === 'segment') return segmentDocument(segment, locale);
  const genre = segment.genres.find((g) =>
    level === 'genre' ? g.genre?.id === id : g.subGenres.some((s) => s.id === id),
  )!;
  if (level === 'genre') return genreDocument(genre, locale);
  return subGenreDocument(
    genre.subGenres.find((s) => s.id === id)!,
    locale,
  );
}
