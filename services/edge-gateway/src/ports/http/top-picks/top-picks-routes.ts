import type { FastifyError, FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { TopPicksBackend } from '../../../app/top-picks.js';
import { requireApiKey } from '../api-key-guard.js';
import type { ApiFamily, FamilyError } from '../families/family.js';
import { sendFamilyError, toFamilyError } from '../families/register-family.js';
import {
  EventParams,
  SESSION_HEADER,
  SessionHeaders,
  TopPicksQuerySchema,
  TOP_PICKS_EXAMPLE,
  TopPicksResult,
  errorResponses,
} from './schemas.js';

/** The partner family's "invalid input" code. */
const INVALID_INPUT = '10002';

type Query = {
  quantity?: number;
  ticketTypeId?: string;
  priceLevels?: string[];
  areas?: string[];
  sections?: string[];
  prices?: string;
  selection?: string;
  sort?: string;
  page?: number;
  size?: number;
};

class TopPicksInputError extends Error {
  readonly kind = 'invalid_argument';
}

/** `a,b` and repeated parameters → one list of trimmed, non-empty values. */
const values = (raw: string[] | undefined): string[] =>
  (raw ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** `selection`: `standard`, `resale`, `Any` (case-insensitive, comma-separated). */
function includesResale(selection: string | undefined): boolean {
  const asked = values(selection === undefined ? [] : [selection]).map((s) => s.toLowerCase());
  const unknown = asked.filter((s) => !['standard', 'resale', 'any'].includes(s));
  if (unknown.length > 0)
    throw new TopPicksInputError(
      `selection must be standard, resale or Any (not ${unknown.join(', ')})`,
    );
  return asked.includes('resale') || asked.includes('any');
}

function checkSort(sort: string | undefined): void {
  if (sort === undefined) return;
  const normalised = sort.trim().toLowerCase().replace(/\s+/g, '');
  if (normalised !== 'quality' && normalised !== 'quality,desc')
    throw new TopPicksInputError('sort must be quality');
}

/**
 * The family error of a top picks request: invalid input of any origin (schema, a value the edge
 * parses, the cart's INVALID_ARGUMENT) is 400 with code 10002; other back-end errors keep their
 * status and the cart's code when it gave one.
 */
export function topPicksError(
  family: ApiFamily,
  err: FastifyError & { kind?: string; details?: object },
): FamilyError {
  const base = toFamilyError(family, err);
  if (err.validation || err.kind === 'invalid_argument') return { ...base, code: INVALID_INPUT };
  if (typeof err.code === 'string' && err.code.startsWith('FST_') && base.status < 500)
    return { ...base, code: INVALID_INPUT };
  return base;
}

/**
 * `GET /top-picks/v1/events/id/{event_id}`: the best picks of `quantity` tickets of an event, with
 * resale listings when `selection` asks for them, under the fan session of `X-PLATFORM-SESSION-SID`
 * (answered in the same header). API key as `apikey` or `x-api-key`.
 */
export function topPicksRoutes(backends: {
  topPicks: TopPicksBackend;
  developerAccess: DeveloperAccess;
}) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // The key guard lives in a child scope holding only these routes: an unknown path still
    // answers the family's 404 (and a wrong method 405) whether or not a key came with it.
    await familyScope.register(async (scope) => {
      scope.setErrorHandler((err: FastifyError & { kind?: string }, request, reply) => {
        const error = topPicksError(family, err);
        if (error.status >= 500) request.log.error({ err, family: family.id }, 'request failed');
        return sendFamilyError(reply, family, error);
      });
      requireApiKey(scope, family, backends.developerAccess, {
        from: [
          { in: 'query', name: 'apikey' },
          { in: 'header', name: 'x-api-key' },
        ],
      });
      scope.get(
        '/events/id/:event_id',
        {
          schema: {
            tags: [family.title],
            summary: 'Top picks of an event (resale listings with selection=resale)',
            description:
              'Picks of `quantity` tickets together, best first by quality (price and stage proximity), ' +
              'paged from 1 (at most 30 a page). Each answer runs under a fan session: send ' +
              '`X-PLATFORM-SESSION-SID` from the previous answer to keep it; a resale reserve under the ' +
              'live session keeps the resale price shown here.',
            params: EventParams,
            querystring: TopPicksQuerySchema,
            headers: SessionHeaders,
            response: {
              200: {
                ...TopPicksResult,
                examples: [TOP_PICKS_EXAMPLE],
                headers: {
                  [SESSION_HEADER]: {
                    type: 'string',
                    description: 'The fan session id of this answer',
                  },
                },
              },
              ...errorResponses(400, 401, 404, 405, 429, 500, 503, 504),
            },
          },
        },
        async (request, reply) => {
          const { event_id: eventId } = request.params as { event_id: string };
          const query = request.query as Query;
          const includeResale = includesResale(query.selection);
          checkSort(query.sort);
          const [priceMin = '', priceMax = ''] = (query.prices ?? ',')
            .split(',')
            .map((v) => v.trim());
          const sessionId = request.headers[SESSION_HEADER];
          const document = await backends.topPicks.getTopPicks({
            appId: request.appId ?? '',
            eventId,
            fanSessionId: typeof sessionId === 'string' ? sessionId : '',
            quantity: query.quantity ?? 2,
            ticketTypeId: query.ticketTypeId?.trim() ?? '',
            priceLevelIds: values(query.priceLevels),
            areaIds: values(query.areas),
            sections: values(query.sections),
            priceMin,
            priceMax,
            includeResale,
            page: query.page ?? 1,
            size: query.size ?? 10,
          });
          void reply
            .header(SESSION_HEADER, document.fanSession.resaleSid.sessionId)
            .header('cache-control', 'no-store');
          return document;
        },
      );
    });
  };
}
