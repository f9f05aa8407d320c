import { CurrencyCode } from '@marquee/api-schemas';
import { Type, type TSchema } from '@sinclair/typebox';
import { DECIMAL_PATTERN } from './money.js';
import { PaymentActionSchema } from '../families/payment-action.js';

/**
 * JSON schemas of the commerce API (`/commerce/v2`): every request part is validated by the
 * server's ajv before a handler runs, and every answer is serialised through its schema (fields not
 * listed here are never written).
 */

const id = (description: string) => Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description });

/** Platform event id (15 alphanumeric characters for partner events; other ids kept loose). */
export const EventId = id('Platform event id');
export const CartId = id('Shopping cart id');

/** `.{format}` of the path: only `json` is served (406 otherwise). */
export const Format = Type.Literal('json', {
  description: 'Answer format: only `json` is served (406 for any other, before validation)',
});

const keyQuery = {
  'api-key': Type.Optional(Type.String({ maxLength: 256, description: 'API key' })),
  apikey: Type.Optional(Type.String({ maxLength: 256, description: 'API key (alias)' })),
};
const tokenQuery = {
  access_token: Type.Optional(
    Type.String({ maxLength: 512, description: 'Fan access token (or X-PLATFORM-ACCESS-TOKEN)' }),
  ),
};

export const OffersParams = Type.Object(
  { id: EventId, format: Type.Optional(Format) },
  { additionalProperties: false },
);

export const OffersQuery = Type.Object(
  {
    ...keyQuery,
    ...tokenQuery,
    displayId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Password (display id) that reveals protected offers',
      }),
    ),
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Alias of displayId' }),
    ),
  },
  { additionalProperties: false },
);

export const OffersBody = Type.Object(
  {
    displayId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const KeyQuery = Type.Object({ ...keyQuery }, { additionalProperties: false });
export const ShoppingQuery = Type.Object(
  { ...keyQuery, ...tokenQuery },
  { additionalProperties: false },
);

export const CartParams = Type.Object(
  { cartId: CartId, format: Type.Optional(Format) },
  { additionalProperties: false },
);

export const KeyHeaders = Type.Object({
  'x-ssl-cert-uid': Type.Optional(Type.String({ maxLength: 256, description: 'API key' })),
  'x-platform-access-token': Type.Optional(
    Type.String({ maxLength: 512, description: 'Fan access token' }),
  ),
});

export const WriteHeaders = Type.Object({
  ...KeyHeaders.properties,
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'A retry with the same key answers the first outcome; the same key with a different request is refused with 409, code `idempotency-key-reused`',
    }),
  ),
});

const Quantity = Type.Integer({ minimum: 1, maximum: 100 });
const Amount = Type.String({ pattern: DECIMAL_PATTERN, description: 'Decimal amount ("19.75")' });

const ShoppingOffer = Type.Object(
  {
    offer: Type.String({ minLength: 1, maxLength: 256, description: 'Offer id' }),
    qty: Quantity,
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

const productFields = {
  product: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,64}$',
    description: 'Product id: the event id for tickets',
  }),
  event: Type.Optional(EventId),
  qty: Type.Optional(Quantity),
  offers: Type.Optional(Type.Array(ShoppingOffer, { minItems: 1, maxItems: 20 })),
  filters: Type.Optional(
    Type.Object(
      {
        areas: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 }),
        ),
        minPrice: Type.Optional(Amount),
        maxPrice: Type.Optional(Amount),
      },
      { additionalProperties: false },
    ),
  ),
};

export const CreateCartBody = Type.Object(
  {
    pollingCallbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    cartHoldTimeSec: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    products: Type.Array(Type.Object(productFields, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 10,
    }),
  },
  { additionalProperties: false },
);

export const ProductsBody = Type.Object(
  {
    products: Type.Array(
      Type.Object(
        { op: Type.Union([Type.Literal('add'), Type.Literal('remove')]), ...productFields },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10 },
    ),
  },
  { additionalProperties: false },
);

export const DeliveriesBody = Type.Object(
  {
    deliveries: Type.Array(
      Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 64, description: 'Delivery id' }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1 },
    ),
  },
  { additionalProperties: false },
);

const Text = (max: number) => Type.String({ maxLength: max });

export const PaymentsBody = Type.Object(
  {
    payments: Type.Array(
      Type.Object(
        {
          type: Type.Union([Type.Literal('CC')], { description: 'Payment type (card)' }),
          amount: Amount,
          currency: CurrencyCode(),
          token: Type.String({
            minLength: 1,
            maxLength: 512,
            description: 'Card payment nonce (never a card number)',
          }),
          cin: Type.Optional(Type.String({ pattern: '^\\d{3,4}$' })),
          expireMonth: Type.Integer({ minimum: 1, maximum: 12 }),
          expireYear: Type.Integer({ minimum: 2000, maximum: 2100 }),
          firstName: Type.String({ minLength: 1, maxLength: 100 }),
          lastName: Type.String({ minLength: 1, maxLength: 100 }),
          email: Type.String({ format: 'email', maxLength: 254 }),
          phone: Type.Optional(Text(40)),
          reference: Type.Optional(Text(100)),
          thirdPartyAccountId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          address: Type.Optional(
            Type.Object(
              {
                line1: Type.Optional(Text(200)),
                line2: Type.Optional(Text(200)),
                unit: Type.Optional(Text(50)),
                city: Type.Optional(Text(100)),
                region: Type.Optional(Text(50)),
                postalCode: Type.Optional(Text(20)),
                country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1 },
    ),
  },
  { additionalProperties: false },
);

/* ---------- answers ---------- */

const Ref = Type.Object({ id: Type.String(), type: Type.String() });
const Refs = Type.Object({ data: Type.Array(Ref) });
const DateTime = Type.String({ format: 'date-time' });
const Charge = Type.Object({ value: Type.String(), label: Type.String(), type: Type.String() });

export const CommerceError = Type.Object(
  {
    errors: Type.Array(
      Type.Object({ code: Type.String(), detail: Type.String(), status: Type.String() }),
    ),
  },
  { description: 'Commerce error body' },
);

/** The 409 of the payment step: the commerce error, with the 3-D Secure action when there is one. */
export const CommercePaymentConflict = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        code: Type.String(),
        detail: Type.String(),
        status: Type.String(),
        meta: Type.Optional(
          Type.Object(
            { payment_action: PaymentActionSchema },
            { description: 'Only with code 20122 when the issuer asks for 3-D Secure' },
          ),
        ),
      }),
    ),
  },
  { description: 'Commerce error body' },
);

export const OffersResult = Type.Object(
  {
    limits: Type.Object({ max: Type.Integer() }),
    prices: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.Literal('offered-prices'),
          attributes: Type.Object({ currency: Type.String(), value: Type.String() }),
          relationships: Type.Object({ offers: Refs, priceZones: Refs, areas: Refs }),
          _links: Type.Object({ self: Type.Object({ href: Type.String() }) }),
        }),
      ),
    }),
    offers: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.Literal('offers'),
        attributes: Type.Object({
          name: Type.String(),
          description: Type.String(),
          rank: Type.Integer(),
          offerDetails: Type.Object({
            link: Type.String(),
            linkText: Type.String(),
            text: Type.String(),
          }),
          offerType: Type.String(),
          currency: Type.String(),
          start: Type.Optional(DateTime),
          end: Type.Optional(DateTime),
          prices: Type.Array(
            Type.Object({
              priceZone: Type.String(),
              value: Type.String(),
              total: Type.String(),
              fees: Type.Array(Charge),
              taxes: Type.Array(Charge),
            }),
          ),
          limit: Type.Object({
            min: Type.Integer(),
            max: Type.Integer(),
            sellableQty: Type.String(),
            multiples: Type.Integer(),
            maxAccessibleSeats: Type.Integer(),
            maxCompanionSeatsPerAccessibleSeat: Type.Integer(),
          }),
        }),
        relationships: Type.Object({
          areas: Refs,
          priceZones: Refs,
          offerSets: Refs,
          passwords: Refs,
          products: Refs,
        }),
      }),
    ),
    _embedded: Type.Object({
      priceZones: Type.Object({
        data: Type.Array(
          Type.Object({
            id: Type.String(),
            type: Type.Literal('price-zones'),
            attributes: Type.Object({ currency: Type.String(), name: Type.String() }),
            relationships: Type.Object({ offers: Refs, areas: Refs }),
          }),
        ),
      }),
      areas: Type.Object({
        data: Type.Array(
          Type.Object({
            id: Type.String(),
            type: Type.Literal('areas'),
            attributes: Type.Object({
              rank: Type.Integer(),
              name: Type.String(),
              description: Type.String(),
              areaType: Type.Union([
                Type.Literal('LEVEL'),
                Type.Literal('SECTION'),
                Type.Literal('AREA'),
              ]),
            }),
            relationships: Type.Object({ areas: Refs, offers: Refs, priceZones: Refs }),
          }),
        ),
      }),
      passwords: Type.Object({
        data: Type.Array(
          Type.Object({
            id: Type.String(),
            type: Type.Literal('passwords'),
            attributes: Type.Object({
              name: Type.String(),
              type: Type.String(),
              text: Type.String(),
              link: Type.String(),
              textLabel: Type.String(),
              linkLabel: Type.String(),
              exclusive: Type.Boolean(),
              start: Type.Optional(DateTime),
              end: Type.Optional(DateTime),
              prompts: Type.Array(Type.Object({ id: Type.String(), text: Type.String() })),
            }),
            relationships: Type.Object({ offers: Refs }),
            metadata: Type.Object({ offerIds: Type.Array(Type.String()) }),
          }),
        ),
      }),
      attributesRefs: Type.Object({ data: Type.Array(Ref) }),
      holds: Type.Object({ data: Type.Array(Ref) }),
    }),
    metadata: Type.Object({
      eventMapping: Type.Object({
        source: Type.Object({ name: Type.String(), id: Type.String() }),
        id: Type.String(),
        type: Type.String(),
      }),
      accessibleSeatingEnabled: Type.Boolean(),
      rollupFacilityFee: Type.Boolean(),
      rollupServiceCharge: Type.Boolean(),
    }),
    debug: Type.Array(Type.String()),
  },
  { title: 'CommerceOffers', description: 'The offers and prices of an event' },
);

const LineCharge = Type.Object({
  label: Type.String(),
  amount: Type.String(),
  type: Type.String(),
});
const Totals = Type.Object({
  currency: Type.String(),
  price: Type.String(),
  fees: Type.String(),
  taxes: Type.String(),
  deliveries: Type.String(),
  upsells: Type.String(),
  total: Type.String(),
});

export const CartDocument = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('carts'),
    attributes: Type.Object({
      state: Type.String({
        description: 'pending, held, paid, purchased, released, expired or failed',
      }),
      polling: Type.Boolean(),
      pollingCallbackUrl: Type.Optional(Type.String()),
      holdTimeSec: Type.Integer(),
      reservations: Type.Array(
        Type.Object({
          expiration: Type.Optional(DateTime),
          itemGroups: Type.Array(
            Type.Object({
              type: Type.String(),
              metadata: Type.Object({ type: Type.String(), lineItem: Type.String() }),
              id: Type.String(),
              quantity: Type.Integer(),
              currency: Type.String(),
              perItemPrice: Type.String(),
              fees: Type.Array(LineCharge),
              taxes: Type.Array(LineCharge),
              offer: Type.String(),
            }),
          ),
          itemDetails: Type.Array(
            Type.Object({
              type: Type.String(),
              metadata: Type.Object({ type: Type.String(), itemGroup: Type.String() }),
              section: Type.String(),
              row: Type.String(),
              startSeat: Type.String(),
              endSeat: Type.String(),
              ga: Type.Boolean(),
            }),
          ),
          reservation: Type.String(),
          product: Type.String(),
        }),
      ),
      fees: Type.Array(LineCharge),
      taxes: Type.Array(LineCharge),
      totals: Totals,
      delivery: Type.Optional(
        Type.Object({
          id: Type.String(),
          deliveryType: Type.String(),
          fee: Type.String(),
        }),
      ),
      payments: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.String(),
          amount: Type.String(),
          currency: Type.String(),
          card: Type.Object({
            issuer: Type.String(),
            number: Type.String({ description: 'Masked: last four digits only' }),
            expireMonth: Type.Integer(),
            expireYear: Type.Integer(),
          }),
        }),
      ),
      order: Type.Optional(
        Type.Object({ id: Type.String(), orderNumber: Type.String(), status: Type.String() }),
      ),
      failure: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
    relationships: Type.Object({ events: Refs, products: Refs, offers: Refs }),
  },
  { title: 'CommerceCart', description: 'A shopping cart' },
);

export const CartResult = Type.Object(
  {
    cart: CartDocument,
    _embedded: Type.Object({
      events: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.Literal('events'),
          attributes: Type.Object({ name: Type.String() }),
          relationships: Type.Object({ products: Refs }),
        }),
      ),
      products: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.Literal('products'),
          attributes: Type.Object({ name: Type.String(), productType: Type.String() }),
          relationships: Type.Object({ events: Refs, offers: Refs }),
        }),
      ),
      offers: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.Literal('offers'),
          attributes: Type.Object({ name: Type.String(), description: Type.String() }),
        }),
      ),
    }),
    status: Type.String({ description: 'The HTTP status of the answer' }),
  },
  {
    title: 'CommerceCartResult',
    description: 'A cart with the events, products and offers it refers to',
  },
);

export const DeliveriesResult = Type.Object(
  {
    deliveries: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.Literal('delivery'),
        attributes: Type.Object({
          deliveryType: Type.String(),
          displayRank: Type.String(),
          selected: Type.Boolean(),
          totals: Type.Object({
            fee: Type.String(),
            tax: Type.String(),
            grand: Type.String(),
            currency: Type.String(),
          }),
          description: Type.Object({ long: Type.String(), short: Type.String() }),
          restrictions: Type.Array(
            Type.Object({
              type: Type.String(),
              id: Type.String(),
              offers: Type.Array(Type.String()),
            }),
          ),
        }),
        relationships: Type.Object({ deliveryOptions: Refs }),
      }),
    ),
    _embedded: Type.Object({
      deliveryOptions: Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.Literal('deliveryOption'),
          attributes: Type.Object({
            requiresAddress: Type.Boolean(),
            requiresIdentification: Type.Boolean(),
            description: Type.Object({ long: Type.String(), short: Type.String() }),
            acceptedCountries: Type.Optional(Type.Array(CountryRef('accepted-delivery-country'))),
            excludedCountries: Type.Optional(Type.Array(CountryRef('excluded-delivery-country'))),
          }),
        }),
      ),
    }),
  },
  { title: 'CommerceDeliveries', description: 'The delivery methods of a cart' },
);

function CountryRef(type: string): TSchema {
  return Type.Object({
    id: Type.String(),
    type: Type.Literal(type),
    attributes: Type.Object({ country: Type.String() }),
  });
}

export const PurchaseResult = Type.Object(
  {
    confirmation: Type.Object({
      id: Type.String(),
      type: Type.Literal('order-confirmations'),
      relationships: Type.Object({ orders: Refs }),
    }),
    _embedded: Type.Object({
      orders: Type.Object({
        data: Type.Array(
          Type.Object({
            id: Type.String(),
            type: Type.Literal('orders'),
            attributes: Type.Object({
              orderNumber: Type.String(),
              status: Type.String(),
              cartId: Type.String(),
              eventId: Type.String(),
              currency: Type.String(),
              total: Type.String(),
              ticketCount: Type.Integer(),
              confirmedAt: Type.Optional(DateTime),
            }),
            redemption: Type.Object({
              url: Type.String(),
              token: Type.String({
                description: 'Order token: bearer credential of the order read; shown once',
              }),
            }),
          }),
        ),
      }),
    }),
  },
  { title: 'CommercePurchase', description: 'The orders of a purchased cart' },
);
