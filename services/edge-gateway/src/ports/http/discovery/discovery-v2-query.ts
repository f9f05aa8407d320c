import { Type, type Static } from '@sinclair/typebox';
import { EventSort, Inclusion, SearchEventsRequest } from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { dependent } from '../parameter-dependencies.js';

/** Discovery v2's paging limits, with its deep-paging guard `size * page < 1000`. */
export const MAX_SIZE = 500;
export const DEFAULT_SIZE = 20;
export const MAX_DEPTH = 1000;

const idList = Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$', maxLength: 2000 });
const dateTime = Type.String({
  // A real instant (format), written as Discovery v2 does: UTC, seconds, at most milliseconds.
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:[0-5]\\d(\\.\\d{1,3})?Z$',
  description: 'UTC date-time ending in Z, e.g. 2030-05-01T00:00:00Z',
});

/** Latitude and longitude in degrees, as text: -90 to 90, -180 to 180. */
export const LATITUDE = '-?(?:90(?:\\.0+)?|[1-8]?\\d(?:\\.\\d+)?)';
export const LONGITUDE = '-?(?:180(?:\\.0+)?|(?:1[0-7]\\d|[1-9]?\\d)(?:\\.\\d+)?)';
/** `latlong`: `latitude,longitude`, blanks around either allowed. */
export const LATLONG_PATTERN = `^\\s*${LATITUDE}\\s*,\\s*${LONGITUDE}\\s*$`;
const inclusion = Type.Union([Type.Literal('yes'), Type.Literal('no'), Type.Literal('only')]);
const codeList = Type.String({ pattern: '^[A-Za-z0-9]{1,3}(,[A-Za-z0-9]{1,3})*$' });

/**
 * `size` and `page` of every Discovery v2 search, with the deep-paging guard that crosses them
 * (`size * page < 1000`, refused with 400 DIS1035).
 */
export const PAGING = {
  size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SIZE,
      description: `Page size, default ${DEFAULT_SIZE}. \`size * page\` must be less than ${MAX_DEPTH} (400 DIS1035 otherwise).`,
    }),
  ),
  // With size 1, page 999 at most; the product is the handler's to check.
  page: Type.Optional(
    dependent(
      Type.Integer({ minimum: 0, maximum: MAX_DEPTH - 1 }),
      `Page number from 0. \`size * page\` must be less than ${MAX_DEPTH}, \`size\` at its default ${DEFAULT_SIZE} when absent (400 DIS1035 otherwise).`,
      [
        {
          productWith: 'size',
          lessThan: MAX_DEPTH,
          defaults: { size: DEFAULT_SIZE },
          status: 400,
        },
      ],
    ),
  ),
};

/** `radius`: a distance around `latlong`, which it needs. */
export const RADIUS = dependent(
  Type.String({ pattern: '^\\d{1,5}(\\.\\d+)?$' }),
  'Distance around `latlong`, in `unit`. Needs `latlong` (400 DIS1015 otherwise).',
  [{ requires: ['latlong'], status: 400 }],
);
/** `unit` of `radius`, which needs `latlong` too. */
export const UNIT = dependent(
  Type.Union([Type.Literal('miles'), Type.Literal('km')]),
  'Unit of `radius`, default miles. Needs `latlong` (400 DIS1015 otherwise).',
  [{ requires: ['latlong'], status: 400 }],
);

/**
 * Every query parameter of Discovery v2 event search; unknown parameters are refused (a typo such
 * as `keywords` would otherwise silently return everything).
 */
export const EventSearchQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String()),
    keyword: Type.Optional(Type.String({ maxLength: 200 })),
    attractionId: Type.Optional(idList),
    venueId: Type.Optional(idList),
    postalCode: Type.Optional(Type.String({ maxLength: 20 })),
    latlong: Type.Optional(
      Type.String({
        pattern: LATLONG_PATTERN,
        description:
          'latitude,longitude in degrees: the centre of the search around it (`radius`, `unit`)',
      }),
    ),
    radius: Type.Optional(RADIUS),
    unit: Type.Optional(UNIT),
    source: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$' })),
    locale: Type.Optional(Type.String({ pattern: '^(\\*|[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)$' })),
    marketId: Type.Optional(Type.String({ pattern: '^\\d{1,6}(,\\d{1,6})*$' })),
    startDateTime: Type.Optional(dateTime),
    endDateTime: Type.Optional(
      dependent(
        dateTime,
        'UTC date-time ending in Z, e.g. 2030-05-01T00:00:00Z. Not before `startDateTime` (400 DIS1015 otherwise).',
        [{ notBefore: 'startDateTime', status: 400 }],
      ),
    ),
    onsaleStartDateTime: Type.Optional(dateTime),
    onsaleEndDateTime: Type.Optional(dateTime),
    includeTBA: Type.Optional(inclusion),
    includeTBD: Type.Optional(inclusion),
    includeTest: Type.Optional(inclusion),
    ...PAGING,
    sort: Type.Optional(
      Type.Union([
        Type.Literal('eventDate,date.asc'),
        Type.Literal('eventDate,date.desc'),
        Type.Literal('name,date.asc'),
        Type.Literal('name,date.desc'),
        Type.Literal(''),
      ]),
    ),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    countryCode: Type.Optional(codeList),
    stateCode: Type.Optional(codeList),
    classificationName: Type.Optional(Type.String({ maxLength: 500 })),
    classificationId: Type.Optional(idList),
    dmaId: Type.Optional(Type.String({ pattern: '^\\d{1,6}$' })),
  },
  { additionalProperties: false },
);

export type EventSearchQuery = Static<typeof EventSearchQuery>;

/** A request the schema accepts but the API cannot answer (bad coordinates, paging too deep). */
export class DiscoveryQueryError extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
    : [];

const inclusions: Record<string, Inclusion> = {
  yes: Inclusion.INCLUSION_YES,
  no: Inclusion.INCLUSION_NO,
  only: Inclusion.INCLUSION_ONLY,
};

const sorts: Record<string, EventSort> = {
  'eventDate,date.asc': EventSort.EVENT_SORT_DATE_ASC,
  'eventDate,date.desc': EventSort.EVENT_SORT_DATE_DESC,
  'name,date.asc': EventSort.EVENT_SORT_NAME_ASC,
  'name,date.desc': EventSort.EVENT_SORT_NAME_DESC,
};

function date(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 19) !== value.slice(0, 19)) {
    throw new DiscoveryQueryError('DIS1015', `${name} is not a valid UTC date-time: ${value}`);
  }
  return parsed;
}

/** The validated query as a catalog search; throws DiscoveryQueryError for what the schema cannot say. */
export function toSearchEventsRequest(query: EventSearchQuery): SearchEventsRequest {
  const size = query.size ?? DEFAULT_SIZE;
  const page = query.page ?? 0;
  if (size * page >= MAX_DEPTH) {
    throw new DiscoveryQueryError(
      'DIS1035',
      `API Limits Exceeded: Max paging depth exceeded. (page * size) must be less than ${MAX_DEPTH.toLocaleString('en-US')}`,
    );
  }
  let latlong: { latitude: number; longitude: number } | undefined;
  if (query.latlong) {
    const [latitude, longitude] = query.latlong.split(',').map((v) => Number(v.trim())) as [
      number,
      number,
    ];
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
      throw new DiscoveryQueryError('DIS1015', `latlong is out of range: ${query.latlong}`);
    }
    latlong = { latitude, longitude };
  }
  if ((query.radius || query.unit) && !latlong) {
    throw new DiscoveryQueryError('DIS1015', 'radius and unit need latlong');
  }
  const start = date(query.startDateTime, 'startDateTime');
  const end = date(query.endDateTime, 'endDateTime');
  if (start && end && end < start) {
    throw new DiscoveryQueryError('DIS1015', 'endDateTime is before startDateTime');
  }
  return SearchEventsRequest.fromPartial({
    keyword: query.keyword ?? '',
    attractionIds: list(query.attractionId),
    venueIds: list(query.venueId),
    postalCode: query.postalCode ?? '',
    latlong,
    radius: query.radius ? Number(query.radius) : 0,
    unit:
      query.unit === 'km'
        ? DistanceUnit.DISTANCE_UNIT_KILOMETERS
        : DistanceUnit.DISTANCE_UNIT_MILES,
    sources: list(query.source),
    locale: query.locale ?? '',
    marketIds: list(query.marketId).map(Number),
    startDateTime: start,
    endDateTime: end,
    onsaleStartDateTime: date(query.onsaleStartDateTime, 'onsaleStartDateTime'),
    onsaleEndDateTime: date(query.onsaleEndDateTime, 'onsaleEndDateTime'),
    includeTba: inclusions[query.includeTBA ?? 'no'],
    includeTbd: inclusions[query.includeTBD ?? 'no'],
    includeTest: inclusions[query.includeTest ?? 'no'],
    sort: sorts[query.sort ?? ''] ?? EventSort.EVENT_SORT_UNSPECIFIED,
    city: query.city ?? '',
    countryCodes: list(query.countryCode),
    stateCodes: list(query.stateCode),
    classificationNames: list(query.classificationName),
    classificationIds: list(query.classificationId),
    dmaId: query.dmaId ?? '',
    page: { offset: page * size, limit: size },
  });
}
