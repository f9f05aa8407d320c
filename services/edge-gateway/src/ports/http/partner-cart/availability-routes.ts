import type { FastifyInstance } from 'fastify';
import type { Params, PartnerCartContext } from './context.js';
import { renderAvailability } from './render.js';
import { Availability, EventParams, KeyQuery, errorResponses } from './schemas.js';

/** `GET /events/{event_id}/availability`: live availability and offers, the first step. */
export function availabilityRoutes(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;
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
}
