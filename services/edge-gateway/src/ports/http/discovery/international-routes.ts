import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  EventSort,
  Inclusion,
  NameSort,
  SearchAttractionsRequest,
  SearchEventsRequest,
  SearchVenuesRequest,
  type DiscoveryVenue,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import type { FeeSchedule } from '@marquee/platform/money';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { DiscoveryCatalog } from '../../../app/discovery-catalog.js';
import { requireApiKey } from '../api-key-guard.js';
import { dependent } from '../parameter-dependencies.js';
import { familyErrorResponses, type ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { resolvedOf } from '@marquee/discovery-documents';
import { sendAsBuilt } from './discovery-v2-schemas.js';
import {
  INTL_EVENT_EXAMPLE,
  INTL_EVENT_PAGE_EXAMPLE,
  IntlAreas,
  IntlAttraction,
  IntlEvent,
  IntlPage,
  IntlSeatmap,
  IntlSimilarAttractions,
  IntlVenue,
} from './international-schemas.js';
import {
  countryOfNumericId,
  domainCountries,
  domainNames,
  intlAreas,
  intlAttraction,
  intlEvent,
  intlSeatmap,
  intlVenue,
} from './international-shapes.js';

/** International discovery paging: `rows` default 10, maximum 250; `start` default 0. */
export const MAX_ROWS = 250;
const DEFAULT_ROWS = 10;

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

const EventQuery = Type.Object(
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
const AttractionQuery = Type.Object(
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
const VenueQuery = Type.Object(
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
const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const DomainLangQuery = Type.Object(
  { apikey: Type.Optional(Type.String()), lang: Type.Optional(lang), domain: Domains },
  { additionalProperties: false },
);
const OptionalDomainQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    lang: Type.Optional(lang),
    domain: Type.Optional(Domains),
  },
  { additionalProperties: false },
);
const SimilarQuery = Type.Object(
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
const countriesOf = (domains: readonly string[] | undefined) =>
  (domains ?? []).map((d) => domainCountries[d]!.alpha2);
const date = (value: string | undefined) => (value ? new Date(value) : undefined);
const inclusion = (flag: boolean | undefined) =>
  flag === undefined
    ? Inclusion.INCLUSION_UNSPECIFIED
    : flag
      ? Inclusion.INCLUSION_ONLY
      : Inclusion.INCLUSION_NO;

class IntlQueryError extends Error {}

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

/**
 * International discovery: events, attractions and venues
 * search with every documented parameter, areas and seat map of an event, similar attractions, venue
 * details; API key in the `apikey` query parameter on every request.
 */
export function internationalRoutes(
  backends: {
    catalog: DiscoveryCatalog;
    developerAccess: DeveloperAccess;
  },
  fees: FeeSchedule,
) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    await familyScope.register(async (scope) => {
      requireApiKey(scope, family, backends.developerAccess, {
        from: [{ in: 'query', name: 'apikey' }],
      });
      // The documents go out as built; their schemas (international-schemas.ts) document them.
      sendAsBuilt(scope);
      const bad = (reply: FastifyReply, error: unknown) => {
        if (error instanceof IntlQueryError)
          return sendFamilyError(reply, family, {
            status: 400,
            code: 'invalid_request',
            detail: error.message,
          });
        throw error;
      };
      const notFound = (reply: FastifyReply, what: string, id: string) =>
        sendFamilyError(reply, family, {
          status: 404,
          code: 'not_found',
          detail: `${what} ${id} not found`,
        });
      const isNotFound = (error: unknown) => (error as { kind?: string }).kind === 'not_found';
      // An answer's example, when there is one, goes with its schema (the document's `example`).
      const withExample = (answer: TSchema, example?: unknown) =>
        example === undefined ? answer : { ...answer, examples: [example] };
      const searchResponses = (answer: TSchema, example?: unknown) => ({
        200: withExample(answer, example),
        ...familyErrorResponses(family, {
          400: 'Invalid parameter, or parameters that do not go together',
        }),
      });
      const detailResponses = (what: string, answer: TSchema, example?: unknown) => ({
        200: withExample(answer, example),
        ...familyErrorResponses(family, { 404: `No ${what} with this id (in these domains)` }),
      });
      const pagination = (start: number, rows: number, total: number) => ({ start, rows, total });

      scope.get(
        '/events',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Search events',
            description:
              '`lat` and `long` go together; `radius` and `sort_by=proximity` need them; `min_price` is not above `max_price` (400 otherwise).',
            querystring: EventQuery,
            response: searchResponses(
              IntlPage('events', IntlEvent, 'IntlEventPage'),
              INTL_EVENT_PAGE_EXAMPLE,
            ),
          },
        },
        async (request, reply) => {
          const q = request.query as Static<typeof EventQuery>;
          const rows = q.rows ?? DEFAULT_ROWS;
          const start = q.start ?? 0;
          let search: SearchEventsRequest;
          try {
            for (const [name, value] of Object.entries(q))
              if (name.endsWith('_from') || name.endsWith('_to')) checkDate(value as string, name);
            const center = geo(q);
            if (q.sort_by === 'proximity' && !center)
              throw new IntlQueryError('sort_by=proximity needs lat and long');
            if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price)
              throw new IntlQueryError('min_price is above max_price');
            const countries = [...countriesOf(q.domain)];
            for (const id of list(q.country_ids))
              countries.push(countryOfNumericId(Number(id)) ?? `#${id}`);
            const desc = q.order === 'desc';
            const sort = {
              eventdate: desc ? EventSort.EVENT_SORT_DATE_DESC : EventSort.EVENT_SORT_DATE_ASC,
              eventname: desc ? EventSort.EVENT_SORT_NAME_DESC : EventSort.EVENT_SORT_NAME_ASC,
              // As for attractions: `asc` ranks the most popular first (catalog-indexer README).
              popularity: desc
                ? EventSort.EVENT_SORT_POPULARITY_ASC
                : EventSort.EVENT_SORT_POPULARITY_DESC,
              proximity: desc
                ? EventSort.EVENT_SORT_DISTANCE_DESC
                : EventSort.EVENT_SORT_DISTANCE_ASC,
              onsaledate: desc ? EventSort.EVENT_SORT_ONSALE_DESC : EventSort.EVENT_SORT_ONSALE_ASC,
            }[q.sort_by ?? 'eventdate'];
            search = SearchEventsRequest.fromPartial({
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
          } catch (error) {
            return bad(reply, error);
          }
          const answer = await backends.catalog.searchEvents(search);
          const resolved = resolvedOf(answer.venues, answer.attractions);
          return {
            events: answer.events.map((e) => {
              const venueId = e.location?.$case === 'venue' ? e.location.value.resolvedId : '';
              return intlEvent(e, resolved.venues.get(venueId), resolved.attractions, q.lang, fees);
            }),
            pagination: pagination(start, rows, answer.page?.total ?? 0),
          };
        },
      );

      const eventOf = async (id: string, domains: readonly string[] | undefined) => {
        const answer = await backends.catalog.getEvent(id);
        const venue: DiscoveryVenue | undefined = answer.venues[0];
        const countries = countriesOf(domains);
        if (
          countries.length > 0 &&
          !countries.includes(venue?.country?.countryCode.toUpperCase() ?? '')
        )
          throw Object.assign(new Error(`event ${id} not found`), { kind: 'not_found' });
        return { ...answer, venue };
      };

      scope.get(
        '/events/:id',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Event details',
            params: IdParams,
            querystring: OptionalDomainQuery,
            response: detailResponses('event', IntlEvent, INTL_EVENT_EXAMPLE),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          const q = request.query as Static<typeof OptionalDomainQuery>;
          try {
            const found = await eventOf(id, q.domain);
            return intlEvent(
              found.event!,
              found.venue,
              resolvedOf(found.venues, found.attractions).attractions,
              q.lang,
              fees,
            );
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'event', id);
            throw error;
          }
        },
      );

      scope.get(
        '/events/:id/areas',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Areas of an event',
            params: IdParams,
            querystring: DomainLangQuery,
            response: detailResponses('event', IntlAreas),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          const q = request.query as Static<typeof DomainLangQuery>;
          try {
            return intlAreas((await eventOf(id, q.domain)).event!, q.lang, fees);
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'event', id);
            throw error;
          }
        },
      );

      scope.get(
        '/events/:id/seatmap',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Seat map of an event',
            params: IdParams,
            querystring: OptionalDomainQuery,
            response: detailResponses('event', IntlSeatmap),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          const q = request.query as Static<typeof OptionalDomainQuery>;
          try {
            return intlSeatmap((await eventOf(id, q.domain)).event!);
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'event', id);
            throw error;
          }
        },
      );

      scope.get(
        '/attractions',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Search attractions',
            querystring: AttractionQuery,
            response: searchResponses(
              IntlPage('attractions', IntlAttraction, 'IntlAttractionPage'),
            ),
          },
        },
        async (request) => {
          const q = request.query as Static<typeof AttractionQuery>;
          const rows = q.rows ?? DEFAULT_ROWS;
          const start = q.start ?? 0;
          const desc = q.order === 'desc';
          const answer = await backends.catalog.searchAttractions(
            SearchAttractionsRequest.fromPartial({
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
            }),
          );
          return {
            attractions: answer.attractions.map((a) => intlAttraction(a, q.lang)),
            pagination: pagination(start, rows, answer.page?.total ?? 0),
          };
        },
      );

      scope.get(
        '/attractions/:id',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Attraction details',
            params: IdParams,
            querystring: OptionalDomainQuery,
            response: detailResponses('attraction', IntlAttraction),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          try {
            return intlAttraction(
              await backends.catalog.getAttraction(id),
              (request.query as Static<typeof OptionalDomainQuery>).lang,
            );
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'attraction', id);
            throw error;
          }
        },
      );

      scope.get(
        '/attractions/:id/similar',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Similar attractions',
            params: IdParams,
            querystring: SimilarQuery,
            response: detailResponses('attraction', IntlSimilarAttractions),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          const q = request.query as Static<typeof SimilarQuery>;
          try {
            const attractions = await backends.catalog.similarAttractions({
              id,
              hasEvents: q.has_events ?? false,
              countryCodes: countriesOf(q.domain),
              limit: q.rows ?? DEFAULT_ROWS,
            });
            return { attractions: attractions.map((a) => intlAttraction(a, q.lang)) };
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'attraction', id);
            throw error;
          }
        },
      );

      scope.get(
        '/venues',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Search venues',
            description: '`lat` and `long` go together; `radius` needs them (400 otherwise).',
            querystring: VenueQuery,
            response: searchResponses(IntlPage('venues', IntlVenue, 'IntlVenuePage')),
          },
        },
        async (request, reply) => {
          const q = request.query as Static<typeof VenueQuery>;
          const rows = q.rows ?? DEFAULT_ROWS;
          const start = q.start ?? 0;
          let center;
          try {
            center = geo(q);
          } catch (error) {
            return bad(reply, error);
          }
          const desc = q.order === 'desc';
          const answer = await backends.catalog.searchVenues(
            SearchVenuesRequest.fromPartial({
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
            }),
          );
          return {
            venues: answer.venues.map((v) => intlVenue(v, q.lang)),
            pagination: pagination(start, rows, answer.page?.total ?? 0),
          };
        },
      );

      scope.get(
        '/venues/:id',
        {
          schema: {
            tags: ['international discovery'],
            summary: 'Venue details',
            params: IdParams,
            querystring: DomainLangQuery,
            response: detailResponses('venue', IntlVenue),
          },
        },
        async (request, reply) => {
          const { id } = request.params as Static<typeof IdParams>;
          const q = request.query as Static<typeof DomainLangQuery>;
          try {
            const venue = await backends.catalog.getVenue(id);
            if (!countriesOf(q.domain).includes(venue.country?.countryCode.toUpperCase() ?? ''))
              return notFound(reply, 'venue', id);
            return intlVenue(venue, q.lang);
          } catch (error) {
            if (isNotFound(error)) return notFound(reply, 'venue', id);
            throw error;
          }
        },
      );
    });
  };
}
