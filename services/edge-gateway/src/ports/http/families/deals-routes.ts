import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { DealsBackend } from '../../../app/deals.js';
import { requireApiKey } from '../api-key-guard.js';
import { dependent } from '../parameter-dependencies.js';
import { DealsQueryError, ISO_DATE_TIME, MAX_ROWS, parseDealsQuery } from './deals-query.js';
import { familyErrorResponses, type ApiFamily } from './family.js';
import { anyCase, blankOr, listOf } from '../patterns.js';

const Named = Type.Object({ name: Type.String(), id: Type.Number() });

/** The deals search result (in the field order the deals API documents). */
const DealSearchResult = Type.Object(
  {
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
  },
  { title: 'DealsEventPage' },
);

const ISO_DATE_TIME_CORE = ISO_DATE_TIME.source.slice(1, -1);

/**
 * The market ids of the deals API: the deals service's market table
 * (services/deals/src/domain/markets.ts; a unit test keeps the two equal).
 */
export const MARKET_IDS: readonly number[] = [
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
  28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
  52, 53, 54, 55, 101, 102, 103, 106, 107, 108, 110, 111, 112, 120, 121, 122, 123, 124, 125, 201,
  202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 301, 302, 303, 304, 305, 306, 350, 351, 352,
  401, 402, 403, 404, 500, 501, 502, 503, 600,
];
/** A market id as text: at most 9 digits, leading zeros allowed (deals-query.ts reads a number). */
const MARKET_ID = [1, 2, 3]
  .map((digits) => {
    const ids = MARKET_IDS.filter((id) => String(id).length === digits);
    return `0{0,${9 - digits}}(?:${ids.join('|')})`;
  })
  .join('|');

/**
 * The query of a deals search, exactly as deals-query.ts reads it (the document states what it
 * accepts; the parser, not ajv, checks it, so each unacceptable parameter gets its own 406
 * message). Empty values are absent. Two rules cross parameters: latitude and longitude come
 * together, and timeRangeStart is not after timeRangeEnd.
 */
const querystring = Type.Object({
  apikey: Type.String({ description: 'API key of the calling app (required)' }),
  exclusivities: Type.Optional(
    Type.Array(
      Type.String({
        pattern: listOf(`${anyCase('EXCLUSIVE')}|${anyCase('NONEXCLUSIVE')}`),
        description: 'EXCLUSIVE, NONEXCLUSIVE (any case; comma-separated or repeated)',
      }),
      { description: 'Default both' },
    ),
  ),
  marketIds: Type.Optional(
    Type.Array(
      Type.String({
        pattern: listOf(MARKET_ID),
        description: 'Market ids of the market table (comma-separated or repeated)',
      }),
    ),
  ),
  startRow: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'Paging start row, default 0',
    }),
  ),
  rows: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ROWS, description: 'Page size, default 25' }),
  ),
  country: Type.Optional(
    Type.String({ pattern: blankOr('[A-Za-z]{2}'), description: 'Country code, default US' }),
  ),
  city: Type.Optional(Type.String({ maxLength: 100 })),
  state: Type.Optional(Type.String({ maxLength: 100 })),
  latitude: Type.Optional(
    dependent(
      Type.Number({ minimum: -90, maximum: 90 }),
      'Latitude of the search centre. Goes with `longitude` (406 otherwise).',
      [{ requires: ['longitude'], status: 406 }],
    ),
  ),
  longitude: Type.Optional(
    dependent(
      Type.Number({ minimum: -180, maximum: 180 }),
      'Longitude of the search centre. Goes with `latitude` (406 otherwise).',
      [{ requires: ['latitude'], status: 406 }],
    ),
  ),
  radius: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 20_038, description: 'Default 10' }),
  ),
  radiusUnit: Type.Optional(
    Type.String({
      pattern: blankOr(`${anyCase('miles')}|${anyCase('kilometers')}`),
      description: 'miles | kilometers (default; any case)',
    }),
  ),
  majorGenreId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  minorGenreId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  venueId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  attractionId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  timeRangeStart: Type.Optional(
    Type.String({
      pattern: blankOr(ISO_DATE_TIME_CORE),
      description: 'ISO 8601 date or date-time (UTC without a zone); events starting at or after',
    }),
  ),
  timeRangeEnd: Type.Optional(
    dependent(
      Type.String({ pattern: blankOr(ISO_DATE_TIME_CORE) }),
      'ISO 8601 date or date-time (UTC without a zone); events starting before. Not before `timeRangeStart` (406 otherwise).',
      [{ notBefore: 'timeRangeStart', status: 406 }],
    ),
  ),
});

/** The query is read by deals-query.ts, not validated by ajv: the schema above only documents it. */
const parsedByTheRoute = () => () => true;

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
    });
    const qa = scope.prefix.includes('content-qa');
    const schema = (summary: string, params?: object) => ({
      tags: [family.title],
      summary: `${summary}${qa ? ' (QA data set)' : ''}`,
      querystring,
      ...(params ? { params } : {}),
      response: {
        200: DealSearchResult,
        204: Type.Null({ description: 'The requested page holds no event' }),
        ...familyErrorResponses(family, {
          406: 'An unacceptable parameter (the message names it), or latitude without longitude, or timeRangeStart after timeRangeEnd',
        }),
      },
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
      { schema: schema('Search events with deals'), validatorCompiler: parsedByTheRoute },
      (request, reply) => search(request.query, undefined, reply),
    );
    scope.get(
      '/deals/:deal/events',
      {
        schema: schema(
          'Events that have the given deal',
          Type.Object({ deal: Type.String({ pattern: DEAL_ID.source }) }),
        ),
        validatorCompiler: parsedByTheRoute,
      },
      (request, reply) => {
        const { deal } = request.params as { deal: string };
        if (!DEAL_ID.test(deal)) throw new DealsQueryError('deal must be a deal id');
        return search(request.query, deal, reply);
      },
    );
  }
}
