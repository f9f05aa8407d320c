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
const Location = Type.Object({ address: Address });

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
