import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import {
  toDecimal,
  decimalNumberToMinor,
  decimalStringToMinor,
  type Billing,
  type CartAnswer,
  type CartCaller,
  type PartnerCart,
  type ReserveRequest,
} from '../../../app/partner-cart.js';
import type { ApiFamily } from '../families/family.js';
import {
  PARTNER_CODE_STATUS,
  STALE_CART,
  partnerErrorHandler,
  redactPartnerSecrets,
  requirePartnerApiKey,
  sendPartnerError,
} from './errors.js';
import { renderAvailability, renderCart, renderShippingOptions } from './render.js';
import {
  Availability,
  CartIdQuery,
  CartResult,
  CommitBody,
  CommitResult,
  EventParams,
  IdempotencyHeaders,
  KeyQuery,
  OptionalCartIdQuery,
  PaymentBody,
  PendingCart,
  ReserveBody,
  ReserveHeaders,
  ShippingBody,
  ShippingOptions,
  ShippingQuery,
  TrackingQuery,
  errorResponses,
  type Reserve,
} from './schemas.js';

/**
 * The tracking pixel: a 1x1 GIF89a (43 bytes) whose one pixel is transparent: header, logical
 * screen 1x1 with a two-colour table (black, white), a graphic control extension marking colour 0
 * transparent, the image descriptor, its LZW data, the trailer.
 */
export const TRACKING_PIXEL = Buffer.from(
  '474946383961' + // GIF89a
    '01000100800000' + // logical screen 1x1, global colour table of 2 colours
    '000000ffffff' + // the colours: black, white
    '21f9040100000000' + // graphic control extension: colour 0 is transparent
    '2c000000000100010000' + // image descriptor: 1x1 at 0,0
    '02024401003b', // LZW minimum code size 2, one data block, terminator, trailer
  'hex',
);

/** The rule between the query and the body of a cart's PUT routes (400 code 10002 otherwise). */
const CART_ID_RULE =
  'The cart is the body `cart_id` or the query `cart_id`: one of them is required, and when both ' +
  'are given they are the same (400 code 10002 otherwise).';

/** Seconds a client waits before polling a pending cart when the cart service gave no hint. */
const DEFAULT_POLL_SECONDS = 1;

class InvalidInput extends Error {
  readonly kind = 'invalid_argument' as const;
}

type Params = Static<typeof EventParams>;

/**
 * The partner cart (`/partners/v1`, and `/partners-preprod/v1` where every call is a sandbox
 * call): availability, reserve with polling, shipping, payment, commit, release and the tracking
 * pixel, over cart's CartService. Design, codes and amounts: README, "Partner cart".
 * `POST /orders` (the secure-entry order read) is another module of this family.
 */
export function partnerCartRoutes(backends: {
  partnerCart: PartnerCart;
  developerAccess: DeveloperAccess;
}) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // A child scope: the key guard, validator and error handler cover these routes only, and an
    // unknown path still answers the family's 404 (a wrong method 405) without a key.
    await familyScope.register(async (scope) => routes(scope, family));
  };

  async function routes(scope: FastifyInstance, family: ApiFamily): Promise<void> {
    redactPartnerSecrets(scope);
    scope.setErrorHandler(partnerErrorHandler(family));
    const cart = backends.partnerCart;
    requirePartnerApiKey(scope, family, backends.developerAccess, () => cart.assertRoom?.());

    const sandbox = scope.prefix.startsWith('/partners-preprod');
    const tags = [family.title];
    const summary = (text: string) => (sandbox ? `${text} (pre-production sandbox)` : text);
    const callerOf = (request: FastifyRequest): CartCaller => ({
      appId: request.appId ?? '',
      sandbox,
    });
    const pollingUrl = (eventId: string, cartId: string) =>
      `${scope.prefix}/events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`;

    /** 202 while pending, 200 with the cart, or the failure of the reserve as the family error. */
    const answerCart = (reply: FastifyReply, eventId: string, answer: CartAnswer) => {
      const { cart: record } = answer;
      switch (record.status) {
        case 'PENDING': {
          const wait = answer.pollAfterSeconds > 0 ? answer.pollAfterSeconds : DEFAULT_POLL_SECONDS;
          const url = pollingUrl(eventId, record.id);
          return reply
            .code(202)
            .headers({ location: url, 'retry-after': String(wait) })
            .send({ cart_id: record.id, polling_url: url, wait });
        }
        case 'FAILED': {
          const code = record.failureCode || '20052';
          return sendPartnerError(reply, family, {
            status: PARTNER_CODE_STATUS[code] ?? 409,
            code,
            detail: record.failureMessage || 'The reserve failed',
          });
        }
        case 'RELEASED':
        case 'EXPIRED':
          return sendPartnerError(reply, family, {
            status: 404,
            code: STALE_CART,
            detail:
              record.status === 'RELEASED'
                ? 'The cart was released'
                : 'The hold of the cart expired; reserve again',
          });
        default:
          return reply.code(200).send(renderCart(record, Date.now()));
      }
    };

    const cartIdOf = (fromBody: string | undefined, fromQuery: string | undefined) => {
      if (fromBody && fromQuery && fromBody !== fromQuery) {
        throw new InvalidInput('cart_id of the query and of the body differ');
      }
      const id = fromBody ?? fromQuery;
      if (!id) throw new InvalidInput('cart_id is required (body or query)');
      return id;
    };

    scope.get(
      '/events/:event_id/availability',
      {
        schema: {
          tags,
          summary: summary('Live availability and offers of an event (first step of a purchase)'),
          params: EventParams,
          querystring: KeyQuery,
          response: { 200: Availability, ...errorResponses(403, 404, 502) },
        },
      },
      async (request) => {
        const { event_id } = request.params as Params;
        return renderAvailability(
          await cart.getEventAvailability(callerOf(request), event_id),
          Date.now(),
        );
      },
    );

    scope.post(
      '/events/:event_id/cart',
      {
        schema: {
          tags,
          summary: summary('Reserve tickets into a new cart'),
          description:
            'Answers 200 with the held cart, or 202 `{cart_id, polling_url, wait}` (also `Location` and ' +
            '`Retry-After`) while the partner is still reserving: GET `polling_url` until it answers 200. ' +
            '`Prefer: respond-async` forces the 202 path. `Idempotency-Key`: a retry with the same key ' +
            'and body answers the first outcome. In each reserve `end_seat` is not below ' +
            '`begin_seat`, and a `price.amount` has no more decimals than the event currency; a ' +
            'ticket type the event does not have is invalid input (400 code 10002).',
          params: EventParams,
          querystring: KeyQuery,
          headers: ReserveHeaders,
          body: ReserveBody,
          response: {
            200: CartResult,
            202: PendingCart,
            ...errorResponses(403, 404, 409, 413, 415, 422, 502),
          },
        },
      },
      async (request, reply) => {
        const { event_id } = request.params as Params;
        const body = request.body as Static<typeof ReserveBody>;
        const headers = request.headers as Static<typeof ReserveHeaders>;
        const caller = callerOf(request);
        const reserves = [body.reserve, ...(body.additional_reserves ?? [])];
        // A variable price is in the event's currency, which only the cart service knows.
        const currency = reserves.some((r) => r.tickets.some((t) => t.price?.amount !== undefined))
          ? (await cart.getEventAvailability(caller, event_id)).currency
          : '';
        const answer = await cart.reserveCart(caller, {
          eventId: event_id,
          reserves: reserves.map((r, i) => toReserve(r, i, currency)),
          fanSessionId: headers['x-platform-session-sid'] ?? '',
          idempotencyKey: headers['idempotency-key'] ?? '',
          forceAsync: /(?:^|,)\s*respond-async\s*(?:[;,]|$)/i.test(headers.prefer ?? ''),
          language: languageOf(request.headers['accept-language']),
        });
        return answerCart(reply, event_id, answer);
      },
    );

    scope.get(
      '/events/:event_id/cart',
      {
        schema: {
          tags,
          summary: summary('Read a cart; the polling URL of a pending reserve'),
          description:
            '202 `{cart_id, polling_url, wait}` while the reserve runs; 200 the cart once held (and ' +
            'while paid or committed); the reserve’s own error (e.g. 409 code 20052) when it failed; ' +
            '404 code 90003 for an unknown cart, another app’s, or a released or expired one.',
          params: EventParams,
          querystring: CartIdQuery,
          response: {
            200: CartResult,
            202: PendingCart,
            ...errorResponses(402, 403, 404, 409, 502),
          },
        },
      },
      async (request, reply) => {
        const { event_id } = request.params as Params;
        const { cart_id } = request.query as Static<typeof CartIdQuery>;
        return answerCart(
          reply,
          event_id,
          await cart.getCart(callerOf(request), event_id, cart_id),
        );
      },
    );

    scope.get(
      '/events/:event_id/cart/shipping',
      {
        schema: {
          tags,
          summary: summary('Shipping options of a cart'),
          params: EventParams,
          querystring: ShippingQuery,
          response: { 200: ShippingOptions, ...errorResponses(404, 409, 502) },
        },
      },
      async (request) => {
        const { event_id } = request.params as Params;
        const query = request.query as Static<typeof ShippingQuery>;
        const options = await cart.getShippingOptions(
          callerOf(request),
          event_id,
          query.cart_id,
          (query.region ?? '').toUpperCase(),
        );
        return renderShippingOptions(options, '');
      },
    );

    scope.put(
      '/events/:event_id/cart/shipping',
      {
        schema: {
          tags,
          summary: summary('Choose the shipping option of a cart; answers the cart'),
          description: CART_ID_RULE,
          params: EventParams,
          querystring: OptionalCartIdQuery,
          body: ShippingBody,
          response: { 200: CartResult, ...errorResponses(404, 409, 413, 415, 502) },
        },
      },
      async (request, reply) => {
        const { event_id } = request.params as Params;
        const body = request.body as Static<typeof ShippingBody>;
        const query = request.query as Static<typeof OptionalCartIdQuery>;
        const record = await cart.selectShipping(
          callerOf(request),
          event_id,
          cartIdOf(body.cart_id, query.cart_id),
          body.shipping_id,
        );
        return answerCart(reply, event_id, { cart: record, pollAfterSeconds: 0 });
      },
    );

    scope.put(
      '/events/:event_id/cart/payment',
      {
        schema: {
          tags,
          summary: summary('Add billing and authorise the payment; answers the cart'),
          description:
            '`payment.amount` is a decimal string in `payment.currency`, with no more decimals than ' +
            'the currency has, and must equal the unpaid total; `payment.card` is required when ' +
            '`payment.type` is `CC` (any case). `payment.card.number` is the payment nonce; it and ' +
            `\`cin\` are never stored or logged. ${CART_ID_RULE.replace('cart_id', 'cartId')}`,
          params: EventParams,
          querystring: OptionalCartIdQuery,
          headers: IdempotencyHeaders,
          body: PaymentBody,
          response: { 200: CartResult, ...errorResponses(402, 403, 404, 409, 413, 415, 422, 502) },
        },
      },
      async (request, reply) => {
        const { event_id } = request.params as Params;
        const body = request.body as Static<typeof PaymentBody>;
        const query = request.query as Static<typeof OptionalCartIdQuery>;
        const record = await cart.addPayment(callerOf(request), {
          eventId: event_id,
          cartId: cartIdOf(body.cartId, query.cart_id),
          idempotencyKey:
            (request.headers as Static<typeof IdempotencyHeaders>)['idempotency-key'] ?? '',
          billing: toBilling(body.payment),
        });
        return answerCart(reply, event_id, { cart: record, pollAfterSeconds: 0 });
      },
    );

    scope.put(
      '/events/:event_id/cart',
      {
        schema: {
          tags,
          summary: summary('Commit a paid cart; answers the order and its order token'),
          description:
            'The order token is the credential of the secure-entry order read; it is given here ' +
            `once (a retried commit answers the same one). ${CART_ID_RULE}`,
          params: EventParams,
          querystring: OptionalCartIdQuery,
          headers: IdempotencyHeaders,
          body: CommitBody,
          response: {
            200: CommitResult,
            ...errorResponses(402, 403, 404, 409, 413, 415, 422, 502),
          },
        },
      },
      async (request) => {
        const { event_id } = request.params as Params;
        const body = request.body as Static<typeof CommitBody>;
        const query = request.query as Static<typeof OptionalCartIdQuery>;
        const committed = await cart.commitCart(callerOf(request), {
          eventId: event_id,
          cartId: cartIdOf(body.cart_id, query.cart_id),
          idempotencyKey:
            (request.headers as Static<typeof IdempotencyHeaders>)['idempotency-key'] ?? '',
        });
        const total = committed.order.grandTotal ?? committed.cart.totals.grand;
        return {
          cart_id: committed.cart.id,
          order_number: committed.order.orderNumber,
          order_id: committed.order.orderId,
          order_token: committed.orderToken,
          redemption_url: committed.order.redemptionUrl,
          grand_total: toDecimal(total),
          currency_code: total?.currency || committed.cart.currency,
        };
      },
    );

    scope.delete(
      '/events/:event_id/cart',
      {
        schema: {
          tags,
          summary: summary('Release a cart (on abandonment); idempotent'),
          params: EventParams,
          querystring: CartIdQuery,
          response: {
            204: Type.Null({ description: 'Released (also when it already was)' }),
            ...errorResponses(404, 409, 502),
          },
        },
      },
      async (request, reply) => {
        const { event_id } = request.params as Params;
        const { cart_id } = request.query as Static<typeof CartIdQuery>;
        await cart.releaseCart(callerOf(request), event_id, cart_id);
        return reply.code(204).send();
      },
    );

    scope.get(
      '/tracking',
      {
        schema: {
          tags,
          summary: summary('Affiliate tracking pixel'),
          querystring: TrackingQuery,
          response: {
            200: {
              description: 'A 1x1 transparent GIF',
              content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } },
            },
            ...errorResponses(403),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as Static<typeof TrackingQuery>;
        await cart.recordTracking(callerOf(request), {
          eventId: query.event_id,
          sharedId: query.sharedId ?? '',
          subId1: query.subId1 ?? '',
          subId2: query.subId2 ?? '',
          subId3: query.subId3 ?? '',
        });
        return reply
          .code(200)
          .headers({ 'content-type': 'image/gif', 'cache-control': 'no-store' })
          .send(TRACKING_PIXEL);
      },
    );
  }
}

function toReserve(r: Static<typeof Reserve>, index: number, currency: string): ReserveRequest {
  const where = index === 0 ? 'reserve' : `additional_reserves[${index - 1}]`;
  if (r.begin_seat !== undefined && r.end_seat !== undefined && r.end_seat < r.begin_seat) {
    throw new InvalidInput(`${where}.end_seat must not be lower than begin_seat`);
  }
  return {
    tickets: r.tickets.map((t, i) => {
      let amount: { amountMinor: number; currency: string } | undefined;
      if (t.price?.amount !== undefined) {
        const minor = decimalNumberToMinor(t.price.amount, currency);
        if (minor === undefined) {
          throw new InvalidInput(
            `${where}.tickets[${i}].price.amount has more decimals than ${currency} allows`,
          );
        }
        amount = { amountMinor: minor, currency };
      }
      return {
        id: t.id,
        quantity: t.quantity,
        priceId: t.price?.id === undefined ? '' : String(t.price.id),
        ...(amount ? { amount } : {}),
      };
    }),
    areaIds: (r.areas ?? []).map((a) => a.id),
    section: r.section ?? '',
    row: r.row ?? '',
    beginSeat: r.begin_seat ?? 0,
    endSeat: r.end_seat ?? 0,
    acceptBestAvailable: r.accept_best_available ?? true,
  };
}

function toBilling(p: Static<typeof PaymentBody>['payment']): Billing {
  const currency = p.currency.toUpperCase();
  const amountMinor = decimalStringToMinor(p.amount, currency);
  if (amountMinor === undefined) {
    throw new InvalidInput(`payment.amount has more decimals than ${currency} allows`);
  }
  if (p.type.toUpperCase() === 'CC' && p.card === undefined) {
    throw new InvalidInput('payment.card is required for type CC');
  }
  const year = p.card?.expire_year === undefined ? 0 : Number(p.card.expire_year);
  const a = p.address;
  return {
    firstName: p.first_name,
    lastName: p.last_name,
    homePhone: p.home_phone ?? '',
    type: p.type,
    reference: p.reference ?? '',
    ...(a
      ? {
          address: {
            line1: a.line1 ?? '',
            line2: a.line2 ?? '',
            unit: a.unit ?? '',
            city: a.city ?? '',
            countryCode: (a.country?.code ?? '').toUpperCase(),
            countryId: a.country?.id === undefined ? '' : String(a.country.id),
            region: a.region?.abbrev ?? '',
            postalCode: a.postal_code ?? '',
          },
        }
      : {}),
    amount: { amountMinor, currency },
    cardNonce: p.card?.number ?? '',
    cin: p.card?.cin ?? '',
    expireMonth: p.card?.expire_month === undefined ? 0 : Number(p.card.expire_month),
    expireYear: year > 0 && year < 100 ? 2000 + year : year,
    emailAddress: p.email_address,
    thirdPartyAccountId: p.third_party_account_id ?? '',
  };
}

/** The first language tag of `Accept-Language` (`fr-CA` → `fr-ca`); empty = the cart's default. */
function languageOf(header: string | undefined): string {
  const match = /^\s*([A-Za-z]{2})(?:-([A-Za-z]{2}))?\s*(?:[;,]|$)/.exec(header ?? '');
  if (!match) return '';
  return match[2] ? `${match[1]}-${match[2]}`.toLowerCase() : match[1]!.toLowerCase();
}
