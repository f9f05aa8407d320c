import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The 3P API on the wire: every request body, query and answer, as TypeBox schemas and the types
 * they give. The API names some fields and leaves the rest to the implementer; what is fixed here
 * beyond the named fields is marked "designed" and is what partner-reference serves, what
 * 3p-connector expects and what the conformance kit checks.
 *
 * Answers are open objects (a partner may send more than we read); request bodies are closed where
 * the partner validates them.
 */

const open = <T extends Parameters<typeof Type.Object>[0]>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

/** UTC date-time, ISO 8601 with a `Z` or an offset (e.g. `2026-05-01T19:30:00Z`). */
export const DateTime = Type.String({
  format: 'date-time',
  maxLength: 40,
  description: 'UTC date-time (ISO 8601)',
});

/** ISO language-country code, lower case, `xx-yy` (e.g. `en-us`). */
export const Lang = Type.String({ pattern: '^[a-z]{2}-[a-z]{2}$', maxLength: 5 });

/** An amount in minor currency units, as a string of digits (e.g. `"4500"` = 45.00). */
export const MinorAmount = Type.String({ pattern: '^(0|[1-9][0-9]{0,14})$', maxLength: 15 });

/** Identifiers chosen by the partner: printable, no slashes (they go into paths). */
export const PartnerId = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$', maxLength: 64 });

export const ErrorBody = Type.Object(
  { id: Type.Integer(), message: Type.String() },
  { additionalProperties: true, description: 'Error body of every refused 3P call' },
);
export type ErrorBody = Static<typeof ErrorBody>;

// ---------------------------------------------------------------------------------------------
// OAuth client credentials

export const TokenRequest = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.Optional(Type.String({ maxLength: 256 })),
    client_secret: Type.Optional(Type.String({ maxLength: 512 })),
    scope: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = open({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  /** Seconds, typed as a string by the API. */
  expires_in: Type.String({ pattern: '^[0-9]+$' }),
  /** Space-separated granted scopes. */
  scope: Type.String(),
});
export type TokenResponse = Static<typeof TokenResponse>;

/** Error answer of the token endpoint (RFC 6749, section 5.2). */
export const OAuthError = open({
  error: Type.String(),
  error_description: Type.Optional(Type.String()),
});
export type OAuthError = Static<typeof OAuthError>;

// ---------------------------------------------------------------------------------------------
// Healthcheck

export const HealthcheckResult = open({
  /** 0 successful; 901 service not currently available; 902 synchronisation required. */
  id: Type.Integer(),
  message: Type.String(),
  venues_to_sync: Type.Optional(Type.Array(Type.String())),
});
export type HealthcheckResult = Static<typeof HealthcheckResult>;

// ---------------------------------------------------------------------------------------------
// Events

export const TextInfo = open({
  lang: Lang,
  name: Type.String({ maxLength: 500 }),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
});
export type TextInfo = Static<typeof TextInfo>;

export const PriceTypeTextInfo = open({
  lang: Lang,
  name: Type.String({ maxLength: 500 }),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  additional_info: Type.Optional(Type.String({ maxLength: 5000 })),
  printed_description: Type.Optional(Type.String({ maxLength: 500 })),
});

export const DateTimeProperties = open({
  date_hidden: Type.Boolean(),
  time_hidden: Type.Boolean(),
});

export const Visibility = Type.Union([
  Type.Literal('VISIBLE'),
  Type.Literal('NOT_VISIBLE'),
  Type.Literal('HIDDEN'),
]);
export type Visibility = Static<typeof Visibility>;

export const EventVisibility = open({
  default_visibility: Visibility,
  visibility_override: Type.Optional(open({ visibility: Visibility, starts_on: DateTime })),
});

export const PriceLevel = open({ id: PartnerId, text_infos: Type.Array(TextInfo) });
export type PriceLevel = Static<typeof PriceLevel>;

export const PriceType = open({
  id: PartnerId,
  regular: Type.Boolean(),
  /** A password; a booking of this type must repeat it (`tickets[].access_code`). */
  access_code: Type.Optional(Type.String({ maxLength: 100 })),
  text_infos: Type.Array(PriceTypeTextInfo),
});
export type PriceType = Static<typeof PriceType>;

export const FaceValuePrices = open({
  price_period: open({ id: PartnerId, start_date_time: DateTime, end_date_time: DateTime }),
  prices: Type.Array(
    open({ price_level_id: PartnerId, price_type_id: PartnerId, amount: MinorAmount }),
  ),
});
export type FaceValuePrices = Static<typeof FaceValuePrices>;

/** Designed: where an event logo sits on the ticket (the API fixes that one is required). */
export const LogoRef = open({ id: PartnerId, position: Type.String({ maxLength: 40 }) });
export const PriceComponent = open({
  id: PartnerId,
  amount: MinorAmount,
  tax_plan_id: PartnerId,
  taxable_organization: Type.Optional(Type.String({ maxLength: 200 })),
});

export const PartnerEvent = open({
  event_id: PartnerId,
  last_modification: DateTime,
  /** Designed: the venue the event takes place in (the list is per venue). */
  venue_id: PartnerId,
  /**
   * Designed: what the venue is, since the API has no venue read: its name, city and ISO 3166-1
   * alpha-2 country. Discovery shows it and international discovery selects markets by country.
   */
  venue_info: Type.Optional(
    open({
      name: Type.String({ maxLength: 200 }),
      city: Type.Optional(Type.String({ maxLength: 200 })),
      country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    }),
  ),
  organization_info: open({ promoter_id: Type.String(), promoter_name: Type.String() }),
  manifest_id: PartnerId,
  text_infos: Type.Array(TextInfo),
  maximum_tickets_quantity: Type.Integer({ minimum: 0 }),
  genre_info: Type.Array(open({ genre_id: Type.String(), genre_name: Type.String() })),
  date_time: DateTime,
  date_time_properties: DateTimeProperties,
  /** Designed: IANA time zone of the venue (local dates, the nightly maintenance window). */
  timezone: Type.String({ maxLength: 64 }),
  /** Designed: ISO 4217 currency of every amount of the event. */
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  /**
   * Designed: tickets of the event use secure entry (rotating barcodes). The platform then asks the
   * buyer for a `third_party_account_id` at payment. Absent = false.
   */
  secure_entry: Type.Optional(Type.Boolean()),
  visibility: EventVisibility,
  doors_date_time: Type.Optional(DateTime),
  doors_date_time_properties: Type.Optional(DateTimeProperties),
  price_levels: Type.Array(PriceLevel),
  price_types: Type.Array(PriceType),
  face_value_prices: Type.Array(FaceValuePrices),
  /** At most 14 lines of at most 42 characters. */
  ticket_texts: Type.Optional(Type.Array(Type.String({ maxLength: 42 }), { maxItems: 14 })),
  logos: Type.Optional(Type.Array(LogoRef, { maxItems: 2 })),
  price_components: Type.Optional(Type.Array(PriceComponent)),
  /** Designed: sale channels allowed for the event; absent = every channel. */
  sales_channels: Type.Optional(Type.Array(Type.String())),
});
export type PartnerEvent = Static<typeof PartnerEvent>;

export const EventStatus = Type.String({ description: '`ON_SALE` or `CANCELED`, any letter case' });

export const EventListItem = open({
  event: PartnerEvent,
  status: EventStatus,
  /** Designed values: `NEW` (created after `last_modification`), `MODIFIED` otherwise. */
  mod_list: Type.Array(Type.String()),
});
export type EventListItem = Static<typeof EventListItem>;

export const Page = open({
  size: Type.Integer(),
  total_elements: Type.Integer(),
  total_pages: Type.Integer(),
  number: Type.Integer(),
});
export type Page = Static<typeof Page>;

/** `GET /events?venue&last_modification&size&page&sort`. */
export const EventsQuery = Type.Object(
  {
    venue: Type.String({ maxLength: 64 }),
    /** Events whose last modification is at or after this instant. */
    last_modification: Type.String({ maxLength: 40 }),
    /** Default 20, 1..100 (designed maximum). */
    size: Type.Optional(Type.String({ maxLength: 10 })),
    /** Default 0. */
    page: Type.Optional(Type.String({ maxLength: 10 })),
    /** `name,date` or `date,name`, any letter case; default `DATE,NAME`. */
    sort: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);
export const EVENTS_DEFAULT_PAGE_SIZE = 20;
export const EVENTS_MAX_PAGE_SIZE = 100;

export const EventsPage = open({ events_info: Type.Array(EventListItem), page: Page });
export type EventsPage = Static<typeof EventsPage>;

export const EventAnswer = open({ event: PartnerEvent, status: Type.Optional(EventStatus) });
export type EventAnswer = Static<typeof EventAnswer>;

// ---------------------------------------------------------------------------------------------
// Manifests, logos, tax plans (designed beyond "sections, levels, price_levels")

export const ManifestSeat = open({ id: PartnerId, row: Type.String(), number: Type.String() });
export type ManifestSeat = Static<typeof ManifestSeat>;

export const ManifestArea = open({
  id: PartnerId,
  name: Type.String(),
  level_id: Type.Optional(PartnerId),
  section_id: Type.Optional(PartnerId),
  price_level_id: PartnerId,
  /** General admission: counted places, no seats. */
  general_admission: Type.Boolean(),
  /** Places of the area (the number of seats for reserved seating). */
  capacity: Type.Integer({ minimum: 0 }),
  /** Reserved seating only. */
  seats: Type.Optional(Type.Array(ManifestSeat)),
});
export type ManifestArea = Static<typeof ManifestArea>;

export const Manifest = open({
  manifest_id: PartnerId,
  venue_id: PartnerId,
  name: Type.String(),
  levels: Type.Array(open({ id: PartnerId, name: Type.String(), position: Type.Integer() })),
  sections: Type.Array(open({ id: PartnerId, name: Type.String() })),
  price_levels: Type.Array(open({ id: PartnerId, name: Type.String() })),
  areas: Type.Array(ManifestArea),
});
export type Manifest = Static<typeof Manifest>;

export const ManifestAnswer = open({ manifest: Manifest });
export type ManifestAnswer = Static<typeof ManifestAnswer>;

export const LogoAnswer = open({
  logo: open({
    id: PartnerId,
    /** pcx, png, bmp, gif, tiff or jpeg. */
    format: Type.String(),
    /** Base64 of the image, at most 1 MB decoded. */
    data: Type.String(),
  }),
});
export type LogoAnswer = Static<typeof LogoAnswer>;

export const TaxPlanAnswer = open({
  tax_plan: open({
    id: PartnerId,
    name: Type.String(),
    /** Rates in percent as decimal strings (e.g. `"20.00"`). */
    rates: Type.Array(open({ name: Type.String(), rate: Type.String() })),
  }),
});
export type TaxPlanAnswer = Static<typeof TaxPlanAnswer>;

// ---------------------------------------------------------------------------------------------
// Availability (designed)

/**
 * `GET /events/{event_id}/availability?level_id&section_id&detail`: every area (overview), or the
 * one area of `level_id` + `section_id` (both or neither; one alone is 400 id 1). `detail` is
 * `overview` (counts only, the default) or `seats` (also the available seats of reserved-seat areas);
 * another value is 400 id 216.
 */
export const AvailabilityQuery = Type.Object(
  {
    level_id: Type.Optional(Type.String({ maxLength: 64 })),
    section_id: Type.Optional(Type.String({ maxLength: 64 })),
    detail: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

export const AreaAvailability = open({
  area_id: PartnerId,
  level_id: Type.Optional(PartnerId),
  section_id: Type.Optional(PartnerId),
  price_level_id: PartnerId,
  general_admission: Type.Boolean(),
  available: Type.Integer({ minimum: 0 }),
  unavailable: Type.Integer({ minimum: 0 }),
  /** With `detail=seats`, reserved seating only. */
  available_seats: Type.Optional(Type.Array(ManifestSeat)),
});
export type AreaAvailability = Static<typeof AreaAvailability>;

export const AvailabilityAnswer = open({
  event_id: PartnerId,
  last_modification: DateTime,
  areas: Type.Array(AreaAvailability),
});
export type AvailabilityAnswer = Static<typeof AvailabilityAnswer>;

// ---------------------------------------------------------------------------------------------
// Bookings and orders (designed beyond the named fields)

export const ChannelInfo = open({ channel_type: Type.String({ maxLength: 40 }) });

/** Sale channel types partner-reference knows (others are 400 id 111). */
export const CHANNEL_TYPES = [
  'INTERNET',
  'MOBILE',
  'BOX_OFFICE',
  'CALL_CENTER',
  'PARTNER',
] as const;
export const PAYMENT_METHOD_TYPES = ['NO', 'CASH', 'CARD', 'OTHERS', 'UN'] as const;
export const DELIVERY_METHOD_TYPES = ['DS', 'PH', 'PU', 'NO', 'UN'] as const;
export const ORDER_ACTIONS = ['PRINT', 'ROLLBACK_PRINT', 'CANCEL'] as const;

/** One requested line: a quantity of a price type, best available or named seats. */
export const BookingTicketRequest = Type.Object(
  {
    price_type_id: Type.String({ maxLength: 64 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
    /** Restricts the line to one area; absent = best available over every area. */
    area_id: Type.Optional(Type.String({ maxLength: 64 })),
    /** Restricts the line to areas of this price level. */
    price_level_id: Type.Optional(Type.String({ maxLength: 64 })),
    /** Exactly these seats (as many as `quantity`), all in `area_id`. */
    seat_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 })),
    /** The price type's password, when it has one. */
    access_code: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type BookingTicketRequest = Static<typeof BookingTicketRequest>;

export const BookingRequest = Type.Object(
  {
    request: Type.Object(
      {
        event_id: Type.String({ maxLength: 64 }),
        language: Type.String({ maxLength: 10 }),
        channel_info: ChannelInfo,
        tickets: Type.Array(BookingTicketRequest, { minItems: 1, maxItems: 50 }),
        /** The platform's reference (cart id): a repeated request with it answers the same booking. */
        external_reference: Type.Optional(Type.String({ maxLength: 128 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type BookingRequest = Static<typeof BookingRequest>;

export const Ticket = open({
  ticket_id: PartnerId,
  area_id: PartnerId,
  level_id: Type.Optional(PartnerId),
  section_id: Type.Optional(PartnerId),
  /** Empty for general admission. */
  row: Type.String(),
  seat: Type.String(),
  seat_id: Type.Optional(PartnerId),
  general_admission: Type.Boolean(),
  price_level_id: PartnerId,
  price_type_id: PartnerId,
  amount: MinorAmount,
});
export type Ticket = Static<typeof Ticket>;

/** `BOOKED`, `RELEASED`, `EXPIRED`, `CONFIRMED`, `PRINTED`, `CANCELLED`. */
export const TRANSACTION_STATUSES = [
  'BOOKED',
  'RELEASED',
  'EXPIRED',
  'CONFIRMED',
  'PRINTED',
  'CANCELLED',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const Booking = open({
  inventory_token: PartnerId,
  event_id: PartnerId,
  status: Type.String(),
  language: Lang,
  channel_type: Type.String(),
  external_reference: Type.Optional(Type.String()),
  created_at: DateTime,
  expires_at: DateTime,
  currency: Type.String(),
  tickets_amount: MinorAmount,
  tickets_quantity: Type.Integer(),
  tickets: Type.Array(Ticket),
});
export type Booking = Static<typeof Booking>;

export const BookingAnswer = open({ booking: Booking });
export type BookingAnswer = Static<typeof BookingAnswer>;

export const OrderRequest = Type.Object(
  {
    request: Type.Object(
      {
        inventory_token: Type.String({ maxLength: 64 }),
        order_info: Type.Object(
          {
            /** Face value total, minor units, fees excluded; must equal the booking's. */
            tickets_amount: Type.String({ maxLength: 20 }),
            /** Must equal the booking's number of tickets. */
            tickets_quantity: Type.Integer({ minimum: 0, maximum: 100_000 }),
            /** The platform's order id: a repeated confirmation with it answers the same order. */
            external_order_id: Type.Optional(Type.String({ maxLength: 128 })),
          },
          { additionalProperties: false },
        ),
        payment_info: Type.Object(
          { payment_method_type: Type.String({ maxLength: 10 }) },
          { additionalProperties: false },
        ),
        delivery_info: Type.Object(
          { delivery_method_type: Type.String({ maxLength: 10 }) },
          { additionalProperties: false },
        ),
        channel_info: ChannelInfo,
        language: Type.Optional(Type.String({ maxLength: 10 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type OrderRequest = Static<typeof OrderRequest>;

export const Order = open({
  inventory_order_id: Type.Optional(PartnerId),
  inventory_token: PartnerId,
  event_id: PartnerId,
  status: Type.String(),
  external_reference: Type.Optional(Type.String()),
  external_order_id: Type.Optional(Type.String()),
  /** The order may be printed (confirmed and not cancelled). */
  print_authorized: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
  expires_at: Type.Optional(DateTime),
  confirmed_at: Type.Optional(DateTime),
  currency: Type.String(),
  tickets_amount: MinorAmount,
  tickets_quantity: Type.Integer(),
  payment_method_type: Type.Optional(Type.String()),
  delivery_method_type: Type.Optional(Type.String()),
  tickets: Type.Array(Ticket),
});
export type Order = Static<typeof Order>;

export const OrderAnswer = open({ order: Order });
export type OrderAnswer = Static<typeof OrderAnswer>;

/** Print messages of a PRINT action: at most 3 additional lines of 100 characters each. */
export const PRINT_MESSAGE_MAX_LINES = 3;
export const PRINT_MESSAGE_MAX_LENGTH = 100;

/** Most tickets one partial cancel (`request.tickets` of a CANCEL) may name. */
export const MAX_CANCEL_TICKETS = 100;

export const OrderActionRequest = Type.Object(
  {
    request: Type.Object(
      {
        action: Type.String({ maxLength: 20 }),
        channel_info: ChannelInfo,
        language: Type.Optional(Type.String({ maxLength: 10 })),
        print_messages: Type.Optional(
          Type.Array(Type.String({ maxLength: PRINT_MESSAGE_MAX_LENGTH }), {
            maxItems: PRINT_MESSAGE_MAX_LINES,
            description:
              'PRINT only: up to 3 additional lines of at most 100 characters, printed on the tickets and stored nowhere else',
          }),
        ),
        tickets: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
            minItems: 1,
            maxItems: MAX_CANCEL_TICKETS,
            uniqueItems: true,
            description:
              "CANCEL only (Marquee's extension): the `ticket_id`s of the order's tickets to cancel, the others stay sold. Absent: the whole order. A partner that cancels whole orders only answers 310; a repeat of a partial cancel of the same tickets succeeds",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type OrderActionRequest = Static<typeof OrderActionRequest>;

export const OrderActionAnswer = open({ action: Type.String(), order: Order });
export type OrderActionAnswer = Static<typeof OrderActionAnswer>;

/**
 * `GET /orders?inventory_token=` or `GET /orders?event_id&start&end[&page&size]`: bookings and
 * orders (the transactions of the API), oldest first. The period is on `created_at`, `start`
 * inclusive, `end` exclusive; at most 31 days (a longer one is 400 id 213).
 */
export const OrdersQuery = Type.Object(
  {
    inventory_token: Type.Optional(Type.String({ maxLength: 64 })),
    event_id: Type.Optional(Type.String({ maxLength: 64 })),
    start: Type.Optional(Type.String({ maxLength: 40 })),
    end: Type.Optional(Type.String({ maxLength: 40 })),
    size: Type.Optional(Type.String({ maxLength: 10 })),
    page: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);
export const ORDERS_DEFAULT_PAGE_SIZE = 100;
export const ORDERS_MAX_PAGE_SIZE = 500;

export const OrdersPage = open({ orders: Type.Array(Order), page: Page });
export type OrdersPage = Static<typeof OrdersPage>;

/** Every answer schema by name, for the conformance kit and tests. */
export const answerSchemas: Readonly<Record<string, TSchema>> = Object.freeze({
  TokenResponse,
  HealthcheckResult,
  EventsPage,
  EventAnswer,
  ManifestAnswer,
  LogoAnswer,
  TaxPlanAnswer,
  AvailabilityAnswer,
  BookingAnswer,
  OrderAnswer,
  OrderActionAnswer,
  OrdersPage,
  ErrorBody,
});
