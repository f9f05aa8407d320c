import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PartnerCartContext } from './context.js';
import { TrackingQuery, errorResponses } from './schemas.js';

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

/** `GET /tracking`: records an affiliate's visit, answers {@link TRACKING_PIXEL}. */
export function trackingRoutes(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;
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
