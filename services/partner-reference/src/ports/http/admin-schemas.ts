import { Type, type Static } from '@sinclair/typebox';
import {
  DateTime,
  DateTimeProperties,
  EventVisibility,
  FaceValuePrices,
  LogoRef,
  PartnerId,
  PriceComponent,
  PriceLevel,
  PriceType,
  TextInfo,
} from '@marquee/partner-api';

/**
 * Bodies of the back office (`/admin/v1`), closed: an unknown field is a mistake worth reporting.
 * Ids are generated unless given (`venue_id`, `manifest_id`, `event_id`, …), which seeds and tests
 * use to get stable ids.
 */
const closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const AdminSeat = closed({
  id: PartnerId,
  row: Type.String({ maxLength: 20 }),
  number: Type.String({ maxLength: 20 }),
});

export const AdminArea = closed({
  id: PartnerId,
  name: Name,
  level_id: Type.Optional(PartnerId),
  section_id: Type.Optional(PartnerId),
  price_level_id: PartnerId,
  general_admission: Type.Boolean(),
  /** General admission: its places. Reserved seating: optional, must equal the seats. */
  capacity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  /** Reserved seating: the seats, in order… */
  seats: Type.Optional(Type.Array(AdminSeat, { maxItems: 100_000 })),
  /** …or rows of numbered seats, generated as `<area>-<row>-<n>` (n from 1). */
  rows: Type.Optional(
    Type.Array(
      closed({
        row: Type.String({ pattern: '^[A-Za-z0-9]{1,8}$' }),
        seats: Type.Integer({ minimum: 1, maximum: 1000 }),
      }),
      { maxItems: 1000 },
    ),
  ),
});
export type AdminArea = Static<typeof AdminArea>;

export const AdminManifest = closed({
  manifest_id: Type.Optional(PartnerId),
  name: Name,
  levels: Type.Array(closed({ id: PartnerId, name: Name, position: Type.Integer() }), {
    maxItems: 100,
  }),
  sections: Type.Array(closed({ id: PartnerId, name: Name }), { maxItems: 1000 }),
  price_levels: Type.Array(closed({ id: PartnerId, name: Name }), { maxItems: 100 }),
  areas: Type.Array(AdminArea, { minItems: 1, maxItems: 1000 }),
});
export type AdminManifest = Static<typeof AdminManifest>;

export const CreateVenueBody = closed({
  venue_id: Type.Optional(PartnerId),
  name: Name,
  city: Name,
  country: Type.String({ pattern: '^[A-Z]{2}$' }),
  timezone: Type.String({ minLength: 1, maxLength: 64 }),
  manifests: Type.Array(AdminManifest, { minItems: 1, maxItems: 20 }),
});
export type CreateVenueBody = Static<typeof CreateVenueBody>;

const eventFields = {
  text_infos: Type.Array(TextInfo, { minItems: 1, maxItems: 20 }),
  genre_info: Type.Optional(
    Type.Array(closed({ genre_id: Type.String(), genre_name: Type.String() }), { maxItems: 10 }),
  ),
  organization_info: Type.Optional(
    closed({ promoter_id: Type.String(), promoter_name: Type.String() }),
  ),
  date_time: DateTime,
  date_time_properties: Type.Optional(DateTimeProperties),
  doors_date_time: Type.Optional(DateTime),
  doors_date_time_properties: Type.Optional(DateTimeProperties),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  /** Default: the venue's. */
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** 0 = no limit per booking. */
  maximum_tickets_quantity: Type.Integer({ minimum: 0, maximum: 1000 }),
  /** Tickets use secure entry (rotating barcodes); default false. */
  secure_entry: Type.Optional(Type.Boolean()),
  price_levels: Type.Array(PriceLevel, { maxItems: 100 }),
  price_types: Type.Array(PriceType, { minItems: 1, maxItems: 100 }),
  face_value_prices: Type.Array(FaceValuePrices, { minItems: 1, maxItems: 20 }),
  visibility: Type.Optional(EventVisibility),
  status: Type.Optional(Type.Union([Type.Literal('ON_SALE'), Type.Literal('CANCELED')])),
  ticket_texts: Type.Optional(Type.Array(Type.String({ maxLength: 42 }), { maxItems: 14 })),
  logos: Type.Optional(Type.Array(LogoRef, { maxItems: 2 })),
  price_components: Type.Optional(Type.Array(PriceComponent, { maxItems: 20 })),
  sales_channels: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })),
};

export const CreateEventBody = closed({
  event_id: Type.Optional(PartnerId),
  venue_id: PartnerId,
  manifest_id: PartnerId,
  ...eventFields,
});
export type CreateEventBody = Static<typeof CreateEventBody>;

export const PatchEventBody = Type.Partial(closed(eventFields), { additionalProperties: false });
export type PatchEventBody = Static<typeof PatchEventBody>;

export const CreateLogoBody = closed({
  logo_id: Type.Optional(PartnerId),
  format: Type.Union(
    ['pcx', 'png', 'bmp', 'gif', 'tiff', 'jpeg'].map((format) => Type.Literal(format)),
  ),
  /** Base64, at most 1 MB decoded. */
  data: Type.String({ minLength: 1, maxLength: 1_400_000, pattern: '^[A-Za-z0-9+/]+={0,2}$' }),
});
export type CreateLogoBody = Static<typeof CreateLogoBody>;

export const CreateTaxPlanBody = closed({
  tax_plan_id: Type.Optional(PartnerId),
  name: Name,
  rates: Type.Array(
    closed({ name: Name, rate: Type.String({ pattern: '^[0-9]{1,3}(\\.[0-9]{1,4})?$' }) }),
    { minItems: 1, maxItems: 10 },
  ),
});
export type CreateTaxPlanBody = Static<typeof CreateTaxPlanBody>;

export const HealthDrillBody = closed({
  id: Type.Union([Type.Literal(0), Type.Literal(901), Type.Literal(902)]),
  message: Type.Optional(Type.String({ maxLength: 500 })),
  venues_to_sync: Type.Optional(Type.Array(PartnerId, { maxItems: 1000 })),
});
export type HealthDrillBody = Static<typeof HealthDrillBody>;

/** `{}` clears the drill. */
export const DelayDrillBody = closed({
  delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 120_000 })),
  /** Operations as `<METHOD> <path relative to /v1>` with `{param}` placeholders, e.g. `POST /bookings`. */
  operations: Type.Optional(
    Type.Array(Type.String({ pattern: '^(GET|POST|DELETE) /[a-z{}_/-]*$' }), { maxItems: 20 }),
  ),
});
export type DelayDrillBody = Static<typeof DelayDrillBody>;
