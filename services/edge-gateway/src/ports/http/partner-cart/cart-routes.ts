import { decimalNumberToMinor, moneyToDecimal } from '@marquee/platform/money';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ReserveInput, ReserveRequest } from '../../../app/partner-cart.js';
import { COMMIT_EXAMPLE, HELD_CART_EXAMPLE } from './examples.js';
import { CART_ID_RULE, InvalidInput, type Params, type PartnerCartContext } from './context.js';
import {
  CartIdQuery,
  CartResult,
  CommitBody,
  CommitResult,
  EventParams,
  IdempotencyHeaders,
  KeyQuery,
  OptionalCartIdQuery,
  PendingCart,
  ReserveBody,
  ReserveHeaders,
  errorResponses,
  type Reserve,
} from './schemas.js';

/**
 * `/events/{event_id}/cart`, the cart of a purchase: reserve into a new cart (POST), read it or
 * poll a pending reserve (GET), commit the paid cart into an order (PUT), release it (DELETE).
 * Its shipping and payment are shipping-routes.ts and payment-routes.ts.
 */
export function cartRoutes(scope: FastifyInstance, context: PartnerCartContext): void {
  reserveRoute(scope, context);
  readCartRoute(scope, context);
  commitRoute(scope, context);
  releaseRoute(scope, context);
}

/** POST /events/:event_id/cart: reserves tickets into a new cart. */
function reserveRoute(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf, answerCart } = context;
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
          'and body answers the cart the first request made, as it is now (or the error it ended ' +
          'in). In each reserve `end_seat` is not below ' +
          '`begin_seat`, and a `price.amount` has no more decimals than the event currency; a ' +
          'ticket type the event does not have is invalid input (400 code 10002).',
        params: EventParams,
        querystring: KeyQuery,
        headers: ReserveHeaders,
        body: ReserveBody,
        response: {
          200: { ...CartResult, examples: [HELD_CART_EXAMPLE] },
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
        ...admissionOf(headers),
      });
      return answerCart(reply, event_id, answer);
    },
  );
}

/** GET /events/:event_id/cart: reads a cart, or polls a pending reserve. */
function readCartRoute(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf, answerCart } = context;
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
          200: { ...CartResult, examples: [HELD_CART_EXAMPLE] },
          202: PendingCart,
          ...errorResponses(402, 403, 404, 409, 502),
        },
      },
    },
    async (request, reply) => {
      const { event_id } = request.params as Params;
      const { cart_id } = request.query as Static<typeof CartIdQuery>;
      return answerCart(reply, event_id, await cart.getCart(callerOf(request), event_id, cart_id));
    },
  );
}

/** PUT /events/:event_id/cart: commits a paid cart into an order. */
function commitRoute(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;
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
          200: { ...CommitResult, examples: [COMMIT_EXAMPLE] },
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
        cartId: context.cartIdOf(body.cart_id, query.cart_id),
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
        grand_total: moneyToDecimal(total),
        currency_code: total?.currency || committed.cart.currency,
      };
    },
  );
}

/** DELETE /events/:event_id/cart: releases a cart. */
function releaseRoute(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;
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

/** The first language tag of `Accept-Language` (`fr-CA` → `fr-ca`); empty = the cart's default. */
function languageOf(header: string | undefined): string {
  const match = /^\s*([A-Za-z]{2})(?:-([A-Za-z]{2}))?\s*(?:[;,]|$)/.exec(header ?? '');
  if (!match) return '';
  return match[2] ? `${match[1]}-${match[2]}`.toLowerCase() : match[1]!.toLowerCase();
}

/** The waiting room's admission headers of a reserve, if it presents one. */
function admissionOf(headers: Static<typeof ReserveHeaders>): Pick<ReserveInput, 'admission'> {
  const token = headers['x-admission-token'];
  if (!token) return {};
  const fanId = headers['x-fan-id'];
  const deviceId = headers['x-device-id'];
  return {
    admission: { token, ...(fanId ? { fanId } : {}), ...(deviceId ? { deviceId } : {}) },
  };
}
