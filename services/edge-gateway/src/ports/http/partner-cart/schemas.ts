import { CurrencyCodeAnyCase } from '@marquee/api-schemas';
import { Type, type TSchema } from '@sinclair/typebox';
import { PaymentActionSchema } from '../families/payment-action.js';

/**
 * Request and response schemas of the partner cart routes. Requests are checked by the family's
 * validators (register-family.ts: bodies without type coercion, `"quantity": "2"` is refused;
 * lengths count characters, as JSON Schema and the OpenAPI document do); responses are serialised with these
 * schemas, so a field missing here never reaches a client. Amounts in answers are JSON numbers in
 * the currency's major unit (25.5 = 25.50 USD); the billing `amount` is a decimal string.
 */

export const EVENT_ID_PATTERN = '^[A-Za-z0-9]{15}$';
/** Ids the platform generates (carts, shipping options): printable ASCII without spaces. */
const ID = { minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' };
const text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

export const PartnerError = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      code: Type.String({ description: 'Partner cart error code (README, "Partner cart")' }),
      http_code: Type.Integer(),
      severity: Type.String({ description: 'WARN for 4xx, ERROR for 5xx' }),
    }),
  },
  { description: 'Partner cart error' },
);

/** A refused payment: the partner error, with the 3-D Secure action when there is one. */
const PaymentRefused = Type.Object({
  error: Type.Object({
    ...PartnerError.properties.error.properties,
    payment_action: Type.Optional(PaymentActionSchema),
  }),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (code 10002; 10104 invalid delivery method)',
  401: 'Missing or unknown API key (code 10001)',
  402: 'Payment refused (20122 not accepted, 20129 no funds, 20152 invalid CVV); 20122 with `payment_action` when the card issuer asks the cardholder to authenticate (3-D Secure)',
  403: 'App not approved for partner distribution (10003), event not transactable (90001), ticket types not usable on this channel (20046), or (a reserve) the event queues its fans and the request has no valid, unspent admission of this app and fan or device (20070)',
  404: 'Unknown event (90001), unknown cart, another app’s, or a released or expired one (90003)',
  405: 'Method not allowed on this path',
  409: 'No inventory or no contiguous seats (20052), the app at its held-ticket limit for the event (20060), the buyer (third_party_account_id) at the ticket limit of the event across carts (20061), the cart not in a state for this (90003), or the first request with this Idempotency-Key still running (idempotency-key-in-progress)',
  413: 'Body larger than 1 MiB (10002)',
  415: 'Body is not application/json (10002)',
  422: 'Idempotency-Key reused with a different request (idempotency-key-reused)',
  429: 'Quota exceeded (rate_limited), or the platform busy: load shed before any work, nothing was done (overloaded); retry after Retry-After',
  500: 'Internal error',
  502: 'The partner system answered badly',
  503: 'Partner system down or in maintenance (20001), or a back end unreachable (Retry-After)',
  504: 'The partner system or the platform did not answer in time',
};

/** The error responses of a route: each status with the family body and what it means. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = [...new Set([400, 401, 403, 405, 429, 500, 503, 504, ...statuses])].sort(
    (a, b) => a - b,
  );
  return Object.fromEntries(
    all.map((status) => [
      status,
      Type.Object(status === 402 ? PaymentRefused.properties : PartnerError.properties, {
        title: status === 402 ? 'PartnerCartPaymentRefused' : 'PartnerCartError',
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      }),
    ]),
  );
}

export const EventParams = Type.Object({
  event_id: Type.String({
    pattern: EVENT_ID_PATTERN,
    description: 'Platform event id (15 letters and digits)',
  }),
});

const apikey = Type.Optional(
  Type.String({ description: 'API key (or header x-api-key)', maxLength: 256 }),
);

export const KeyQuery = Type.Object({ apikey });

export const CartIdQuery = Type.Object({
  apikey,
  cart_id: Type.String({ ...ID, description: 'The cart id (URL-encoded)' }),
});

export const OptionalCartIdQuery = Type.Object({
  apikey,
  cart_id: Type.Optional(Type.String({ ...ID, description: 'The cart id (or in the body)' })),
});

export const ShippingQuery = Type.Object({
  apikey,
  cart_id: Type.String({ ...ID, description: 'The cart id (URL-encoded)' }),
  region: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description:
        'Two-letter country code; default: US options for events in US, CA, AU, NZ, GB options for GB, IE',
    }),
  ),
});

/**
 * At most 32 characters of the Basic Multilingual Plane: the cart service counts UTF-16 code units,
 * which for these characters is the character count the schema states.
 */
const trackingId = (description: string) =>
  Type.Optional(Type.String({ maxLength: 32, pattern: '^[\\u0000-\\uFFFF]*$', description }));

export const TrackingQuery = Type.Object({
  tracking_id: Type.String({
    pattern: '^mqt_[A-Za-z0-9_-]{22}$',
    description: "The app's public tracking id (never the API key: pages anyone can read carry it)",
  }),
  event_id: Type.String({ pattern: EVENT_ID_PATTERN, description: 'Platform event id' }),
  sharedId: trackingId('Affiliate shared id (at most 32 characters)'),
  subId1: trackingId('At most 32 characters'),
  subId2: trackingId('At most 32 characters'),
  subId3: trackingId('At most 32 characters'),
});

/** A fan or device id as apps send them to the waiting room. */
export const QUEUE_IDENTITY = { minLength: 1, maxLength: 128, pattern: '^[\\w.:@-]+$' } as const;

const IDEMPOTENCY_KEY = { minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' } as const;

export const ReserveHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      ...IDEMPOTENCY_KEY,
      description:
        'A retry with the same key and body answers the cart the first request made, as it is now (or the error it ended in)',
    }),
  ),
  prefer: Type.Optional(
    Type.String({ maxLength: 256, description: '`respond-async` forces the polling path (202)' }),
  ),
  'x-platform-session-sid': Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'Fan session id (resale reserves)' }),
  ),
  'x-admission-token': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2_048,
      description:
        "The waiting room's admission (`admission_token` of an ADMITTED queue ticket), required while the event's queue is on; single-use",
    }),
  ),
  'x-fan-id': Type.Optional(
    Type.String({
      ...QUEUE_IDENTITY,
      description: 'The fan the admission was given to (the `fan_id` the queue was joined with)',
    }),
  ),
  'x-device-id': Type.Optional(
    Type.String({
      ...QUEUE_IDENTITY,
      description:
        'The device the admission was given to (the `device_id` the queue was joined with)',
    }),
  ),
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      ...IDEMPOTENCY_KEY,
      description: 'A retry with the same key and body answers the first outcome',
    }),
  ),
});

const SEAT = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

const TicketRequest = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Ticket type id (leading zeros kept) or resale listing id',
    }),
    quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
    price: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: Number.MAX_SAFE_INTEGER,
              description:
                "Price level, by its platform number: a numeric level id is itself, a string id a stable hash; international discovery's areas list it as `price_level_ids`",
            }),
          ),
          amount: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1e12,
              description: 'Variable-priced accounts only; in the event currency',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const reserveProperties = {
  tickets: Type.Array(TicketRequest, { minItems: 1, maxItems: 20 }),
  areas: Type.Optional(
    Type.Array(Type.Object({ id: text(128) }, { additionalProperties: false }), { maxItems: 50 }),
  ),
  section: Type.Optional(text(64)),
  row: Type.Optional(text(64)),
  begin_seat: Type.Optional(SEAT),
  end_seat: Type.Optional(SEAT),
  accept_best_available: Type.Optional(
    Type.Boolean({ description: 'Default true: fall back to best available' }),
  ),
};

export const Reserve = Type.Object(reserveProperties, { additionalProperties: false });

export const ReserveBody = Type.Object(
  {
    token: Type.Optional(text(4096, 'Captcha token; no longer used')),
    reserve: Reserve,
    additional_reserves: Type.Optional(Type.Array(Reserve, { maxItems: 10 })),
  },
  {
    title: 'PartnerCartReserveRequest',
    additionalProperties: false,
    // Two tickets of a ticket type, best available seats.
    examples: [{ reserve: { tickets: [{ id: '000000000001', quantity: 2 }] } }],
  },
);

export const ShippingBody = Type.Object(
  {
    cart_id: Type.Optional(Type.String({ ...ID, description: 'The cart (or query cart_id)' })),
    shipping_id: Type.String(ID),
  },
  { additionalProperties: false },
);

export const CommitBody = Type.Object(
  { cart_id: Type.Optional(Type.String({ ...ID, description: 'The cart (or query cart_id)' })) },
  { additionalProperties: false, examples: [{ cart_id: 'b2f5c7e0-4f1d-4c1e-9a51-1d2c3e4f5a6b' }] },
);

const month = Type.Union([
  Type.Integer({ minimum: 1, maximum: 12 }),
  Type.String({ pattern: '^(0?[1-9]|1[0-2])$' }),
]);
const year = Type.Union([
  Type.Integer({ minimum: 2000, maximum: 2199 }),
  Type.String({ pattern: '^(\\d{2}|2[01]\\d{2})$' }),
]);

export const PaymentBody = Type.Object(
  {
    cartId: Type.Optional(Type.String({ ...ID, description: 'The cart (or query cart_id)' })),
    payment: Type.Object(
      {
        first_name: Type.String({ minLength: 1, maxLength: 100 }),
        last_name: Type.String({ minLength: 1, maxLength: 100 }),
        home_phone: Type.Optional(text(40)),
        type: Type.String({ minLength: 1, maxLength: 32, description: 'Payment type, e.g. CC' }),
        reference: Type.Optional(text(100)),
        address: Type.Optional(
          Type.Object(
            {
              line1: Type.Optional(text(200)),
              line2: Type.Optional(text(200)),
              unit: Type.Optional(text(50)),
              city: Type.Optional(text(100)),
              country: Type.Optional(
                Type.Object(
                  {
                    code: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
                    id: Type.Optional(
                      Type.Union([
                        Type.String({ maxLength: 16 }),
                        Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
                      ]),
                    ),
                  },
                  { additionalProperties: false },
                ),
              ),
              region: Type.Optional(
                Type.Object({ abbrev: Type.Optional(text(16)) }, { additionalProperties: false }),
              ),
              postal_code: Type.Optional(text(20)),
            },
            { additionalProperties: false },
          ),
        ),
        amount: Type.String({
          // At most 11 whole digits: the amount in minor units (up to 4 decimals) stays a safe
          // integer. No more decimals than the currency has (ISO 4217: 0 for JPY, 3 for KWD...).
          pattern: '^\\d{1,11}(\\.\\d{1,4})?$',
          description:
            'Decimal string in the currency (e.g. "25.50"), with no more decimals than the currency has; must equal the unpaid total',
        }),
        currency: CurrencyCodeAnyCase(),
        card: Type.Optional(
          Type.Object(
            {
              number: Type.String({
                minLength: 1,
                maxLength: 2048,
                description: 'The payment nonce (never a card number); never stored or logged',
              }),
              cin: Type.Optional(
                Type.String({ pattern: '^\\d{3,4}$', description: 'Never logged' }),
              ),
              expire_month: Type.Optional(month),
              expire_year: Type.Optional(year),
            },
            { additionalProperties: false },
          ),
        ),
        email_address: Type.String({
          minLength: 3,
          maxLength: 254,
          pattern: '^[^\\s@]+@[^\\s@]+$',
        }),
        third_party_account_id: Type.Optional(
          text(100, "The partner's user id; required for events with secure entry"),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'PartnerCartPaymentRequest', additionalProperties: false },
);

// ---------------------------------------------------------------- answers

const Amount = Type.Number({ description: 'Major units of currency_code (25.5 = 25.50)' });

const LineTotalsJson = Type.Object(
  {
    currency_code: Type.String(),
    fee: Amount,
    grand: Amount,
    merchandise: Amount,
    tax: Amount,
  },
  { title: 'PartnerCartTotals' },
);

const ChargeJson = Type.Object({
  price: Amount,
  type: Type.String({ description: 'face_value, service, facility, distance, tax...' }),
  quantity: Type.Integer(),
  tax: Amount,
});

const TicketItem = Type.Object({
  type: Type.Literal('ticket'),
  id: Type.Integer(),
  view: Type.Object({}),
  areas: Type.Array(Type.Object({ description: Type.String(), id: Type.String() })),
  tickets: Type.Array(
    Type.Object({
      description: Type.String(),
      id: Type.String({ description: 'Ticket type id, leading zeros kept' }),
      quantity: Type.Integer(),
      inventory_type: Type.Union([Type.Literal('PRIMARY'), Type.Literal('RESALE')]),
      charges: Type.Array(ChargeJson),
    }),
  ),
  ga: Type.Boolean(),
  is_ga: Type.Boolean(),
  totals: LineTotalsJson,
  event_id: Type.String(),
  num_seats: Type.String(),
  x_num: Type.String(),
  'x-num': Type.String(),
  row: Type.String(),
  section: Type.String(),
  start_seat_number: Type.String(),
  end_seat_number: Type.String(),
  transfer: Type.Object({ eligible: Type.Boolean(), explanation: Type.String() }),
  quantity: Type.Integer(),
  listing_details: Type.Optional(
    Type.Object(
      { location: Type.String({ description: 'Section, row and seats of the listing' }) },
      { description: 'Resale items only' },
    ),
  ),
  listing_notes: Type.Optional(
    Type.Object(
      { seller_notes: Type.String({ description: "The seller's notes" }) },
      { description: 'Resale items only' },
    ),
  ),
  averageOriginalTotalValue: Type.Optional(
    Type.Number({
      description:
        'Resale items only: average per ticket of the original sale (face value and per-ticket fees), major units',
    }),
  ),
  inHandDate: Type.Optional(
    Type.String({
      description: 'Resale items only: the day the seller had the tickets (YYYY-MM-DD, UTC)',
    }),
  ),
});

const ProcessingItem = Type.Object({
  type: Type.Literal('processing'),
  totals: LineTotalsJson,
});

const shippingProperties = {
  id: Type.String(),
  carrier: Type.String(),
  service_level: Type.String({ description: 'ETICKET, MAIL, AIRMAIL, WILLCALL...' }),
  requires_address: Type.Boolean(),
  description: Type.Object({ long: Type.String(), short: Type.String(), eta: Type.String() }),
  totals: LineTotalsJson,
};

export const ShippingOptionJson = Type.Object(shippingProperties);

const DeliveryItem = Type.Object({
  type: Type.Literal('delivery'),
  ...shippingProperties,
  rank: Type.Integer(),
});

export const CartResult = Type.Object(
  {
    cart_id: Type.String(),
    cart: Type.Object({
      items: Type.Array(Type.Union([TicketItem, ProcessingItem, DeliveryItem])),
      totals: Type.Object({
        currency_code: Type.String(),
        delivery: Amount,
        fee: Amount,
        grand: Amount,
        merchandise: Amount,
        tax: Amount,
        unpaid: Amount,
        upsell: Amount,
      }),
      hold_time: Type.Integer({ description: 'Seconds of hold left' }),
      language: Type.String(),
      agreements: Type.Array(
        Type.Object({
          name: Type.String(),
          locale: Type.String(),
          text: Type.String(),
          type: Type.String({ description: 'boolean or acknowledgement' }),
          agreement_url: Type.Optional(Type.String()),
        }),
      ),
      payments: Type.Array(
        Type.Object({
          id: Type.String(),
          payment_id: Type.String(),
          type: Type.String(),
          amount: Amount,
          card: Type.Object({
            expire_month: Type.Integer(),
            expire_year: Type.Integer(),
            issuer: Type.String(),
            number: Type.String({ description: 'Masked: last four digits only' }),
          }),
        }),
      ),
    }),
  },
  { title: 'PartnerCart', description: 'The cart (held, paid or committed)' },
);

export const PendingCart = Type.Object(
  {
    cart_id: Type.String(),
    polling_url: Type.String({
      description: 'GET it (with the API key) until 200; path relative to the API host',
    }),
    wait: Type.Integer({ description: 'Seconds to wait before polling' }),
  },
  { description: 'The reserve is still running: poll polling_url (also in Location)' },
);

export const ShippingOptions = Type.Object({ shipping_options: Type.Array(ShippingOptionJson) });

export const CommitResult = Type.Object(
  {
    cart_id: Type.String(),
    order_number: Type.String(),
    order_id: Type.String(),
    order_token: Type.String({
      description:
        'Bearer credential of the secure-entry order read (POST /orders?order_token=); given once',
    }),
    redemption_url: Type.String(),
    grand_total: Amount,
    currency_code: Type.String(),
  },
  { title: 'PartnerCartOrder', description: 'The order' },
);

const OfferJson = Type.Object({
  ticketTypeId: Type.String(),
  priceLevelId: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  faceValue: Amount,
  charges: Type.Array(
    Type.Object({
      type: Type.String({
        description: '`service`, `processing`...; `tax` for the tax on the fee listed before it',
      }),
      amount: Amount,
      quantity: Type.Integer(),
      fee_type: Type.String({ description: 'per ticket or per order' }),
    }),
    {
      description:
        'What a cart charges on top of the face value: faceValue plus the `per ticket` amounts is the price of one ticket, and the `per order` amounts are charged once per cart',
    },
  ),
  protected: Type.Boolean(),
});

export const Availability = Type.Object(
  {
    event: Type.Object({
      id: Type.String(),
      restrictSingle: Type.Boolean(),
      eventTicketLimit: Type.Integer({
        description: 'Tickets per transaction at most; 0 = none given',
      }),
      onsale: Type.Boolean({ description: 'On sale now' }),
      offsale: Type.Boolean({ description: 'The sale has ended' }),
      onsaleDate: Type.Optional(Type.String({ description: 'ISO 8601' })),
      offsaleDate: Type.Optional(Type.String({ description: 'ISO 8601' })),
      secureTixEnabled: Type.Boolean(),
      currency: Type.String(),
      totalAvailable: Type.Integer(),
      observedAt: Type.Optional(
        Type.String({ description: 'When the partner answered (ISO 8601)' }),
      ),
      tickets: Type.Array(
        Type.Object({
          priceLevelId: Type.String(),
          available: Type.Integer(),
          total: Type.Integer(),
          inventory: Type.Array(
            Type.Object({
              section: Type.String(),
              row: Type.String(),
              seats: Type.Array(Type.String()),
              areas: Type.Array(
                Type.Object({
                  id: Type.String(),
                  level_id: Type.String(),
                  ga: Type.Boolean(),
                  available: Type.Integer(),
                }),
              ),
            }),
          ),
          offers: Type.Array(OfferJson),
        }),
      ),
    }),
  },
  { title: 'PartnerCartAvailability' },
);
