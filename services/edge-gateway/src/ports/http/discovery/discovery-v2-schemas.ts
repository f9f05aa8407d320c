import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

/**
 * The answers of Discovery v2 (the documents `@marquee/discovery-documents` builds: hal.ts), as
 * the OpenAPI document shows them. A property the platform has no value for is left out, not
 * `null`, so few properties are required; a document may carry properties not listed here, as the
 * established API's may. The routes serialize these documents with `JSON.stringify` as built
 * (`sendAsBuilt`): these schemas describe the answers, they never reshape them.
 */

const Link = Type.Object({ href: Type.String() }, { title: 'DiscoveryLink' });
const PageLink = Type.Object(
  {
    href: Type.String({ description: 'A templated href leaves `{&sort}` to the client' }),
    templated: Type.Boolean(),
  },
  { title: 'DiscoveryPageLink' },
);
const SelfLinks = Type.Object({ self: Link });

const Image = Type.Object(
  {
    ratio: Type.Optional(Type.String({ description: 'e.g. `16_9`, `3_2`, `4_3`' })),
    url: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    fallback: Type.Boolean(),
  },
  { title: 'DiscoveryImage' },
);

const Level = Type.Object({ id: Type.Optional(Type.String()), name: Type.String() });
const Classification = Type.Object(
  {
    primary: Type.Boolean(),
    segment: Type.Optional(Level),
    genre: Type.Optional(Level),
    subGenre: Type.Optional(Level),
  },
  { title: 'DiscoveryEventClassification' },
);

const Common = {
  name: Type.String({ description: 'In the requested locale; empty when it has none' }),
  id: Type.String(),
  test: Type.Boolean({ description: 'A test resource (shown with `includeTest`)' }),
  locale: Type.String({ description: 'The locale of the texts' }),
};
const UpcomingEvents = Type.Object({ _total: Type.Integer({ minimum: 0 }) });

export const DiscoveryVenue = Type.Object(
  {
    ...Common,
    type: Type.Literal('venue'),
    postalCode: Type.Optional(Type.String()),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone' })),
    markets: Type.Array(Type.Object({ id: Type.String() })),
    country: Type.Optional(
      Type.Object({ name: Type.String(), countryCode: Type.Optional(Type.String()) }),
    ),
    state: Type.Optional(
      Type.Object({ name: Type.String(), stateCode: Type.Optional(Type.String()) }),
    ),
    city: Type.Optional(Type.Object({ name: Type.String() })),
    location: Type.Optional(
      Type.Object({
        latitude: Type.String({ description: 'Decimal degrees, as text' }),
        longitude: Type.String({ description: 'Decimal degrees, as text' }),
      }),
    ),
    address: Type.Optional(
      Type.Object({ line1: Type.String(), line2: Type.Optional(Type.String()) }),
    ),
    upcomingEvents: UpcomingEvents,
    _links: SelfLinks,
  },
  { title: 'DiscoveryVenue', description: 'A venue' },
);

export const DiscoveryAttraction = Type.Object(
  {
    ...Common,
    type: Type.Literal('attraction'),
    url: Type.Optional(Type.String()),
    image: Type.Optional(Type.Object({ url: Type.String() })),
    images: Type.Array(Image),
    classifications: Type.Array(Classification),
    upcomingEvents: UpcomingEvents,
    _links: SelfLinks,
  },
  { title: 'DiscoveryAttraction', description: 'An attraction (a performer, a team, a show)' },
);

const DateTime = Type.String({ format: 'date-time' });
export const DiscoveryEvent = Type.Object(
  {
    ...Common,
    type: Type.Literal('event'),
    url: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    info: Type.Optional(Type.String()),
    additionalInfo: Type.Optional(Type.String()),
    pleaseNote: Type.Optional(Type.String()),
    images: Type.Array(Image),
    sales: Type.Optional(
      Type.Object({
        public: Type.Object({
          startDateTime: Type.Optional(DateTime),
          startTBD: Type.Optional(Type.Boolean()),
          endDateTime: Type.Optional(DateTime),
        }),
      }),
    ),
    dates: Type.Object({
      start: Type.Optional(
        Type.Object({
          localDate: Type.Optional(Type.String({ description: 'YYYY-MM-DD, local to the venue' })),
          localTime: Type.Optional(Type.String({ description: 'HH:MM:SS, local to the venue' })),
          dateTime: Type.Optional(DateTime),
          dateTBD: Type.Optional(Type.Boolean()),
          dateTBA: Type.Optional(Type.Boolean()),
          timeTBA: Type.Optional(Type.Boolean()),
          noSpecificTime: Type.Optional(Type.Boolean()),
        }),
      ),
      access: Type.Optional(
        Type.Object({
          startDateTime: Type.Optional(DateTime),
          startApproximate: Type.Optional(Type.Boolean()),
          endDateTime: Type.Optional(DateTime),
          endApproximate: Type.Optional(Type.Boolean()),
        }),
      ),
      end: Type.Optional(
        Type.Object({
          localTime: Type.Optional(Type.String()),
          dateTime: Type.Optional(DateTime),
          approximate: Type.Optional(Type.Boolean()),
        }),
      ),
      timezone: Type.Optional(Type.String({ description: 'IANA time zone' })),
      status: Type.Optional(
        Type.Object({
          code: Type.Union(
            ['onsale', 'offsale', 'cancelled', 'postponed', 'rescheduled'].map((code) =>
              Type.Literal(code),
            ),
          ),
        }),
      ),
    }),
    classifications: Type.Array(Classification),
    promoter: Type.Optional(Type.Object({ id: Type.String(), name: Type.Optional(Type.String()) })),
    priceRanges: Type.Array(
      Type.Object({
        type: Type.Union([Type.Literal('standard'), Type.Literal('standard including fees')]),
        currency: Type.Optional(Type.String({ description: 'ISO 4217' })),
        min: Type.Optional(Type.Number({ description: 'Major units of the currency' })),
        max: Type.Optional(Type.Number({ description: 'Major units of the currency' })),
      }),
    ),
    seatmap: Type.Optional(Type.Object({ staticUrl: Type.String() })),
    _links: Type.Object({
      self: Link,
      attractions: Type.Array(Link),
      venues: Type.Array(Link),
    }),
    _embedded: Type.Object({
      venues: Type.Array(DiscoveryVenue),
      attractions: Type.Array(DiscoveryAttraction),
    }),
  },
  { title: 'DiscoveryEvent', description: 'An event, with its venue and attractions embedded' },
);

export const DiscoverySubGenre = Type.Object(
  { id: Type.String(), name: Type.String(), _links: SelfLinks },
  { title: 'DiscoverySubGenre' },
);
export const DiscoveryGenre = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    _links: SelfLinks,
    _embedded: Type.Object({ subgenres: Type.Array(DiscoverySubGenre) }),
  },
  { title: 'DiscoveryGenre' },
);
export const DiscoverySegment = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    _links: SelfLinks,
    _embedded: Type.Object({ genres: Type.Array(DiscoveryGenre) }),
  },
  { title: 'DiscoverySegment' },
);
export const DiscoveryClassification = Type.Object(
  { _links: SelfLinks, segment: DiscoverySegment, upcomingEvents: UpcomingEvents },
  { title: 'DiscoveryClassification', description: 'A segment, its genres and sub-genres' },
);

/** A page of `what`: the documents under `_embedded.<what>` (absent when none), the paging. */
export const DiscoveryPage = (what: string, item: TSchema, title: string): TObject =>
  Type.Object(
    {
      _embedded: Type.Optional(Type.Object({ [what]: Type.Array(item) })),
      _links: Type.Object({ self: PageLink, next: Type.Optional(PageLink) }),
      page: Type.Object({
        size: Type.Integer(),
        totalElements: Type.Integer({ minimum: 0 }),
        totalPages: Type.Integer({ minimum: 0 }),
        number: Type.Integer({ minimum: 0 }),
      }),
    },
    { title },
  );

/**
 * An event as the event details answer it (`GET /discovery/v2/events/{id}`: its venue and
 * attractions embedded), and as each event of a search page, for the OpenAPI document's examples.
 */
export const EVENT_EXAMPLE = {
  name: 'Spring Concert',
  type: 'event',
  id: 'EVT000000000001',
  test: false,
  url: 'https://tickets.example.com/e/EVT000000000001',
  locale: 'en-us',
  images: [
    {
      ratio: '16_9',
      url: 'https://img.example.com/1.jpg',
      width: 1024,
      height: 576,
      fallback: false,
    },
  ],
  sales: { public: { startDateTime: '2029-01-01T15:00:00.000Z', startTBD: false } },
  dates: {
    start: {
      localDate: '2030-05-01',
      localTime: '19:30:00',
      dateTime: '2030-05-01T23:30:00.000Z',
    },
    timezone: 'America/New_York',
    status: { code: 'onsale' },
  },
  classifications: [
    {
      primary: true,
      segment: { id: 'KZ1', name: 'Music' },
      genre: { id: 'KG1', name: 'Rock' },
    },
  ],
  priceRanges: [{ type: 'standard', currency: 'USD', min: 25.5, max: 99 }],
  _links: {
    self: { href: '/discovery/v2/events/EVT000000000001' },
    attractions: [{ href: '/discovery/v2/attractions/KATTR1' }],
    venues: [{ href: '/discovery/v2/venues/ZVENUE1' }],
  },
  _embedded: {
    venues: [
      {
        name: 'Madison Square Garden',
        type: 'venue',
        id: 'ZVENUE1',
        test: false,
        locale: 'en-us',
        markets: [{ id: '35' }],
        city: { name: 'New York' },
        upcomingEvents: { _total: 3 },
        _links: { self: { href: '/discovery/v2/venues/ZVENUE1' } },
      },
    ],
    attractions: [
      {
        name: 'The Band',
        type: 'attraction',
        id: 'KATTR1',
        test: false,
        locale: 'en-us',
        images: [],
        classifications: [],
        upcomingEvents: { _total: 1 },
        _links: { self: { href: '/discovery/v2/attractions/KATTR1' } },
      },
    ],
  },
};

/** An event search's page, as the OpenAPI document shows it (`GET /discovery/v2/events`). */
export const EVENT_PAGE_EXAMPLE = {
  _embedded: {
    events: [EVENT_EXAMPLE],
  },
  _links: {
    self: { href: '/discovery/v2/events.json?keyword=rock&page=0&size=20{&sort}', templated: true },
  },
  page: { size: 20, totalElements: 1, totalPages: 1, number: 0 },
};

/**
 * Sends every answer of the scope as built (`JSON.stringify`), so that the schemas above document
 * the answers without fastify's schema-driven serializer dropping or coercing a property.
 */
export function sendAsBuilt(scope: FastifyInstance): void {
  scope.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
}
