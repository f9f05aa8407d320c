import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { wasAnswered } from '../families/backend-call.js';
import { sendFamilyError } from '../families/register-family.js';
import { READ_ERRORS, errors, type CommerceRoutesContext } from './context.js';
import { OFFERS_EXAMPLE } from './examples.js';
import { getBodyReader } from './get-body.js';
import { KeyHeaders, OffersBody, OffersParams, OffersQuery, OffersResult } from './schemas.js';
import { offersResult } from './shapes.js';

/**
 * The offers of an event, for any app: `GET /events/{id}/offers[.{format}]` and its POST twin with
 * the password in the body. A fan access token is optional; when given it must be valid (401).
 *
 * The commerce API lets the GET carry the password in a body too (`{"displayId": "..."}`), which
 * fastify never reads for a GET: the route reads it itself ({@link getBodyReader}), checked against
 * the POST's body schema, so a password is honoured wherever the API lets a client put it.
 */
export function offersRoutes(scope: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
  const readGetBody = getBodyReader<Static<typeof OffersBody>>(OffersBody, '/events/:id/offers');

  const offers = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as Static<typeof OffersParams>;
    if (!context.acceptsFormat(reply, params.format)) return reply;
    const query = request.query as Static<typeof OffersQuery>;
    let body = (request.body ?? {}) as Static<typeof OffersBody>;
    if (request.method === 'GET') {
      const read = await readGetBody(request);
      if (!read.ok) return sendFamilyError(reply, context.family, read.error);
      body = read.body ?? {};
    }
    const fanId = await run(reply, () => context.fanOf(request));
    if (wasAnswered(fanId)) return reply;
    if (fanId === '') return context.refuseToken(reply);
    const passwords = [query.displayId, query.password, body.displayId, body.password].filter(
      (p): p is string => typeof p === 'string' && p.length > 0,
    );
    const answer = await run(reply, () =>
      commerce.getEventOffers({
        appId: request.appId!,
        eventId: params.id,
        fanId: fanId ?? '',
        passwords: [...new Set(passwords)],
      }),
    );
    if (wasAnswered(answer)) return reply;
    return reply.code(200).send(offersResult(answer));
  };
  const offersSchema = {
    tags: ['commerce'],
    summary: 'Offers of an event (prices, price zones, areas, limits, passwords)',
    description:
      'Protected offers are listed only with their password (`displayId` or `password`), given in the query or in a JSON body, a GET\'s too (`{"displayId": "..."}`, checked as the POST body is: 415 unless JSON, 413 over 1 MiB, 400 for unknown fields). `format` must be `json` (406 otherwise). A fan access token is optional; when given it must be valid (401). Too many wrong passwords for the event from this app or fan answer 429 `password_attempts_exceeded` with `Retry-After`, whatever the password given.',
    params: OffersParams,
    querystring: OffersQuery,
    headers: KeyHeaders,
    response: {
      200: { ...OffersResult, examples: [OFFERS_EXAMPLE] },
      ...errors(...READ_ERRORS, 413, 415),
    },
  };
  scope.get('/events/:id/offers', { schema: offersSchema }, offers);
  scope.get('/events/:id/offers.:format', { schema: offersSchema }, offers);
  scope.post(
    '/events/:id/offers.:format',
    {
      schema: {
        ...offersSchema,
        summary: 'Offers of an event, with a password in the body',
        body: OffersBody,
      },
    },
    offers,
  );
}
