import { errorKindOf } from '@marquee/platform/kernel';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type {
  DiscoveryVenue,
  SearchEventsRequest,
  SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import type { FeeSchedule } from '@marquee/platform/money';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { DiscoveryCatalog } from '../../../app/discovery-catalog.js';
import { requireApiKey } from '../api-key-guard.js';
import { familyErrorResponses, type ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { resolvedOf } from '@marquee/discovery-documents';
import { sendAsBuilt } from './discovery-v2-schemas.js';
import {
  AttractionQuery,
  countriesOf,
  DEFAULT_ROWS,
  DomainLangQuery,
  EventQuery,
  IdParams,
  IntlQueryError,
  OptionalDomainQuery,
  SimilarQuery,
  toIntlAttractionSearch,
  toIntlEventSearch,
  toIntlVenueSearch,
  VenueQuery,
} from './international-query.js';
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
  intlAreas,
  intlAttraction,
  intlEvent,
  intlSeatmap,
  intlVenue,
} from './international-shapes.js';

/** What the international routes share: the family their errors are in, the catalog, the fees. */
interface IntlContext {
  family: ApiFamily;
  catalog: DiscoveryCatalog;
  fees: FeeSchedule;
}

/** 400 for a query whose parameters do not go together; anything else is thrown again. */
const bad = (reply: FastifyReply, family: ApiFamily, error: unknown) => {
  if (error instanceof IntlQueryError)
    return sendFamilyError(reply, family, {
      status: 400,
      code: 'invalid_request',
      detail: error.message,
    });
  throw error;
};

const notFound = (reply: FastifyReply, family: ApiFamily, what: string, id: string) =>
  sendFamilyError(reply, family, {
    status: 404,
    code: 'not_found',
    detail: `${what} ${id} not found`,
  });

const isNotFound = (error: unknown) => errorKindOf(error) === 'not_found';

// An answer's example, when there is one, goes with its schema (the document's `example`).
const withExample = (answer: TSchema, example?: unknown) =>
  example === undefined ? answer : { ...answer, examples: [example] };

const searchResponses = (family: ApiFamily, answer: TSchema, example?: unknown) => ({
  200: withExample(answer, example),
  ...familyErrorResponses(family, {
    400: 'Invalid parameter, or parameters that do not go together',
  }),
});

const detailResponses = (family: ApiFamily, what: string, answer: TSchema, example?: unknown) => ({
  200: withExample(answer, example),
  ...familyErrorResponses(family, { 404: `No ${what} with this id (in these domains)` }),
});

const pagination = (start: number, rows: number, total: number) => ({ start, rows, total });

/** An event with its venue; `not_found` also for an event outside the domains asked for. */
async function eventOf(
  catalog: DiscoveryCatalog,
  id: string,
  domains: readonly string[] | undefined,
) {
  const answer = await catalog.getEvent(id);
  const venue: DiscoveryVenue | undefined = answer.venues[0];
  const countries = countriesOf(domains);
  if (countries.length > 0 && !countries.includes(venue?.country?.countryCode.toUpperCase() ?? ''))
    throw Object.assign(new Error(`event ${id} not found`), { kind: 'not_found' });
  return { ...answer, venue };
}

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
      const context: IntlContext = { family, catalog: backends.catalog, fees };
      eventSearchRoute(scope, context);
      eventRoute(scope, context);
      eventAreasRoute(scope, context);
      eventSeatmapRoute(scope, context);
      attractionSearchRoute(scope, context);
      attractionRoute(scope, context);
      similarAttractionsRoute(scope, context);
      venueSearchRoute(scope, context);
      venueRoute(scope, context);
    });
  };
}

/** GET /events: event search. */
function eventSearchRoute(scope: FastifyInstance, { family, catalog, fees }: IntlContext): void {
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
          family,
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
        search = toIntlEventSearch(q);
      } catch (error) {
        return bad(reply, family, error);
      }
      const answer = await catalog.searchEvents(search);
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
}

/** GET /events/:id: an event's details. */
function eventRoute(scope: FastifyInstance, { family, catalog, fees }: IntlContext): void {
  scope.get(
    '/events/:id',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Event details',
        params: IdParams,
        querystring: OptionalDomainQuery,
        response: detailResponses(family, 'event', IntlEvent, INTL_EVENT_EXAMPLE),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const q = request.query as Static<typeof OptionalDomainQuery>;
      try {
        const found = await eventOf(catalog, id, q.domain);
        return intlEvent(
          found.event!,
          found.venue,
          resolvedOf(found.venues, found.attractions).attractions,
          q.lang,
          fees,
        );
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'event', id);
        throw error;
      }
    },
  );
}

/** GET /events/:id/areas: an event's areas. */
function eventAreasRoute(scope: FastifyInstance, { family, catalog, fees }: IntlContext): void {
  scope.get(
    '/events/:id/areas',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Areas of an event',
        params: IdParams,
        querystring: DomainLangQuery,
        response: detailResponses(family, 'event', IntlAreas),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const q = request.query as Static<typeof DomainLangQuery>;
      try {
        return intlAreas((await eventOf(catalog, id, q.domain)).event!, q.lang, fees);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'event', id);
        throw error;
      }
    },
  );
}

/** GET /events/:id/seatmap: an event's seat map. */
function eventSeatmapRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/events/:id/seatmap',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Seat map of an event',
        params: IdParams,
        querystring: OptionalDomainQuery,
        response: detailResponses(family, 'event', IntlSeatmap),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const q = request.query as Static<typeof OptionalDomainQuery>;
      try {
        return intlSeatmap((await eventOf(catalog, id, q.domain)).event!);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'event', id);
        throw error;
      }
    },
  );
}

/** GET /attractions: attraction search. */
function attractionSearchRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/attractions',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Search attractions',
        querystring: AttractionQuery,
        response: searchResponses(
          family,
          IntlPage('attractions', IntlAttraction, 'IntlAttractionPage'),
        ),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof AttractionQuery>;
      const rows = q.rows ?? DEFAULT_ROWS;
      const start = q.start ?? 0;
      const answer = await catalog.searchAttractions(toIntlAttractionSearch(q));
      return {
        attractions: answer.attractions.map((a) => intlAttraction(a, q.lang)),
        pagination: pagination(start, rows, answer.page?.total ?? 0),
      };
    },
  );
}

/** GET /attractions/:id: an attraction's details. */
function attractionRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/attractions/:id',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Attraction details',
        params: IdParams,
        querystring: OptionalDomainQuery,
        response: detailResponses(family, 'attraction', IntlAttraction),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      try {
        return intlAttraction(
          await catalog.getAttraction(id),
          (request.query as Static<typeof OptionalDomainQuery>).lang,
        );
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'attraction', id);
        throw error;
      }
    },
  );
}

/** GET /attractions/:id/similar: attractions like this one. */
function similarAttractionsRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/attractions/:id/similar',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Similar attractions',
        params: IdParams,
        querystring: SimilarQuery,
        response: detailResponses(family, 'attraction', IntlSimilarAttractions),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const q = request.query as Static<typeof SimilarQuery>;
      try {
        const attractions = await catalog.similarAttractions({
          id,
          hasEvents: q.has_events ?? false,
          countryCodes: countriesOf(q.domain),
          limit: q.rows ?? DEFAULT_ROWS,
        });
        return { attractions: attractions.map((a) => intlAttraction(a, q.lang)) };
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'attraction', id);
        throw error;
      }
    },
  );
}

/** GET /venues: venue search. */
function venueSearchRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/venues',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Search venues',
        description: '`lat` and `long` go together; `radius` needs them (400 otherwise).',
        querystring: VenueQuery,
        response: searchResponses(family, IntlPage('venues', IntlVenue, 'IntlVenuePage')),
      },
    },
    async (request, reply) => {
      const q = request.query as Static<typeof VenueQuery>;
      const rows = q.rows ?? DEFAULT_ROWS;
      const start = q.start ?? 0;
      let search: SearchVenuesRequest;
      try {
        search = toIntlVenueSearch(q);
      } catch (error) {
        return bad(reply, family, error);
      }
      const answer = await catalog.searchVenues(search);
      return {
        venues: answer.venues.map((v) => intlVenue(v, q.lang)),
        pagination: pagination(start, rows, answer.page?.total ?? 0),
      };
    },
  );
}

/** GET /venues/:id: a venue's details, when it is in one of the domains asked for. */
function venueRoute(scope: FastifyInstance, { family, catalog }: IntlContext): void {
  scope.get(
    '/venues/:id',
    {
      schema: {
        tags: ['international discovery'],
        summary: 'Venue details',
        params: IdParams,
        querystring: DomainLangQuery,
        response: detailResponses(family, 'venue', IntlVenue),
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const q = request.query as Static<typeof DomainLangQuery>;
      try {
        const venue = await catalog.getVenue(id);
        if (!countriesOf(q.domain).includes(venue.country?.countryCode.toUpperCase() ?? ''))
          return notFound(reply, family, 'venue', id);
        return intlVenue(venue, q.lang);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'venue', id);
        throw error;
      }
    },
  );
}
