import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { DealsBackend } from '../../../app/deals.js';
import { requireApiKey } from '../api-key-guard.js';
import { DealsQueryError, parseDealsQuery } from './deals-query.js';
import type { ApiFamily } from './family.js';

const Named = Type.Object({ name: Type.String(), id: Type.Number() });

/** The deals search result (in the field order the deals API documents). */
const DealSearchResult = Type.Object({
  hits: Type.Integer(),
  totalHits: Type.Integer(),
  events: Type.Array(
    Type.Object({
      eventId: Type.String(),
      eventName: Type.String(),
      eventDate: Type.Optional(Type.String({ format: 'date-time' })),
      onsaleOnDate: Type.Optional(Type.String({ format: 'date-time' })),
      eventDetailsLink: Type.String(),
      minPrice: Type.Optional(Type.Number()),
      maxPrice: Type.Optional(Type.Number()),
      currency: Type.Optional(Type.String()),
      deals: Type.Array(
        Type.Object({
          dealName: Type.String(),
          dealDescription: Type.String(),
          dealOfferCode: Type.Optional(Type.String()),
        }),
      ),
      attractions: Type.Array(
        Type.Object({ attractionId: Type.Number(), attractionName: Type.String() }),
      ),
      venue: Type.Optional(
        Type.Object({
          venueId: Type.Number(),
          venueName: Type.String(),
          venueLatitude: Type.Optional(Type.Number()),
          venueLongitude: Type.Optional(Type.Number()),
        }),
      ),
      categorization: Type.Object({
        majorGenres: Type.Array(Named),
        minorGenres: Type.Array(Named),
      }),
    }),
  ),
});

const DealsError = Type.Object({ message: Type.String(), statusCode: Type.Integer() });

/** Documentation of the query (parsed by deals-query.ts, which gives the 406 messages). */
const querystring = Type.Object({
  apikey: Type.String({ description: 'API key of the calling app (required)' }),
  exclusivities: Type.Optional(
    Type.String({
      description: 'EXCLUSIVE, NONEXCLUSIVE (comma-separated or repeated); default both',
    }),
  ),
  marketIds: Type.Optional(
    Type.String({ description: 'Market ids (comma-separated or repeated)' }),
  ),
  startRow: Type.Optional(Type.String({ description: 'Paging start row, default 0' })),
  rows: Type.Optional(Type.String({ description: 'Page size, default 25, maximum 500' })),
  country: Type.Optional(Type.String({ description: 'Country code, default US' })),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  latitude: Type.Optional(Type.String({ description: 'With longitude' })),
  longitude: Type.Optional(Type.String({ description: 'With latitude' })),
  radius: Type.Optional(Type.String({ description: 'Default 10' })),
  radiusUnit: Type.Optional(Type.String({ description: 'miles | kilometers (default)' })),
  majorGenreId: Type.Optional(Type.String()),
  minorGenreId: Type.Optional(Type.String()),
  venueId: Type.Optional(Type.String()),
  attractionId: Type.Optional(Type.String()),
  timeRangeStart: Type.Optional(
    Type.String({ description: 'ISO 8601; events starting at or after' }),
  ),
  timeRangeEnd: Type.Optional(Type.String({ description: 'ISO 8601; events starting before' })),
});

const DEAL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The deals API: `GET /deals/events` and `GET /deals/{deal}/events` under the production
 * prefix and the QA prefix (the QA data set: events published as test data). Answers 204 when the
 * requested page holds no event (see the deals README).
 */
export function dealsRoutes(backends: { deals: DealsBackend; developerAccess: DeveloperAccess }) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // The key guard lives in a child scope holding only these routes: an unknown path still
    // answers the family's 404 (and a wrong method 405) whether or not a key came with it.
    await familyScope.register(async (scope) => routes(scope, family));
  };

  async function routes(scope: FastifyInstance, family: ApiFamily): Promise<void> {
    requireApiKey(scope, family, backends.developerAccess, {
      from: [{ in: 'query', name: 'apikey' }],
      rateLimitHeaders: false,
    });
    const qa = scope.prefix.includes('content-qa');
    const schema = (summary: string, params?: object) => ({
      tags: [family.title],
      summary: `${summary}${qa ? ' (QA data set)' : ''}`,
      // Parsed by deals-query.ts: the schema documents the parameters but does not coerce them.
      ...(params ? { params } : {}),
      response: { 200: DealSearchResult, 401: DealsError, 406: DealsError },
    });

    const search = async (query: unknown, dealId: string | undefined, reply: FastifyReply) => {
      const parsed = parseDealsQuery((query ?? {}) as Record<string, unknown>, {
        qa,
        ...(dealId !== undefined ? { dealId } : {}),
      });
      const result = await backends.deals.searchDeals(parsed);
      if (result.events.length === 0) return reply.code(204).send();
      return reply.code(200).send(result);
    };

    scope.get(
      '/deals/events',
      { schema: { ...schema('Search events with deals'), description: documented(querystring) } },
      (request, reply) => search(request.query, undefined, reply),
    );
    scope.get(
      '/deals/:deal/events',
      {
        schema: {
          ...schema('Events that have the given deal', Type.Object({ deal: Type.String() })),
          description: documented(querystring),
        },
      },
      (request, reply) => {
        const { deal } = request.params as { deal: string };
        if (!DEAL_ID.test(deal)) throw new DealsQueryError('deal must be a deal id');
        return search(request.query, deal, reply);
      },
    );
  }
}

/** The query parameters as text for the OpenAPI description (not a validating schema). */
function documented(schema: typeof querystring): string {
  return Object.entries(schema.properties)
    .map(
      ([name, p]) =>
        `- \`${name}\`${(p as { description?: string }).description ? `: ${(p as { description?: string }).description}` : ''}`,
    )
    .join('\n');
}
