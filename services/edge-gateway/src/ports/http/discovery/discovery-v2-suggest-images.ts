import { errorKindOf } from '@marquee/platform/kernel';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Inclusion,
  SearchAttractionsRequest,
  SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import {
  attractionDocument,
  DISCOVERY_BASE,
  eventDocument,
  eventImagesDocument,
  resolvedOf,
  venueDocument,
} from '@marquee/discovery-documents';
import type { DiscoveryCatalog } from '../../../app/discovery-catalog.js';
import { familyErrorResponses, type ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { toSearchEventsRequest } from './discovery-v2-query.js';

/** Suggestions of each kind when `size` is not given, as the established API answers. */
export const SUGGEST_DEFAULT_SIZE = 5;
export const SUGGEST_MAX_SIZE = 30;

const LOCALE = Type.String({ pattern: '^(\\*|[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)$' });
const inclusion = Type.Union([Type.Literal('yes'), Type.Literal('no'), Type.Literal('only')]);

export const SuggestQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    keyword: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Whole words of the name (folded: case and diacritics); none suggests any',
      }),
    ),
    size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SUGGEST_MAX_SIZE,
        description: `Suggestions of each kind at most (default ${SUGGEST_DEFAULT_SIZE})`,
      }),
    ),
    locale: Type.Optional(LOCALE),
    includeTest: Type.Optional(inclusion),
  },
  { additionalProperties: false },
);

const ImagesParams = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 64 }),
});
const ImagesQuery = Type.Object(
  { apikey: Type.Optional(Type.String()), locale: Type.Optional(LOCALE) },
  { additionalProperties: false },
);

const Link = Type.Object({ href: Type.String() });
const Image = Type.Object({
  ratio: Type.Optional(Type.String({ description: 'e.g. 16_9, 3_2, 4_3' })),
  url: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  fallback: Type.Boolean(),
});
/** A Discovery v2 document as the search and details routes answer it (their reference). */
const Document = (what: string) =>
  Type.Object({}, { additionalProperties: true, description: `A ${what} document` });

export const SuggestResult = Type.Object(
  {
    _links: Type.Object({ self: Link }),
    _embedded: Type.Object({
      events: Type.Array(Document('Discovery v2 event')),
      venues: Type.Array(Document('Discovery v2 venue')),
      attractions: Type.Array(Document('Discovery v2 attraction')),
    }),
  },
  { description: 'Events, venues and attractions whose names match the keyword' },
);

export const EventImagesResult = Type.Object(
  {
    type: Type.Literal('event'),
    id: Type.String(),
    images: Type.Array(Image),
    _links: Type.Object({ self: Link }),
  },
  { description: "The event's images" },
);

const inclusions: Record<string, Inclusion> = {
  yes: Inclusion.INCLUSION_YES,
  no: Inclusion.INCLUSION_NO,
  only: Inclusion.INCLUSION_ONLY,
};

/** `/suggest` with the request's parameters but the key, as the established API links itself. */
function suggestSelf(query: Static<typeof SuggestQuery>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key !== 'apikey' && value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return `${DISCOVERY_BASE}/suggest${text ? `?${text}` : ''}`;
}

/**
 * Discovery v2 `GET /suggest` and `GET /events/{id}/images`, inside the family's API-key scope
 * (discovery-v2-routes.ts). Both are built on what catalog-indexer already answers:
 *
 * - suggest asks the three keyword searches at once (`SearchEvents`, `SearchVenues`,
 *   `SearchAttractions`, each for the first `size`, in the catalog's relevance order) and shows
 *   each result as its search and details routes show it, under `_embedded`;
 * - images is the event's `images` from `GetEvent`, with its `_links.self` (404 DIS1004 for an
 *   event the catalog does not show, as event details).
 */
export function suggestAndImagesRoutes(
  scope: FastifyInstance,
  family: ApiFamily,
  catalog: DiscoveryCatalog,
): void {
  const suggest = async (request: FastifyRequest) => {
    const query = request.query as Static<typeof SuggestQuery>;
    const size = query.size ?? SUGGEST_DEFAULT_SIZE;
    const keyword = query.keyword ?? '';
    const includeTest = inclusions[query.includeTest ?? 'no'];
    const page = { offset: 0, limit: size };
    const locale = query.locale || undefined;
    const [events, venues, attractions] = await Promise.all([
      catalog.searchEvents(
        toSearchEventsRequest({
          keyword,
          size,
          includeTest: query.includeTest,
          locale: query.locale,
        }),
      ),
      catalog.searchVenues(SearchVenuesRequest.fromPartial({ keyword, includeTest, page })),
      catalog.searchAttractions(
        SearchAttractionsRequest.fromPartial({ keyword, includeTest, page }),
      ),
    ]);
    const resolved = resolvedOf(events.venues, events.attractions);
    return {
      _links: { self: { href: suggestSelf(query) } },
      _embedded: {
        events: events.events.map((e) => eventDocument(e, resolved, locale)),
        venues: venues.venues.map((v) => venueDocument(v, locale)),
        attractions: attractions.attractions.map((a) => attractionDocument(a, locale)),
      },
    };
  };
  const suggestSchema = {
    tags: ['discovery'],
    summary: 'Suggest events, venues and attractions matching a keyword',
    description: `Up to \`size\` (default ${SUGGEST_DEFAULT_SIZE}, at most ${SUGGEST_MAX_SIZE}) of each kind whose name has the keyword's words, most relevant first; each is the document its search answers. Test ones only with \`includeTest\`.`,
    querystring: SuggestQuery,
    response: {
      200: SuggestResult,
      ...familyErrorResponses(family, { 400: 'Invalid parameter (DIS1015)' }),
    },
  };
  scope.get('/suggest', { schema: suggestSchema }, suggest);
  scope.get('/suggest.json', { schema: { ...suggestSchema, hide: true } }, suggest);

  const images = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as Static<typeof ImagesParams>;
    const locale = (request.query as Static<typeof ImagesQuery>).locale || undefined;
    try {
      const answer = await catalog.getEvent(id);
      return eventImagesDocument(answer.event!, locale);
    } catch (error) {
      if (errorKindOf(error) !== 'not_found') throw error;
      return sendFamilyError(reply, family, {
        status: 404,
        code: 'DIS1004',
        detail: `Resource not found with provided criteria (locale=${locale ?? '*'}, id=${id})`,
      });
    }
  };
  const imagesSchema = {
    tags: ['discovery'],
    summary: 'Images of an event',
    params: ImagesParams,
    querystring: ImagesQuery,
    response: {
      200: EventImagesResult,
      ...familyErrorResponses(family, { 404: 'No event with this id (DIS1004)' }),
    },
  };
  scope.get('/events/:id/images', { schema: imagesSchema }, images);
  scope.get('/events/:id/images.json', { schema: { ...imagesSchema, hide: true } }, images);
}
