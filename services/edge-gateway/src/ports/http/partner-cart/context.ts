import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CartAnswer, CartCaller, PartnerCart } from '../../../app/partner-cart.js';
import type { ApiFamily } from '../families/family.js';
import { PARTNER_CODE_STATUS, STALE_CART, sendPartnerError } from './errors.js';
import { renderCart } from './render.js';
import type { EventParams } from './schemas.js';

/** The rule between the query and the body of a cart's PUT routes (400 code 10002 otherwise). */
export const CART_ID_RULE =
  'The cart is the body `cart_id` or the query `cart_id`: one of them is required, and when both ' +
  'are given they are the same (400 code 10002 otherwise).';

/** Seconds a client waits before polling a pending cart when the cart service gave no hint. */
const DEFAULT_POLL_SECONDS = 1;

/** Invalid input found by a route itself: 400 code 10002 through the scope's error handler. */
export class InvalidInput extends Error {
  readonly kind = 'invalid_argument' as const;
}

export type Params = Static<typeof EventParams>;

/** What every partner cart route module works with (partner-cart-routes.ts makes it per prefix). */
export interface PartnerCartContext {
  readonly family: ApiFamily;
  readonly cart: PartnerCart;
  /** The OpenAPI tags of the family's operations. */
  readonly tags: string[];
  /** An operation's summary, marked as the sandbox's under `/partners-preprod`. */
  summary(text: string): string;
  /** The app calling, and whether the call is a sandbox call. */
  callerOf(request: FastifyRequest): CartCaller;
  /**
   * The answer of a cart: 202 while pending, 200 with the cart, the failure of its reserve as the
   * family error, 404 code 90003 once released or expired.
   */
  answerCart(reply: FastifyReply, eventId: string, answer: CartAnswer): FastifyReply;
  /** The cart of a PUT: the body's or the query's id, which must agree ({@link CART_ID_RULE}). */
  cartIdOf(fromBody: string | undefined, fromQuery: string | undefined): string;
}

export function partnerCartContext(
  scope: FastifyInstance,
  family: ApiFamily,
  cart: PartnerCart,
): PartnerCartContext {
  const sandbox = scope.prefix.startsWith('/partners-preprod');
  const pollingUrl = (eventId: string, cartId: string) =>
    `${scope.prefix}/events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`;
  return {
    family,
    cart,
    tags: [family.title],
    summary: (text) => (sandbox ? `${text} (pre-production sandbox)` : text),
    callerOf: (request) => ({
      appId: request.appId ?? '',
      sandbox,
      ...(request.heldTicketsPerEvent !== undefined
        ? { heldTicketsPerEvent: request.heldTicketsPerEvent }
        : {}),
    }),
    answerCart(reply, eventId, answer) {
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
    },
    cartIdOf(fromBody, fromQuery) {
      if (fromBody && fromQuery && fromBody !== fromQuery) {
        throw new InvalidInput('cart_id of the query and of the body differ');
      }
      const id = fromBody ?? fromQuery;
      if (!id) throw new InvalidInput('cart_id is required (body or query)');
      return id;
    },
  };
}
