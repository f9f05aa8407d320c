import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The answers of international discovery (`/mfxapi/v2`), the documents international-shapes.ts
 * builds, as the OpenAPI document shows them. The routes send them as built (`sendAsBuilt`,
 * discovery-v2-schemas.ts): these schemas describe the answers, they never reshape them.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Address = Type.Object({
  address: Type.String(),
  postal_code: Type.String(),
  city: Type.String(),
  city_id: Nullable(
    Type.Integer({ description: "The catalog's city id (what `city_ids` filters)" }),
  ),
  country: Type.String({ description: 'ISO 3166 alpha-2' }),
  long: Nullable(Type.Number()),
  lat: Nullable(Type.Number()),
});
const Location = Type.Object({ address: Address }, { title: 'IntlLocation' });

export const IntlVenue = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    code: Type.String(),
    url: Type.String(),
    location: Location,
  },
  { title: 'IntlVenue', description: 'A venue' },
);

export const IntlAttraction = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    url: Type.String(),
    event_count: Type.Integer({ minimum: 0, description: 'Upcoming events' }),
  },
  { title: 'IntlAttraction', description: 'An attraction' },
);

const Bounds = Type.Object(
  { min: Nullable(Type.Number()), max: Nullable(Type.Number()) },
  { title: 'IntlPriceBounds', description: 'Major units of `currency`; null when unknown' },
);
const PriceRanges = Type.Object(
  { excluding_ticket_fees: Bounds, including_ticket_fees: Bounds },
  { title: 'IntlPriceRanges' },
);

export const IntlEvent = Type.Object(
  {
    id: Type.String(),
    domain_id: Nullable(
      Type.Integer({ description: "ISO 3166 numeric code of the venue's country" }),
    ),
    name: Type.String(),
    url: Type.String(),
    eventdate: Type.Optional(
      Type.Object({
        format: Type.Union([Type.Literal('datetime'), Type.Literal('date')]),
        value: Type.String({ description: 'A UTC date-time, or a local date with `date`' }),
      }),
    ),
    timezone: Type.String(),
    localeventdate: Type.Optional(Type.String({ description: 'Local date, and time when known' })),
    onsale: Type.Optional(Type.String({ format: 'date-time' })),
    offsale: Type.Optional(Type.String({ format: 'date-time' })),
    dooropening: Type.Optional(Type.String({ format: 'date-time' })),
    properties: Type.Object({
      cancelled: Type.Boolean(),
      rescheduled: Type.Boolean(),
      seats_avail: Type.Boolean(),
      sold_out: Type.Boolean(),
      package: Type.Boolean(),
    }),
    venue: Type.Optional(
      Type.Object({ id: Type.String(), name: Type.String(), location: Location }),
    ),
    categories: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        subcategories: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
      }),
    ),
    attractions: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), url: Type.String() }),
    ),
    price_ranges: PriceRanges,
    currency: Type.String({ description: 'ISO 4217; empty when unknown' }),
    images: Type.Record(
      Type.String(),
      Type.Object({ url: Type.String(), width: Type.Integer(), height: Type.Integer() }),
      { description: 'By ratio (`16_9`...), or `image_<n>` for an image without one' },
    ),
  },
  { title: 'IntlEvent', description: 'An event' },
);

export const IntlAreas = Type.Object(
  {
    event: Type.Object({
      id: Type.String(),
      currency: Type.String(),
      areas: Type.Array(
        Type.Object({
          code: Type.String(),
          name: Type.String(),
          price_level_ids: Type.Array(Type.Integer()),
          price_ranges: PriceRanges,
        }),
      ),
    }),
  },
  { title: 'IntlEventAreas', description: 'The areas (price levels) of an event' },
);

export const IntlSeatmap = Type.Object(
  {
    event: Type.Object({
      id: Type.String(),
      seatmap: Type.Object({
        static: Type.Object({ images: Type.Array(Type.Object({ url: Type.String() })) }),
      }),
    }),
  },
  { title: 'IntlEventSeatmap', description: 'The seat map of an event' },
);

const Pagination = Type.Object(
  {
    start: Type.Integer({ minimum: 0 }),
    rows: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0 }),
  },
  { title: 'IntlPagination' },
);

/** A page of `what`: the documents under `<what>`, and the paging. */
export const IntlPage = (what: string, item: TSchema, title: string) =>
  Type.Object({ [what]: Type.Array(item), pagination: Pagination }, { title });

/** Attractions like one (`/attractions/{id}/similar`): no paging. */
export const IntlSimilarAttractions = Type.Object(
  { attractions: Type.Array(IntlAttraction) },
  { title: 'IntlSimilarAttractions' },
);

/**
 * An event as `intlEvent` (international-shapes.ts) renders it, for the OpenAPI document's
 * examples (`GET /events/{id}`, and the one event of the search example).
 */
export const INTL_EVENT_EXAMPLE = {
  id: 'EVT000000000001',
  domain_id: 578,
  name: 'Spring Concert',
  url: 'https://tickets.example.com/e/EVT000000000001',
  eventdate: { format: 'datetime', value: '2030-05-01T17:30:00Z' },
  timezone: 'Europe/Oslo',
  localeventdate: '2030-05-01T19:30:00',
  onsale: '2029-01-01T09:00:00Z',
  offsale: '2030-05-01T17:00:00Z',
  dooropening: '2030-05-01T16:30:00Z',
  properties: {
    cancelled: false,
    rescheduled: false,
    seats_avail: true,
    sold_out: false,
    package: false,
  },
  venue: {
    id: 'ZVENUE1',
    name: 'Oslo Spektrum',
    location: {
      address: {
        address: 'Sonja Henies plass 2',
        postal_code: '0185',
        city: 'Oslo',
        city_id: 3143244,
        country: 'NO',
        long: 10.7547,
        lat: 59.9128,
      },
    },
  },
  categories: [{ id: 'KZ1', name: 'Music', subcategories: [{ id: 'KG1', name: 'Rock' }] }],
  attractions: [{ id: 'KATTR1', name: 'The Band', url: 'https://tickets.example.com/a/KATTR1' }],
  price_ranges: {
    excluding_ticket_fees: { min: 450, max: 950 },
    including_ticket_fees: { min: 495, max: 1045 },
  },
  currency: 'NOK',
  images: {
    '16_9': { url: 'https://img.example.com/1.jpg', width: 1024, height: 576 },
  },
};

/** An event search's answer (`GET /events?domain=norway&rows=10`), for the document's example. */
export const INTL_EVENT_PAGE_EXAMPLE = {
  events: [INTL_EVENT_EXAMPLE],
  pagination: { start: 0, rows: 10, total: 1 },
};
