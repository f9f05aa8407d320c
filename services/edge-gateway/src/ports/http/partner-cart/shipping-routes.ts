import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CART_ID_RULE, type Params, type PartnerCartContext } from './context.js';
import { renderShippingOptions } from './render.js';
import {
  CartResult,
  EventParams,
  OptionalCartIdQuery,
  ShippingBody,
  ShippingOptions,
  ShippingQuery,
  errorResponses,
} from './schemas.js';

/** `/events/{event_id}/cart/shipping`: the shipping options of a cart (GET), the choice (PUT). */
export function shippingRoutes(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;

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
        context.cartIdOf(body.cart_id, query.cart_id),
        body.shipping_id,
      );
      return context.answerCart(reply, event_id, { cart: record, pollAfterSeconds: 0 });
    },
  );
}
