import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import { NOT_A_DISTRIBUTOR } from '../api-key-guard.js';
import { declareSecurity } from '../security.js';
import type { PartnerCartContext } from './context.js';
import { InvalidInput } from './context.js';
import { sendPartnerError } from './errors.js';
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

/**
 * `GET /tracking`: records an affiliate's visit, answers {@link TRACKING_PIXEL}. The pixel sits on
 * pages anyone can read, so it takes the app's public `tracking_id` (auth-gateway gives one to
 * every app at creation), never the API key: a key in the query is refused (400 code 10002), and a
 * visit counts nothing against the app's quota (visitors, not the app, cause the calls). An
 * unknown tracking id is 401 code 10001, an app without partner distribution 403 code 10003.
 */
export function trackingRoutes(
  scope: FastifyInstance,
  context: PartnerCartContext,
  access: DeveloperAccess,
): void {
  const { cart, tags, summary, callerOf, family } = context;
  declareSecurity(scope, ['trackingId']);
  scope.addHook('onRequest', async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query?.apikey !== undefined || request.headers['x-api-key'] !== undefined)
      throw new InvalidInput(
        'The tracking pixel takes tracking_id; never put the API key on a page',
      );
    const raw = query?.tracking_id;
    const id = typeof raw === 'string' && raw.length <= 64 ? raw : undefined;
    const check = id ? await access.resolveTrackingId(id) : undefined;
    if (!check?.valid) return sendPartnerError(reply, family, family.unauthorized);
    if (!check.access?.partnerDistribution)
      return sendPartnerError(reply, family, NOT_A_DISTRIBUTOR);
    request.appId = check.appId;
  });
  scope.get(
    '/tracking',
    {
      schema: {
        tags,
        summary: summary('Affiliate tracking pixel (public tracking id, no quota spent)'),
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
      return reply.code(200).header('content-type', 'image/gif').send(TRACKING_PIXEL);
    },
  );
}
