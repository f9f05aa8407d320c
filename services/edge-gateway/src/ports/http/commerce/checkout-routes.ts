import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { wasAnswered } from '../families/backend-call.js';
import { READ_ERRORS, errors, type CommerceRoutesContext } from './context.js';
import { CartParams, DeliveriesResult, KeyHeaders, KeyQuery } from './schemas.js';
import { deliveriesResult } from './shapes.js';

/**
 * The checkout deliveries of a cart, for the cart's app (no fan needed):
 * `GET /checkout/carts/{cartId}/deliveries` (and its undocumented `.json` twin).
 */
export function checkoutRoutes(scope: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;

  const deliveries = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as Static<typeof CartParams>;
    const answer = await run(reply, () =>
      commerce.getCartDeliveries({ appId: request.appId!, cartId: params.cartId }),
    );
    if (wasAnswered(answer)) return reply;
    return reply.code(200).send(deliveriesResult(answer.deliveries, ''));
  };
  const deliveriesSchema = {
    tags: ['commerce'],
    summary: 'Deliveries of a cart, with their options and accepted countries',
    params: CartParams,
    querystring: KeyQuery,
    headers: KeyHeaders,
    response: { 200: DeliveriesResult, ...errors(...READ_ERRORS) },
  };
  scope.get('/checkout/carts/:cartId/deliveries', { schema: deliveriesSchema }, deliveries);
  scope.get(
    '/checkout/carts/:cartId/deliveries.json',
    { schema: { ...deliveriesSchema, hide: true } },
    deliveries,
  );
}
