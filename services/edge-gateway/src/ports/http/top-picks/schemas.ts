import { Type, type TSchema } from '@sinclair/typebox';
import { anyCase, anyCaseSpaced, listOf } from '../patterns.js';

/**
 * Request and response schemas of `/top-picks/v1`. The answer is serialised with these schemas, so
 * a field missing here never reaches a client. Amounts are JSON numbers in the currency's major unit
 * (25.5 = 25.50 EUR); times of the fan session are epoch milliseconds.
 */

export const SESSION_HEADER = 'x-platform-session-sid';
/** What the edge lets through as a fan session id; the cart issues 43 base64url characters. */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
/** Platform event ids are 15 letters and digits. */
export const EVENT_ID_PATTERN = '^[A-Za-z0-9]{15}$';

export const PartnerError = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      code: Type.String({ description: 'Error code: 10001 no API key, 10002 invalid input, …' }),
      http_code: Type.Integer(),
      severity: Type.String({ description: 'WARN for 4xx, ERROR for 5xx' }),
    }),
  },
  { description: 'Error' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (code 10002): a bad parameter, a page size above 30, a malformed session id',
  401: 'Missing or unknown API key (code 10001)',
  404: 'The event is not sold through the platform (code not_found)',
  405: 'Method not allowed on this path',
  429: 'Quota exceeded',
  500: 'Internal error (never for bad input)',
  503: 'The platform is unavailable for a moment (Retry-After)',
  504: 'The platform did not answer in time',
};

/** The error responses of a route, each with the family body and what it means. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      Type.Object(PartnerError.properties, { description: ERROR_DESCRIPTIONS[status] ?? 'Error' }),
    ]),
  );
}

export const EventParams = Type.Object({
  event_id: Type.String({
    pattern: EVENT_ID_PATTERN,
    description: 'Platform event id (15 letters and digits)',
  }),
});

const list = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ maxLength: 2_000 }), {
      maxItems: 50,
      description: `${description} (comma-separated or repeated)`,
    }),
  );

export const TopPicksQuerySchema = Type.Object({
  apikey: Type.Optional(
    Type.String({ description: 'API key of the calling app (or header `x-api-key`)' }),
  ),
  quantity: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 50,
      default: 2,
      description: "Tickets together (default 2; at most the event's ticket limit)",
    }),
  ),
  ticketTypeId: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'Only offers of this ticket type; a protected type shows only when named here',
    }),
  ),
  priceLevels: list('Only these price level ids'),
  areas: list('Only these area ids'),
  sections: list('Only these sections (labels or ids, case-insensitive)'),
  prices: Type.Optional(
    Type.String({
      pattern: '^\\s*(\\d{1,12}(\\.\\d{1,6})?)?\\s*,\\s*(\\d{1,12}(\\.\\d{1,6})?)?\\s*$',
      description:
        '`min,max` per-ticket total price in the event currency; either side may be empty (`20,` or `,80.5`)',
    }),
  ),
  selection: Type.Optional(
    Type.String({
      maxLength: 64,
      pattern: listOf(`${anyCase('standard')}|${anyCase('resale')}|${anyCase('any')}`),
      description:
        '`standard` (default: primary inventory), `resale` or `Any` (primary inventory and resale listings); case-insensitive, comma-separated values allowed',
    }),
  ),
  sort: Type.Optional(
    Type.String({
      maxLength: 32,
      // Read with its blanks removed, in any case.
      pattern: `^\\s*${anyCaseSpaced('quality')}\\s*(?:,\\s*${anyCaseSpaced('desc')}\\s*)?$`,
      description: '`quality` (the default and only order: best first); `quality,desc` too',
    }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100_000, default: 1, description: 'Page number from 1' }),
  ),
  size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 30,
      default: 10,
      description: 'Picks per page, at most 30',
    }),
  ),
});

export const SessionHeaders = Type.Object({
  [SESSION_HEADER]: Type.Optional(
    Type.String({
      pattern: SESSION_ID_PATTERN,
      description:
        'Fan session id from an earlier answer. Absent or unknown: a new session; live: kept; expired: renewed with the same id and the message SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED',
    }),
  ),
  'x-api-key': Type.Optional(Type.String({ description: 'API key (or query `apikey`)' })),
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Charge = Type.Object({
  reason: Type.String(),
  type: Type.String(),
  amount: Type.Number(),
  fee_type: Type.String({ description: '`per ticket` or `per order`' }),
});

const Offer = Type.Object({
  offerId: Type.String({ description: 'Commerce offer id, or the resale listing id' }),
  name: Type.String(),
  ticketTypeId: Type.String({
    description:
      'Send as `tickets[].id` of a reserve: the ticket type id, or the resale listing id',
  }),
  priceLevelId: Type.String({ description: 'Optional in reserves (`price.id`)' }),
  description: Type.String(),
  currency: Type.String({ description: 'ISO 4217' }),
  faceValue: Type.Number(),
  totalPrice: Type.Number({
    description: 'Per ticket, charges included; order processing fees excluded',
  }),
  charges: Type.Array(Charge),
  limit: Type.Object({ min: Type.Integer(), max: Type.Integer() }),
  promotions: Type.Array(Type.Unknown(), { maxItems: 0, description: 'None offered' }),
  protected: Type.Boolean({ description: 'The ticket type needs a password' }),
  inventoryType: Type.Union([Type.Literal('PRIMARY'), Type.Literal('RESALE')]),
  listingNotes: Type.Optional(
    Type.Object({
      deliveryDate: Type.Optional(Type.String({ format: 'date-time' })),
      deliveryMethod: Type.String(),
      deliveryDescription: Type.String(),
      sellerNotes: Type.String(),
    }),
  ),
});

const Pick = Type.Object({
  type: Type.Union([Type.Literal('seats'), Type.Literal('general-seating')]),
  quality: Type.Number({ minimum: 0, maximum: 1, description: 'Price and stage proximity' }),
  area: Type.Object({ id: Type.String(), name: Type.String(), description: Type.String() }),
  descriptions: Type.Array(Type.String()),
  section: Type.String(),
  selection: Type.Union([Type.Literal('standard'), Type.Literal('resale')]),
  row: Type.Optional(
    Type.String({
      description: 'Resale picks only: not shown for primary inventory during the onsale',
    }),
  ),
  snapshotImageUrl: Type.Null({ description: 'Not supported: always null' }),
  listingDetails: Type.Optional(
    Type.Object({
      location: Type.String(),
      estimatedDeliveryDate: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  ),
  offers: Type.Array(Type.String(), { description: 'Offer ids of `_embedded.offer`' }),
  seats: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Resale picks only: not shown for primary inventory during the onsale',
    }),
  ),
});

export const TopPicksResult = Type.Object(
  {
    fanSession: Type.Object({
      resaleSid: Type.Object({
        sessionId: Type.String(),
        sessionStartTime: Type.Integer({ description: 'Epoch milliseconds' }),
        sessionExpireTime: Type.Integer({ description: 'Epoch milliseconds' }),
      }),
    }),
    messages: Type.Array(Type.String(), {
      description:
        'SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED when an expired session was renewed',
    }),
    page: Type.Object({
      number: Type.Integer({ description: 'From 1' }),
      size: Type.Integer(),
      totalElements: Type.Integer(),
      totalPages: Type.Integer(),
    }),
    picks: Type.Array(Pick),
    _embedded: Type.Object({ offer: Type.Array(Offer) }),
    eventDetails: Type.Object({
      id: Type.String(),
      granularPricing: Type.Boolean(),
      secureTixEnabled: Type.Boolean(),
      allInclusivePricing: Type.Boolean(),
      venueMapUrl: Nullable(Type.String()),
      venueMapWithLabelsUrl: Nullable(Type.String()),
      listingsDisclaimer: Type.String(),
      transfer: Type.Object({ eligible: Type.Boolean(), explanation: Type.String() }),
      agreements: Type.Array(
        Type.Object({
          name: Type.String(),
          locale: Type.String(),
          text: Type.String(),
          type: Type.String(),
          agreement_url: Type.String(),
        }),
      ),
      importantInformation: Nullable(
        Type.Object({
          buttonText: Type.String(),
          linkText: Type.String(),
          secondaryLinkText: Type.String(),
          linkUrl: Type.String(),
          secondaryLinkUrl: Type.String(),
          description: Type.String(),
          title: Type.String(),
        }),
      ),
    }),
  },
  {
    description:
      'Top picks; the header X-PLATFORM-SESSION-SID of the answer carries the session id',
  },
);

/**
 * An answer as the cart service's top picks become it (`toTopPicksDocument`, the edge's top picks
 * client): two primary seats together, best first, for the OpenAPI document's example.
 */
export const TOP_PICKS_EXAMPLE = {
  fanSession: {
    resaleSid: {
      sessionId: 'fs_6c1f0e9b2a7d4b3e',
      sessionStartTime: 1901275200000,
      sessionExpireTime: 1901277000000,
    },
  },
  messages: [],
  page: { number: 1, size: 10, totalElements: 1, totalPages: 1 },
  picks: [
    {
      type: 'seats',
      quality: 0.92,
      area: { id: '1', name: 'Floor', description: 'Floor seating' },
      descriptions: ['Floor, section FLR'],
      section: 'FLR',
      selection: 'standard',
      snapshotImageUrl: null,
      offers: ['000000000001'],
    },
  ],
  _embedded: {
    offer: [
      {
        offerId: '000000000001',
        name: 'Adult',
        ticketTypeId: '000000000001',
        priceLevelId: '1',
        description: 'Standard admission',
        currency: 'USD',
        faceValue: 45,
        totalPrice: 55.1,
        charges: [
          { reason: 'Service fee', type: 'service', amount: 7.5, fee_type: 'per ticket' },
          { reason: 'Service fee tax', type: 'tax', amount: 0.6, fee_type: 'per ticket' },
          { reason: 'Facility charge', type: 'facility', amount: 2, fee_type: 'per ticket' },
          { reason: 'Order processing fee', type: 'processing', amount: 3, fee_type: 'per order' },
        ],
        limit: { min: 1, max: 8 },
        promotions: [],
        protected: false,
        inventoryType: 'PRIMARY',
      },
    ],
  },
  eventDetails: {
    id: 'EVT000000000001',
    granularPricing: false,
    secureTixEnabled: true,
    allInclusivePricing: false,
    venueMapUrl: null,
    venueMapWithLabelsUrl: null,
    listingsDisclaimer: 'Prices and availability can change until the tickets are in your cart.',
    transfer: {
      eligible: true,
      explanation: 'Secure-entry tickets can be transferred from the account.',
    },
    agreements: [
      {
        name: 'terms',
        locale: 'en-us',
        text: 'I accept the terms of sale.',
        type: 'boolean',
        agreement_url: 'https://tickets.example.com/terms',
      },
    ],
    importantInformation: null,
  },
};
