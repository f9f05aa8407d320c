import { errorKindOf } from '@marquee/platform/kernel';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Stripe from 'stripe';
import type { StripeWebhookSink } from '../../../app/stripe-webhooks.js';

/**
 * `Retry-After` of the 503 of an endpoint without a signing secret: an operator's fix, not a
 * moment's, so the hint is long (Stripe's own retry schedule ignores it and keeps trying for days).
 */
const NOT_CONFIGURED_RETRY_AFTER_S = 3600;

/** Methods other than POST on the endpoint: 405 with `Allow`, like every path of the API families. */
const OTHER_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'] as const;

/** The largest event body taken; Stripe's events are a few kilobytes. */
const BODY_LIMIT = 512 * 1024;

const WebhookError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ error: { code, message } });

/** The POST's schema: what the OpenAPI document shows of the endpoint. */
const WEBHOOK_SCHEMA = {
  tags: ['webhooks'],
  summary: "Stripe's webhook events",
  // No credential of the document's schemes: the signature of the body is the proof.
  security: [],
  description:
    'Called by Stripe only. The raw body must carry a valid `Stripe-Signature` (the endpoint signing secret, timestamp within 300 s). Handled event types: `payment_intent.canceled`, `payment_intent.payment_failed`, `charge.refunded`, `charge.dispute.created`; others are acknowledged and ignored. An event id already handled is acknowledged and changes nothing. See docs/payments.md.',
  response: {
    200: Type.Object({
      received: Type.Boolean(),
      duplicate: Type.Boolean({ description: 'The event id was handled before' }),
    }),
    400: {
      ...WebhookError,
      description:
        'No, a wrong or a stale Stripe-Signature (invalid_signature), or a signed event without its id, type, created time or data.object (invalid_event)',
    },
    500: { ...WebhookError, description: 'Not handled now; Stripe sends it again' },
    503: {
      ...WebhookError,
      description:
        'No signing secret configured (STRIPE_WEBHOOK_SECRET), or cart unavailable; with `Retry-After`',
    },
  },
};

/**
 * The event of a delivery, verified against the signing secret; undefined when `reply` was sent
 * its 400 (no, a wrong or a stale signature, or a signed event lacking what cart needs).
 */
function verifiedEvent(
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
): Stripe.Event | undefined {
  const signature = request.headers['stripe-signature'];
  const body = request.body;
  if (typeof signature !== 'string' || signature === '') {
    void refuse(reply, 400, 'invalid_signature', 'the Stripe-Signature header is required');
    return undefined;
  }
  if (!Buffer.isBuffer(body)) {
    void refuse(reply, 400, 'invalid_signature', 'the event body is missing');
    return undefined;
  }
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(body, signature, secret);
  } catch {
    void refuse(
      reply,
      400,
      'invalid_signature',
      'the Stripe-Signature does not verify: wrong secret, altered body, or a timestamp outside the tolerance',
    );
    return undefined;
  }
  // Signed by Stripe, yet checked: an event without these would fail further in, as a 500.
  const object = (event as { data?: { object?: unknown } }).data?.object;
  if (
    typeof event.id !== 'string' ||
    event.id === '' ||
    typeof event.type !== 'string' ||
    !Number.isInteger(event.created) ||
    typeof object !== 'object' ||
    object === null
  ) {
    void refuse(
      reply,
      400,
      'invalid_event',
      'the event lacks its id, type, created time or data.object',
    );
    return undefined;
  }
  return event;
}

/**
 * Hands a verified event to cart: 200 once it took it (or had it already), 503 while cart is
 * unavailable, 500 otherwise (Stripe sends it again either way).
 */
async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  sink: StripeWebhookSink,
  event: Stripe.Event,
) {
  try {
    const answer = await sink.handleStripeEvent({
      eventId: event.id,
      type: event.type,
      objectJson: JSON.stringify(event.data.object),
      created: new Date(event.created * 1000),
    });
    return reply.code(200).send({ received: true, duplicate: answer.duplicate });
  } catch (error) {
    request.log.warn({ err: error, stripe_event: event.id }, 'Stripe event not handled');
    const kind = errorKindOf(error);
    if (kind === 'unavailable' || kind === 'deadline_exceeded' || kind === 'resource_exhausted')
      return reply
        .header('retry-after', '5')
        .code(503)
        .send({ error: { code: 'unavailable', message: 'cart is unavailable; retry' } });
    return refuse(reply, 500, 'internal', 'the event was not handled; Stripe sends it again');
  }
}

/**
 * `POST /webhooks/stripe`: Stripe's webhook endpoint. The body is taken raw (the signature covers
 * its exact bytes) and verified with the SDK's `webhooks.constructEvent` against the endpoint's
 * signing secret, with the SDK's default tolerance of the signed timestamp (300 s), which also
 * refuses a replay of an old delivery. A missing, wrong or stale signature is 400 and nothing is
 * forwarded. A verified event goes to cart (HandleStripeEvent), which acts on it once per event id.
 * Without a secret configured the endpoint answers 503: an event is never taken unverified.
 */
export async function registerStripeWebhook(
  app: FastifyInstance,
  options: { secret: string | undefined; sink: StripeWebhookSink | undefined },
): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: BODY_LIMIT },
      (_r, body, done) => done(null, body),
    );
    // Answered in onRequest, before body parsing: QUERY would otherwise be refused first for
    // having no Content-Type.
    const notAllowed = async (request: FastifyRequest, reply: FastifyReply) =>
      reply
        .header('allow', 'POST')
        .code(405)
        .send({
          error: {
            code: 'method_not_allowed',
            message: `Method ${request.method} is not allowed for /webhooks/stripe`,
          },
        });
    scope.route({
      method: [...OTHER_METHODS],
      url: '/webhooks/stripe',
      schema: { hide: true },
      onRequest: notAllowed,
      handler: notAllowed,
    });
    scope.post('/webhooks/stripe', { schema: WEBHOOK_SCHEMA }, async (request, reply) => {
      if (!options.secret || !options.sink)
        return reply
          .header('retry-after', String(NOT_CONFIGURED_RETRY_AFTER_S))
          .code(503)
          .send({
            error: { code: 'unavailable', message: 'the Stripe webhook is not configured' },
          });
      const event = verifiedEvent(request, reply, options.secret);
      if (event === undefined) return reply;
      return forward(request, reply, options.sink, event);
    });
  });
}
