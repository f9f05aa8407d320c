import { errorKindOf } from '@marquee/platform/kernel';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Inclusion,
  NameSort,
  SearchAttractionsRequest,
  SearchClassificationsRequest,
  SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { DiscoveryCatalog } from '../../../app/discovery-catalog.js';
import { requireApiKey } from '../api-key-guard.js';
import { familyErrorResponses, type ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { registerErrorCodesPage } from './error-codes-page.js';
import {
  DiscoveryAttraction,
  DiscoveryClassification,
  DiscoveryEvent,
  DiscoveryGenre,
  DiscoveryPage,
  DiscoverySegment,
  DiscoverySubGenre,
  DiscoveryVenue,
  EVENT_EXAMPLE,
  EVENT_PAGE_EXAMPLE,
  sendAsBuilt,
} from './discovery-v2-schemas.js';
import { createEventDocuments, type EventDocumentsOptions } from './event-documents.js';
import { createPageCache, pageKey, type PageCache, type PageCacheOptions } from './page-cache.js';
import {
  attractionDocument,
  classificationDocument,
  levelDocument,
  DISCOVERY_BASE,
  eventDocument,
  resolvedOf,
  venueDocument,
} from '@marquee/discovery-documents';
import {
  DEFAULT_SIZE,
  DiscoveryQueryError,
  EventSearchQuery,
  LATLONG_PATTERN,
  MAX_DEPTH,
  PAGING,
  toSearchEventsRequest,
} from './discovery-v2-query.js';
import { suggestAndImagesRoutes } from './discovery-v2-suggest-images.js';

const IdParams = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9_-]+(\\.json)?$', maxLength: 64 }),
});
const LocaleQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    locale: Type.Optional(Type.String({ pattern: '^(\\*|[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)$' })),
  },
  { additionalProperties: false },
);
const inclusion = Type.Union([Type.Literal('yes'), Type.Literal('no'), Type.Literal('only')]);
const paging = PAGING;
const nameSort = Type.Optional(
  Type.Union([Type.Literal('name,asc'), Type.Literal('name,desc'), Type.Literal('relevance,desc')]),
);
const VenueSearchQuery = Type.Object(
  {
    ...LocaleQuery.properties,
    ...paging,
    keyword: Type.Optional(Type.String({ maxLength: 200 })),
    id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$' })),
    countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}(,[A-Za-z]{2})*$' })),
    stateCode: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{1,3}(,[A-Za-z0-9]{1,3})*$' })),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    postalCode: Type.Optional(Type.String({ maxLength: 20 })),
    latlong: Type.Optional(
      Type.String({
        pattern: LATLONG_PATTERN,
        description: 'latitude,longitude in degrees: the centre of the search (`radius`, `unit`)',
      }),
    ),
    // Without `latlong`, venue search ignores `radius` and `unit` (no centre to measure from).
    radius: Type.Optional(
      Type.String({
        pattern: '^\\d{1,5}(\\.\\d+)?$',
        description: 'Distance around `latlong`, in `unit`; ignored without `latlong`',
      }),
    ),
    unit: Type.Optional(
      Type.Union([Type.Literal('miles'), Type.Literal('km')], {
        description: 'Unit of `radius`, default miles; ignored without `latlong`',
      }),
    ),
    marketId: Type.Optional(Type.String({ pattern: '^\\d{1,6}(,\\d{1,6})*$' })),
    includeTest: Type.Optional(inclusion),
    sort: nameSort,
  },
  { additionalProperties: false },
);
const AttractionSearchQuery = Type.Object(
  {
    ...LocaleQuery.properties,
    ...paging,
    keyword: Type.Optional(Type.String({ maxLength: 200 })),
    id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$' })),
    classificationName: Type.Optional(Type.String({ maxLength: 500 })),
    classificationId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$' })),
    includeTest: Type.Optional(inclusion),
    sort: nameSort,
  },
  { additionalProperties: false },
);

const ClassificationSearchQuery = Type.Object(
  {
    ...LocaleQuery.properties,
    ...paging,
    keyword: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

const list = (value: string | undefined) => (value ? value.split(',').filter((v) => v !== '') : []);
const inclusions: Record<string, Inclusion> = {
  yes: Inclusion.INCLUSION_YES,
  no: Inclusion.INCLUSION_NO,
  only: Inclusion.INCLUSION_ONLY,
};

/** The page part of a HAL list (`number` from 0) and its `_links` (self, next while under the depth guard). */
function halPage(request: FastifyRequest, path: string, page: number, size: number, total: number) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (key !== 'apikey' && key !== 'page' && key !== 'size' && value !== undefined) {
      query.set(key, String(value));
    }
  }
  const href = (n: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(n));
    q.set('size', String(size));
    // As in the established API, templated hrefs leave `sort` to the client when the request had
    // none.
    return query.has('sort')
      ? { href: `${DISCOVERY_BASE}${path}?${q.toString()}`, templated: false }
      : { href: `${DISCOVERY_BASE}${path}?${q.toString()}{&sort}`, templated: true };
  };
  const hasNext = (page + 1) * size < total && (page + 1) * size < MAX_DEPTH;
  return {
    _links: { self: href(page), ...(hasNext ? { next: href(page + 1) } : {}) },
    page: { size, totalElements: total, totalPages: Math.ceil(total / size), number: page },
  };
}

function guardDepth(size: number, page: number): void {
  if (size * page >= MAX_DEPTH) {
    throw new DiscoveryQueryError(
      'DIS1035',
      `API Limits Exceeded: Max paging depth exceeded. (page * size) must be less than ${MAX_DEPTH.toLocaleString('en-US')}`,
    );
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

const stripJson = (id: string) => id.replace(/\.json$/, '');

/** The paging rule of every search, which crosses two parameters (so no schema states it). */
const DEPTH_RULE = `\`size * page\` must be less than ${MAX_DEPTH} (400 DIS1035 otherwise).`;

/** What the discovery v2 routes share: the family their errors are in, the catalog, the caches. */
interface DiscoveryV2Context {
  family: ApiFamily;
  catalog: DiscoveryCatalog;
  /** Event search pages, served again while the catalog has not changed (page-cache.ts). */
  pages: PageCache;
  /** Each event version rendered once, whatever page shows it (event-documents.ts). */
  documents: ReturnType<typeof createEventDocuments>;
}

const searchResponses = (family: ApiFamily, what: string, item: TSchema, title: string) => ({
  200: DiscoveryPage(what, item, title),
  ...familyErrorResponses(family, {
    400: 'Invalid parameter (DIS1015), or paging too deep: size * page must be less than 1000 (DIS1035)',
  }),
});

const detailResponses = (
  family: ApiFamily,
  what: string,
  document: TSchema,
  example?: unknown,
) => ({
  200: example === undefined ? document : { ...document, examples: [example] },
  ...familyErrorResponses(family, { 404: `No ${what} with this id (DIS1004)` }),
});

/** 400 with the code of a query the catalog cannot be asked; anything else is thrown again. */
const fail = (reply: FastifyReply, family: ApiFamily, error: unknown) => {
  if (error instanceof DiscoveryQueryError) {
    return sendFamilyError(reply, family, {
      status: 400,
      code: error.code,
      detail: error.message,
    });
  }
  throw error;
};

const notFound = (
  reply: FastifyReply,
  family: ApiFamily,
  what: string,
  id: string,
  locale: string | undefined,
) =>
  sendFamilyError(reply, family, {
    status: 404,
    code: 'DIS1004',
    detail: `Resource not found with provided criteria (locale=${locale ?? '*'}, ${what}=${id})`,
  });

const isNotFound = (error: unknown) => errorKindOf(error) === 'not_found';

/** The id of a details path (without `.json`) and the locale asked for. */
const detailRequest = (request: FastifyRequest) => ({
  id: stripJson((request.params as Static<typeof IdParams>).id),
  locale: (request.query as Static<typeof LocaleQuery>).locale || undefined,
});

/**
 * Discovery v2: event search with every query parameter, and, as developers used to the
 * established Discovery v2 API expect, event, venue and attraction details and venue and attraction
 * search, suggest and an event's images (discovery-v2-suggest-images.ts). Every route needs a valid `apikey` and answers with `Rate-Limit*` headers.
 */
export function discoveryV2Routes(
  backends: {
    catalog: DiscoveryCatalog;
    developerAccess: DeveloperAccess;
  },
  options: { pageCache?: PageCacheOptions; eventDocuments?: EventDocumentsOptions } = {},
) {
  const pages = createPageCache(options.pageCache);
  const documents = createEventDocuments(options.eventDocuments);
  const { catalog } = backends;
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // The page the error bodies link to, outside the key guard.
    registerErrorCodesPage(familyScope);
    // A child scope, so the key guard covers these routes and not the family's 404/405 answers.
    await familyScope.register(async (scope) => {
      requireApiKey(scope, family, backends.developerAccess, {
        from: [{ in: 'query', name: 'apikey' }],
      });
      // The documents go out as built; their schemas (discovery-v2-schemas.ts) document them.
      sendAsBuilt(scope);
      const context: DiscoveryV2Context = { family, catalog, pages, documents };
      eventRoutes(scope, context);
      venueRoutes(scope, context);
      attractionRoutes(scope, context);
      classificationRoutes(scope, context);
      suggestAndImagesRoutes(scope, family, catalog);
    });
  };
}

/** Event search: the page from the page cache when the catalog has not changed since it was made. */
function searchEvents({ family, catalog, pages, documents }: DiscoveryV2Context) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as EventSearchQuery;
    let search;
    try {
      search = toSearchEventsRequest(query);
    } catch (error) {
      return fail(reply, family, error);
    }
    // Without a locale, the documents catalog-indexer rendered when it indexed each event (in
    // each text's first locale, as `localized` picks without one); with one, the edge renders.
    const locale = query.locale || undefined;
    search.documents = locale === undefined;
    // Taken before asking: a change landing meanwhile leaves this page tagged with the older
    // version, so it is never served as current (page-cache.ts).
    const version = catalog.version();
    const key =
      version === undefined
        ? undefined
        : pageKey(request.routeOptions.url ?? request.url, query as Record<string, unknown>);
    // The page's JSON from the catalog's documents or the events it rendered (event-documents.ts).
    const render = async (): Promise<Buffer> => {
      const answer = await catalog.searchEventsEncoded(search);
      const size = query.size ?? DEFAULT_SIZE;
      const total = answer.page?.total ?? 0;
      return documents.page(
        answer,
        locale,
        halPage(request, '/events.json', query.page ?? 0, size, total),
      );
    };
    if (key === undefined) return reply.type(JSON_TYPE).send(await render());
    const body = await pages.page(key, version!, render);
    return reply.type(JSON_TYPE).send(body);
  };
}

/** GET /events (and /events.json), /events/:id. */
function eventRoutes(scope: FastifyInstance, context: DiscoveryV2Context): void {
  const { family, catalog } = context;
  const eventSearchSchema = {
    tags: ['discovery'],
    summary: 'Search events (Discovery v2)',
    description: `${DEPTH_RULE} \`radius\` and \`unit\` need \`latlong\`; \`endDateTime\` is not before \`startDateTime\` (400 DIS1015 otherwise).`,
    querystring: EventSearchQuery,
    response: {
      ...searchResponses(family, 'events', DiscoveryEvent, 'DiscoveryEventPage'),
      200: {
        ...DiscoveryPage('events', DiscoveryEvent, 'DiscoveryEventPage'),
        examples: [EVENT_PAGE_EXAMPLE],
      },
    },
  };
  const search = searchEvents(context);
  scope.get('/events', { schema: eventSearchSchema }, search);
  scope.get('/events.json', { schema: { ...eventSearchSchema, hide: true } }, search);

  scope.get(
    '/events/:id',
    {
      schema: {
        tags: ['discovery'],
        summary: 'Event details',
        params: IdParams,
        querystring: LocaleQuery,
        response: detailResponses(family, 'event', DiscoveryEvent, EVENT_EXAMPLE),
      },
    },
    async (request, reply) => {
      const { id, locale } = detailRequest(request);
      try {
        const answer = await catalog.getEvent(id);
        return eventDocument(answer.event!, resolvedOf(answer.venues, answer.attractions), locale);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'id', id, locale);
        throw error;
      }
    },
  );
}

/** The centre of a venue search, when `latlong` gives one; DIS1015 when it is out of range. */
function venueCentre(latlong: string | undefined) {
  if (!latlong) return undefined;
  const [latitude, longitude] = latlong.split(',').map((v) => Number(v.trim())) as [number, number];
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180)
    throw new DiscoveryQueryError('DIS1015', `latlong is out of range: ${latlong}`);
  return { latitude, longitude };
}

function searchVenues({ family, catalog }: DiscoveryV2Context) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Static<typeof VenueSearchQuery>;
    const size = query.size ?? DEFAULT_SIZE;
    const page = query.page ?? 0;
    let latlong;
    try {
      guardDepth(size, page);
      latlong = venueCentre(query.latlong);
    } catch (error) {
      return fail(reply, family, error);
    }
    const answer = await catalog.searchVenues(
      SearchVenuesRequest.fromPartial({
        keyword: query.keyword ?? '',
        ids: list(query.id),
        countryCodes: list(query.countryCode),
        stateCodes: list(query.stateCode),
        city: query.city ?? '',
        postalCode: query.postalCode ?? '',
        latlong,
        radius: query.radius ? Number(query.radius) : 0,
        unit:
          query.unit === 'km'
            ? DistanceUnit.DISTANCE_UNIT_KILOMETERS
            : DistanceUnit.DISTANCE_UNIT_MILES,
        marketIds: list(query.marketId).map(Number),
        includeTest: inclusions[query.includeTest ?? 'no'],
        sort:
          query.sort === 'name,desc'
            ? NameSort.NAME_SORT_NAME_DESC
            : NameSort.NAME_SORT_UNSPECIFIED,
        page: { offset: page * size, limit: size },
      }),
    );
    const locale = query.locale || undefined;
    return {
      _embedded: { venues: answer.venues.map((v) => venueDocument(v, locale)) },
      ...halPage(request, '/venues.json', page, size, answer.page?.total ?? 0),
    };
  };
}

/** GET /venues (and /venues.json), /venues/:id. */
function venueRoutes(scope: FastifyInstance, context: DiscoveryV2Context): void {
  const { family, catalog } = context;
  const venueSearchSchema = {
    tags: ['discovery'],
    summary: 'Search venues',
    description: DEPTH_RULE,
    querystring: VenueSearchQuery,
    response: searchResponses(family, 'venues', DiscoveryVenue, 'DiscoveryVenuePage'),
  };
  const search = searchVenues(context);
  scope.get('/venues', { schema: venueSearchSchema }, search);
  scope.get('/venues.json', { schema: { ...venueSearchSchema, hide: true } }, search);
  scope.get(
    '/venues/:id',
    {
      schema: {
        tags: ['discovery'],
        summary: 'Venue details',
        params: IdParams,
        querystring: LocaleQuery,
        response: detailResponses(family, 'venue', DiscoveryVenue),
      },
    },
    async (request, reply) => {
      const { id, locale } = detailRequest(request);
      try {
        return venueDocument(await catalog.getVenue(id), locale);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'id', id, locale);
        throw error;
      }
    },
  );
}

function searchAttractions({ family, catalog }: DiscoveryV2Context) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Static<typeof AttractionSearchQuery>;
    const size = query.size ?? DEFAULT_SIZE;
    const page = query.page ?? 0;
    try {
      guardDepth(size, page);
    } catch (error) {
      return fail(reply, family, error);
    }
    const answer = await catalog.searchAttractions(
      SearchAttractionsRequest.fromPartial({
        keyword: query.keyword ?? '',
        ids: list(query.id),
        classificationNames: list(query.classificationName),
        classificationIds: list(query.classificationId),
        includeTest: inclusions[query.includeTest ?? 'no'],
        sort:
          query.sort === 'name,desc'
            ? NameSort.NAME_SORT_NAME_DESC
            : NameSort.NAME_SORT_UNSPECIFIED,
        page: { offset: page * size, limit: size },
      }),
    );
    const locale = query.locale || undefined;
    return {
      _embedded: { attractions: answer.attractions.map((a) => attractionDocument(a, locale)) },
      ...halPage(request, '/attractions.json', page, size, answer.page?.total ?? 0),
    };
  };
}

/** GET /attractions (and /attractions.json), /attractions/:id. */
function attractionRoutes(scope: FastifyInstance, context: DiscoveryV2Context): void {
  const { family, catalog } = context;
  const attractionSearchSchema = {
    tags: ['discovery'],
    summary: 'Search attractions',
    description: DEPTH_RULE,
    querystring: AttractionSearchQuery,
    response: searchResponses(
      family,
      'attractions',
      DiscoveryAttraction,
      'DiscoveryAttractionPage',
    ),
  };
  const search = searchAttractions(context);
  scope.get('/attractions', { schema: attractionSearchSchema }, search);
  scope.get('/attractions.json', { schema: { ...attractionSearchSchema, hide: true } }, search);
  scope.get(
    '/attractions/:id',
    {
      schema: {
        tags: ['discovery'],
        summary: 'Attraction details',
        params: IdParams,
        querystring: LocaleQuery,
        response: detailResponses(family, 'attraction', DiscoveryAttraction),
      },
    },
    async (request, reply) => {
      const { id, locale } = detailRequest(request);
      try {
        return attractionDocument(await catalog.getAttraction(id), locale);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, family, 'id', id, locale);
        throw error;
      }
    },
  );
}

function searchClassifications({ family, catalog }: DiscoveryV2Context) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Static<typeof ClassificationSearchQuery>;
    const size = query.size ?? DEFAULT_SIZE;
    const page = query.page ?? 0;
    try {
      guardDepth(size, page);
    } catch (error) {
      return fail(reply, family, error);
    }
    const answer = await catalog.searchClassifications(
      SearchClassificationsRequest.fromPartial({
        keyword: query.keyword ?? '',
        page: { offset: page * size, limit: size },
      }),
    );
    const locale = query.locale || undefined;
    return {
      _embedded: {
        classifications: answer.segments.map((s) => classificationDocument(s, locale)),
      },
      ...halPage(request, '/classifications.json', page, size, answer.page?.total ?? 0),
    };
  };
}

/**
 * A classification's details: any level (`expected` absent), or only the level the path names
 * (404 for an id of another level).
 */
function classificationDetails(
  { family, catalog }: DiscoveryV2Context,
  expected: 'segment' | 'genre' | 'subgenre' | undefined,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { id, locale } = detailRequest(request);
    try {
      const found = await catalog.getClassification(id);
      const level = found.level as 'segment' | 'genre' | 'subgenre';
      if (expected && level !== expected) return notFound(reply, family, 'id', id, locale);
      return expected
        ? levelDocument(found.segment!, level, id, locale)
        : classificationDocument(found.segment!, locale);
    } catch (error) {
      if (isNotFound(error)) return notFound(reply, family, 'id', id, locale);
      throw error;
    }
  };
}

/** GET /classifications (and .json), /classifications/:id and the details of each level. */
function classificationRoutes(scope: FastifyInstance, context: DiscoveryV2Context): void {
  const { family } = context;
  const classificationSearchSchema = {
    tags: ['discovery'],
    summary: 'Search classifications (segments, genres, sub-genres)',
    description: DEPTH_RULE,
    querystring: ClassificationSearchQuery,
    response: searchResponses(
      family,
      'classifications',
      DiscoveryClassification,
      'DiscoveryClassificationPage',
    ),
  };
  const search = searchClassifications(context);
  scope.get('/classifications', { schema: classificationSearchSchema }, search);
  scope.get(
    '/classifications.json',
    { schema: { ...classificationSearchSchema, hide: true } },
    search,
  );
  const detailSchema = (summary: string, document: TSchema) => ({
    schema: {
      tags: ['discovery'],
      summary,
      params: IdParams,
      querystring: LocaleQuery,
      response: detailResponses(family, 'classification', document),
    },
  });
  scope.get(
    '/classifications/:id',
    detailSchema('Classification details', DiscoveryClassification),
    classificationDetails(context, undefined),
  );
  scope.get(
    '/classifications/segments/:id',
    detailSchema('Segment details', DiscoverySegment),
    classificationDetails(context, 'segment'),
  );
  scope.get(
    '/classifications/genres/:id',
    detailSchema('Genre details', DiscoveryGenre),
    classificationDetails(context, 'genre'),
  );
  scope.get(
    '/classifications/subgenres/:id',
    detailSchema('Sub-genre details', DiscoverySubGenre),
    classificationDetails(context, 'subgenre'),
  );
}
