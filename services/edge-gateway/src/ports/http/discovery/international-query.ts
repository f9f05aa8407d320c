import { Type, type Static } from '@sinclair/typebox';
import {
  EventSort,
  Inclusion,
  NameSort,
  SearchAttractionsRequest,
  SearchEventsRequest,
  SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { dependent } from '../parameter-dependencies.js';
import { countryOfNumericId, domainCountries, domainNames } from './international-shapes.js';

/**
 * The query parameters of international discovery and the catalog searches they make
 * (international-routes.ts serves them).
 */

/** International discovery paging: `rows` default 10, maximum 250; `start` default 0. */
export const MAX_ROWS = 250;
export const DEFAULT_ROWS = 10;

const Domain = Type.Union(domainNames.map((d) => Type.Literal(d)));
/** `domain` may be repeated in the query; results combine the domains with OR. */
const Domains = Type.Array(Domain, { maxItems: domainNames.length, title: 'IntlDomains' });
const ids = Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$', maxLength: 2000 });
const numericIds = Type.String({ pattern: '^\\d{1,6}(,\\d{1,6})*$' });
/** City ids have at most 48 bits (catalog-indexer README "City ids"): up to 15 digits each. */
const cityIds = Type.String({ pattern: '^\\d{1,15}(,\\d{1,15})*$', maxLength: 2000 });
const utc = Type.String({
  // A real instant (format), written yyyy-MM-ddTHH:mm:ssZ.
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:[0-5]\\dZ$',
  description: 'UTC, yyyy-MM-ddTHH:mm:ssZ',
});
const lang = Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$' });
const common = {
  apikey: Type.Optional(Type.String()),
  lang: Type.Optional(lang),
  rows: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROWS })),
  start: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
};
/** `lat` and `long` go together (400 otherwise); `radius` (and events' `sort_by=proximity`) need them. */
const latitude = dependent(
  Type.Number({ minimum: -90, maximum: 90 }),
  'Latitude of the search centre, in degrees. Goes with `long` (400 otherwise).',
  [{ requires: ['long'], status: 400 }],
);
const longitude = dependent(
  Type.Number({ minimum: -180, maximum: 180 }),
  'Longitude of the search centre, in degrees. Goes with `lat` (400 otherwise).',
  [{ requires: ['lat'], status: 400 }],
);
const radius = dependent(
  Type.Integer({ minimum: 1, maximum: 20_000 }),
  'Distance around `lat`/`long`, in kilometres. Needs `lat` and `long` (400 otherwise).',
  [{ requires: ['lat', 'long'], status: 400 }],
);

export const EventQuery = Type.Object(
  {
    ...common,
    domain: Type.Optional(Domains),
    event_ids: Type.Optional(ids),
    attraction_ids: Type.Optional(ids),
    promoter_codes: Type.Optional(ids),
    category_ids: Type.Optional(ids),
    subcategory_ids: Type.Optional(ids),
    venue_ids: Type.Optional(ids),
    city_ids: Type.Optional(cityIds),
    country_ids: Type.Optional(numericIds),
    // Documented with type Integer in one parameter table; it is a name, matched by its words.
    event_name: Type.Optional(Type.String({ maxLength: 200 })),
    postal_code: Type.Optional(Type.String({ maxLength: 20 })),
    lat: Type.Optional(latitude),
    long: Type.Optional(longitude),
    radius: Type.Optional(radius),
    eventdate_from: Type.Optional(utc),
    eventdate_to: Type.Optional(utc),
    onsaledate_from: Type.Optional(utc),
    onsaledate_to: Type.Optional(utc),
    offsaledate_from: Type.Optional(utc),
    offsaledate_to: Type.Optional(utc),
    min_price: Type.Optional(
      dependent(
        Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
        'Lowest price. Not above `max_price` (400 otherwise).',
        [{ notAbove: 'max_price', status: 400 }],
      ),
    ),
    max_price: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    price_excl_fees: Type.Optional(Type.Boolean()),
    seats_available: Type.Optional(Type.Boolean()),
    cancelled: Type.Optional(Type.Boolean()),
    rescheduled: Type.Optional(Type.Boolean()),
    is_not_package: Type.Optional(Type.Boolean()),
    exclude_external: Type.Optional(Type.Boolean()),
    // One documented parameter table spells it so; accepted as the same parameter.
    exlude_external: Type.Optional(Type.Boolean()),
    sort_by: Type.Optional(
      dependent(
        Type.Union(
          ['eventdate', 'eventname', 'popularity', 'proximity', 'onsaledate'].map((v) =>
            Type.Literal(v),
          ),
        ),
        'Order of the results. `proximity` (nearest first) needs `lat` and `long` (400 otherwise).',
        [{ requires: ['lat', 'long'], value: 'proximity', status: 400 }],
      ),
    ),
  },
  { additionalProperties: false },
);
export const AttractionQuery = Type.Object(
  {
    ...common,
    domain: Type.Optional(Domains),
    attraction_name: Type.Optional(Type.String({ maxLength: 200 })),
    attraction_ids: Type.Optional(ids),
    has_events: Type.Optional(Type.Boolean()),
    query: Type.Optional(Type.String({ maxLength: 200 })),
    category_ids: Type.Optional(ids),
    subcategory_ids: Type.Optional(ids),
    sort_by: Type.Optional(
      Type.Union([Type.Literal('attraction_name'), Type.Literal('popularity')]),
    ),
  },
  { additionalProperties: false },
);
export const VenueQuery = Type.Object(
  {
    ...common,
    domain: Domains,
    venue_name: Type.Optional(Type.String({ maxLength: 500 })),
    venue_ids: Type.Optional(ids),
    city_ids: Type.Optional(cityIds),
    postal_code: Type.Optional(Type.String({ maxLength: 20 })),
    lat: Type.Optional(latitude),
    long: Type.Optional(longitude),
    radius: Type.Optional(radius),
    exclude_external: Type.Optional(Type.Boolean()),
    sort_by: Type.Optional(Type.Union([Type.Literal('venuename'), Type.Literal('cityname')])),
  },
  { additionalProperties: false },
);
export const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
export const DomainLangQuery = Type.Object(
  { apikey: Type.Optional(Type.String()), lang: Type.Optional(lang), domain: Domains },
  { additionalProperties: false },
);
export const OptionalDomainQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    lang: Type.Optional(lang),
    domain: Type.Optional(Domains),
  },
  { additionalProperties: false },
);
export const SimilarQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    lang: Type.Optional(lang),
    domain: Type.Optional(Domains),
    has_events: Type.Optional(Type.Boolean()),
    rows: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROWS })),
  },
  { additionalProperties: false },
);

const list = (value: string | undefined) => (value ? value.split(',').filter((v) => v !== '') : []);
export const countriesOf = (domains: readonly string[] | undefined) =>
  (domains ?? []).map((d) => domainCountries[d]!.alpha2);
const date = (value: string | undefined) => (value ? new Date(value) : undefined);
const inclusion = (flag: boolean | undefined) =>
  flag === undefined
    ? Inclusion.INCLUSION_UNSPECIFIED
    : flag
      ? Inclusion.INCLUSION_ONLY
      : Inclusion.INCLUSION_NO;

/** A query whose parameters do not go together, or a date that is not one (400). */
export class IntlQueryError extends Error {}

function checkDate(value: string | undefined, name: string): void {
  if (value && Number.isNaN(new Date(value).getTime()))
    throw new IntlQueryError(`${name} is not a valid date: ${value}`);
  if (value && new Date(value).toISOString().slice(0, 19) !== value.slice(0, 19))
    throw new IntlQueryError(`${name} is not a valid date: ${value}`);
}

function geo(query: { lat?: number; long?: number; radius?: number }) {
  if ((query.lat === undefined) !== (query.long === undefined))
    throw new IntlQueryError('lat and long go together');
  if (query.radius !== undefined && query.lat === undefined)
    throw new IntlQueryError('radius needs lat and long');
  return query.lat === undefined ? undefined : { latitude: query.lat, longitude: query.long! };
}

/** `city_ids`: the catalog's city ids (`venue.location.address.city_id`), numbers below 2⁴⁸. */
const cityIdList = (value: string | undefined) => list(value).map(Number);

/** `sort_by` and `order` of an event search as the catalog's event sort. */
function eventSort(sortBy: Static<typeof EventQuery>['sort_by'], desc: boolean) {
  return {
    eventdate: desc ? EventSort.EVENT_SORT_DATE_DESC : EventSort.EVENT_SORT_DATE_ASC,
    eventname: desc ? EventSort.EVENT_SORT_NAME_DESC : EventSort.EVENT_SORT_NAME_ASC,
    // As for attractions: `asc` ranks the most popular first (catalog-indexer README).
    popularity: desc ? EventSort.EVENT_SORT_POPULARITY_ASC : EventSort.EVENT_SORT_POPULARITY_DESC,
    proximity: desc ? EventSort.EVENT_SORT_DISTANCE_DESC : EventSort.EVENT_SORT_DISTANCE_ASC,
    onsaledate: desc ? EventSort.EVENT_SORT_ONSALE_DESC : EventSort.EVENT_SORT_ONSALE_ASC,
  }[sortBy ?? 'eventdate'];
}

/** The catalog search of an event search; IntlQueryError for parameters that do not go together. */
export function toIntlEventSearch(q: Static<typeof EventQuery>): SearchEventsRequest {
  const rows = q.rows ?? DEFAULT_ROWS;
  const start = q.start ?? 0;
  for (const [name, value] of Object.entries(q))
    if (name.endsWith('_from') || name.endsWith('_to')) checkDate(value as string, name);
  const center = geo(q);
  if (q.sort_by === 'proximity' && !center)
    throw new IntlQueryError('sort_by=proximity needs lat and long');
  if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price)
    throw new IntlQueryError('min_price is above max_price');
  const countries = [...countriesOf(q.domain)];
  for (const id of list(q.country_ids)) countries.push(countryOfNumericId(Number(id)) ?? `#${id}`);
  const sort = eventSort(q.sort_by, q.order === 'desc');
  return SearchEventsRequest.fromPartial({
    eventIds: list(q.event_ids),
    attractionIds: list(q.attraction_ids),
    promoterIds: list(q.promoter_codes),
    classificationIds: [...list(q.category_ids), ...list(q.subcategory_ids)],
    venueIds: list(q.venue_ids),
    cityIds: cityIdList(q.city_ids),
    countryCodes: countries,
    nameContains: q.event_name ?? '',
    postalCode: q.postal_code ?? '',
    latlong: center,
    // The catalog's radius default is 50; international radius is in kilometres.
    radius: q.radius ?? (center && q.sort_by === 'proximity' ? 20_000 : 0),
    unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS,
    startDateTime: date(q.eventdate_from),
    endDateTime: date(q.eventdate_to),
    onsaleStartDateTime: date(q.onsaledate_from),
    onsaleEndDateTime: date(q.onsaledate_to),
    offsaleStartDateTime: date(q.offsaledate_from),
    offsaleEndDateTime: date(q.offsaledate_to),
    minPrice: q.min_price ?? 0,
    maxPrice: q.max_price ?? 0,
    priceExclFees: q.price_excl_fees ?? false,
    excludePackages: q.is_not_package ?? false,
    seatsAvailable: q.seats_available ?? false,
    includeCancelled: inclusion(q.cancelled),
    includeRescheduled: inclusion(q.rescheduled),
    excludeExternal: q.exclude_external ?? q.exlude_external ?? false,
    // Dates to be announced are part of international listings (an event "may be absent if not announced").
    includeTba: Inclusion.INCLUSION_YES,
    includeTbd: Inclusion.INCLUSION_YES,
    sort,
    page: { offset: start, limit: rows },
  });
}

/** The catalog search of an attraction search. */
export function toIntlAttractionSearch(
  q: Static<typeof AttractionQuery>,
): SearchAttractionsRequest {
  const rows = q.rows ?? DEFAULT_ROWS;
  const start = q.start ?? 0;
  const desc = q.order === 'desc';
  return SearchAttractionsRequest.fromPartial({
    ids: list(q.attraction_ids),
    nameContains: q.attraction_name ?? '',
    fuzzy: q.query ?? '',
    classificationIds: [...list(q.category_ids), ...list(q.subcategory_ids)],
    hasEvents: q.has_events ?? false,
    countryCodes: countriesOf(q.domain),
    sort:
      q.sort_by === 'popularity'
        ? desc
          ? NameSort.NAME_SORT_POPULARITY_ASC
          : NameSort.NAME_SORT_POPULARITY_DESC
        : desc
          ? NameSort.NAME_SORT_NAME_DESC
          : NameSort.NAME_SORT_UNSPECIFIED,
    page: { offset: start, limit: rows },
  });
}

/** The catalog search of a venue search; IntlQueryError for parameters that do not go together. */
export function toIntlVenueSearch(q: Static<typeof VenueQuery>): SearchVenuesRequest {
  const rows = q.rows ?? DEFAULT_ROWS;
  const start = q.start ?? 0;
  const center = geo(q);
  const desc = q.order === 'desc';
  return SearchVenuesRequest.fromPartial({
    countryCodes: countriesOf(q.domain),
    nameAny: list(q.venue_name),
    ids: list(q.venue_ids),
    cityIds: cityIdList(q.city_ids),
    postalCode: q.postal_code ?? '',
    latlong: center,
    radius: q.radius ?? 0,
    unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS,
    excludeExternal: q.exclude_external ?? false,
    includeTest: Inclusion.INCLUSION_NO,
    sort:
      q.sort_by === 'cityname'
        ? desc
          ? NameSort.NAME_SORT_CITY_DESC
          : NameSort.NAME_SORT_CITY_ASC
        : desc
          ? NameSort.NAME_SORT_NAME_DESC
          : NameSort.NAME_SORT_UNSPECIFIED,
    page: { offset: start, limit: rows },
  });
}
